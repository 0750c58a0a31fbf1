// Metadata path: exact identifiers (codes, serials, acronyms) the query names, tags the query
// names, and the other documents of the folders where identified documents live (clustering).
// Chunks of identified documents score the share of query identifiers they mention; a tagged
// or same-folder document is represented by its first chunk at 0.5 and 0.25. Only identifiers
// mentioned in at most $max_cluster_mentions chunks cluster: one in more has no single
// neighbourhood, and the folders of its thousands of chunks would bring in most of the corpus.
// Identifiers are entity keys of the searched collections already; tags are matched within
// them.
// Parameters: $identifier_ids (entity keys), $terms (query terms, matched to tag names),
// $max_cluster_mentions, $k, $collections (names, or null for every one), $allowed (document
// keys, or null).
// Returns: one row, candidates: a list of {chunk_id, document_id, score}, best first (one list
// rather than a row per candidate: the driver decodes it in a third of the CPU time).
CALL () {
  UNWIND $identifier_ids AS id
  MATCH (:Entity {id: id})<-[:MENTIONS]-(c:Chunk)
  WITH c, count(DISTINCT id) AS matched
  RETURN c, toFloat(matched) / size($identifier_ids) AS score
  UNION ALL
  MATCH (t:Tag)<-[:TAGGED]-(:Document)-[:HAS_CHUNK]->(c:Chunk {ordinal: 0})
  WHERE t.name IN $terms AND ($collections IS NULL OR t.collection IN $collections)
  RETURN c, 0.5 AS score
  UNION ALL
  UNWIND $identifier_ids AS id
  MATCH (e:Entity {id: id})
  WHERE COUNT { (e)<-[:MENTIONS]-() } <= $max_cluster_mentions
  MATCH (e)<-[:MENTIONS]-(:Chunk)<-[:HAS_CHUNK]-(:Document)<-[:CONTAINS]-(f:Folder)
  WITH DISTINCT f
  MATCH (f)-[:CONTAINS]->(:Document)-[:HAS_CHUNK]->(c:Chunk {ordinal: 0})
  RETURN c, 0.25 AS score
}
WITH c, sum(score) AS score
WHERE $allowed IS NULL OR c.document_id IN $allowed
WITH c.id AS chunk_id, c.document_id AS document_id, score
ORDER BY score DESC, chunk_id
LIMIT $k
RETURN collect({chunk_id: chunk_id, document_id: document_id, score: score}) AS candidates;
