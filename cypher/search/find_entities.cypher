// Entity lookup for GET /entities: the entity the text names exactly (by its id, or by an alias
// key stored at ingest) first, then full-text matches over names and aliases ($query escaped);
// with mention counts. Parameters: $exact_id (the text as an entity id), $query, $limit.
// Returns: id, name, type, aliases, exact, score, mentions, documents.
CALL () {
  MATCH (node:Entity {id: $exact_id})
  RETURN node, 1 AS exact, 0.0 AS score
  UNION ALL
  MATCH (:Alias {key: $exact_id})-[:ALIAS_OF]->(node:Entity)
  RETURN node, 1 AS exact, 0.0 AS score
  UNION ALL
  CALL db.index.fulltext.queryNodes('entity_name', $query, {limit: $limit})
  YIELD node, score
  RETURN node, 0 AS exact, score
}
WITH node, max(exact) AS exact, max(score) AS score
RETURN node.id AS id, coalesce(node.name, node.id) AS name, node.type AS type,
       node.aliases AS aliases, exact = 1 AS exact, score,
       COUNT { (node)<-[:MENTIONS]-(:Chunk) } AS mentions,
       size(COLLECT { MATCH (node)<-[:MENTIONS]-(c:Chunk) RETURN DISTINCT c.document_id })
         AS documents
ORDER BY exact DESC, score DESC, id
LIMIT $limit;
