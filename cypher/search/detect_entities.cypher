// Entities a query names, in the searched collections: exactly (its n-grams as entity keys of
// each collection, or as the alias keys stored at ingest: upsert_entities.cypher), by meaning
// (entity vector index) and through relations whose text is close to the query (triple vector
// index). The vector indexes hold every collection, so they are asked for $k_index neighbours
// and the best $k_semantic of the searched collections are kept.
// Parameters: $candidate_ids (entity keys from the query's n-grams), $vector (query
// embedding), $k_index (neighbours asked of each vector index), $k_semantic (kept of each),
// $min_semantic and $min_triple (cosine floors), $collections (names, or null for every one).
// Returns: id, collection, name, type, how ('exact' | 'semantic' | 'triple'), score (cosine,
// 1.0 for exact), keys (the candidate keys that named it exactly), one row per (entity, how).
CALL () {
  MATCH (e:Entity)
  WHERE e.id IN $candidate_ids
  RETURN e, 'exact' AS how, 1.0 AS score, e.id AS key
  UNION ALL
  MATCH (a:Alias)-[:ALIAS_OF]->(e:Entity)
  WHERE a.key IN $candidate_ids
  RETURN e, 'exact' AS how, 1.0 AS score, a.key AS key
  UNION ALL
  CALL db.index.vector.queryNodes('entity_embedding', $k_index, $vector)
  YIELD node, score
  WITH node, 2 * score - 1 AS cosine
  WHERE cosine >= $min_semantic AND ($collections IS NULL OR node.collection IN $collections)
  WITH node, cosine
  ORDER BY cosine DESC
  LIMIT $k_semantic
  RETURN node AS e, 'semantic' AS how, cosine AS score, null AS key
  UNION ALL
  CALL db.index.vector.queryRelationships('triple_embedding', $k_index, $vector)
  YIELD relationship, score
  WITH relationship, 2 * score - 1 AS cosine
  WHERE cosine >= $min_triple
    AND ($collections IS NULL OR relationship.collection IN $collections)
  WITH relationship, cosine
  ORDER BY cosine DESC
  LIMIT $k_semantic
  UNWIND [startNode(relationship), endNode(relationship)] AS e
  RETURN e, 'triple' AS how, cosine AS score, null AS key
}
RETURN e.id AS id, e.collection AS collection, e.name AS name, e.type AS type, how,
       max(score) AS score, collect(DISTINCT key) AS keys
ORDER BY score DESC, id;
