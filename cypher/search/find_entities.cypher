// Entity lookup for GET /entities, in the given collections: the entity the text names exactly
// (as an entity key of each collection, or an alias key stored at ingest) first, then full-text
// matches over names and aliases ($query escaped; the index holds every collection, so it is
// asked for $k_index hits and those of the collections kept); with mention counts.
// Parameters: $exact_ids (the text as an entity key of each collection), $query, $k_index,
// $limit, $collections (names, or null for every one).
// Returns: id (key), collection, name, type, aliases, exact, score, mentions, documents.
CALL () {
  MATCH (node:Entity)
  WHERE node.id IN $exact_ids
  RETURN node, 1 AS exact, 0.0 AS score
  UNION ALL
  MATCH (a:Alias)-[:ALIAS_OF]->(node:Entity)
  WHERE a.key IN $exact_ids
  RETURN node, 1 AS exact, 0.0 AS score
  UNION ALL
  CALL db.index.fulltext.queryNodes('entity_name', $query, {limit: $k_index})
  YIELD node, score
  WHERE $collections IS NULL OR node.collection IN $collections
  RETURN node, 0 AS exact, score
}
WITH node, max(exact) AS exact, max(score) AS score
RETURN node.id AS id, node.collection AS collection, coalesce(node.name, node.id) AS name,
       node.type AS type, node.aliases AS aliases, exact = 1 AS exact, score,
       COUNT { (node)<-[:MENTIONS]-(:Chunk) } AS mentions,
       size(COLLECT { MATCH (node)<-[:MENTIONS]-(c:Chunk) RETURN DISTINCT c.document_id })
         AS documents
ORDER BY exact DESC, score DESC, id
LIMIT $limit;
