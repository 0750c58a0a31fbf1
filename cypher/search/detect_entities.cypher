// Entities a query names: exactly (its n-grams resolved to entity ids, or the keys of aliases
// stored at ingest: upsert_entities.cypher), by meaning (entity vector
// index) and through relations whose text is close to the query (triple vector index).
// Parameters: $candidate_ids (entity ids from the query's n-grams), $vector (query embedding),
// $k_semantic (neighbours asked of each vector index), $min_semantic and $min_triple (cosine
// floors). Returns: id, name, type, how ('exact' | 'semantic' | 'triple'), score (cosine, 1.0
// for exact), keys (the candidate ids that named it exactly), one row per (entity, how).
CALL () {
  MATCH (e:Entity)
  WHERE e.id IN $candidate_ids
  RETURN e, 'exact' AS how, 1.0 AS score, e.id AS key
  UNION ALL
  MATCH (a:Alias)-[:ALIAS_OF]->(e:Entity)
  WHERE a.key IN $candidate_ids
  RETURN e, 'exact' AS how, 1.0 AS score, a.key AS key
  UNION ALL
  CALL db.index.vector.queryNodes('entity_embedding', $k_semantic, $vector)
  YIELD node, score
  WITH node, 2 * score - 1 AS cosine
  WHERE cosine >= $min_semantic
  RETURN node AS e, 'semantic' AS how, cosine AS score, null AS key
  UNION ALL
  CALL db.index.vector.queryRelationships('triple_embedding', $k_semantic, $vector)
  YIELD relationship, score
  WITH relationship, 2 * score - 1 AS cosine
  WHERE cosine >= $min_triple
  UNWIND [startNode(relationship), endNode(relationship)] AS e
  RETURN e, 'triple' AS how, cosine AS score, null AS key
}
RETURN e.id AS id, e.name AS name, e.type AS type, how, max(score) AS score,
       collect(DISTINCT key) AS keys
ORDER BY score DESC, id;
