// Metadata path: exact identifiers (codes, serials, acronyms) the query names, tags the query
// names, and the other documents of the folders where identified documents live (clustering).
// Chunks of identified documents score the share of query identifiers they mention; a tagged
// or same-folder document is represented by its first chunk at 0.5 and 0.25. Only identifiers
// mentioned in at most $max_cluster_mentions chunks cluster: one in more has no single
// neighbourhood, and the folders of its thousands of chunks would bring in most of the corpus.
// Likewise only folders of at most $max_folder_entries entries (documents and subfolders: the
// count is the folder's degree, read without a walk) cluster, and only tags on at most
// $max_tagged_documents documents lift them: a larger folder or tag ties its documents at one
// score, so the path would keep those of the smallest ids (noise in the fusion), and at a
// million generated chunks, with ~900 documents a folder and ~3,300 a tag, walking them is
// the path's p95 (docs/benchmarks.md, "Budgets of the paths").
// Identifiers are entity keys of the searched collections already; tags are matched within
// them.
// Parameters: $identifier_ids (entity keys), $terms (query terms, matched to tag names),
// $max_cluster_mentions, $max_folder_entries, $max_tagged_documents, $k, $collections (names,
// or null for every one), $allowed (document keys, or null).
// Returns: one row, candidates: a list of {chunk_id, document_id, score}, best first (one list
// rather than a row per candidate: the driver decodes it in a third of the CPU time).
CALL () {
  UNWIND $identifier_ids AS id
  MATCH (:Entity {id: id})<-[:MENTIONS]-(c:Chunk)
  WITH c, count(DISTINCT id) AS matched
  RETURN c, toFloat(matched) / size($identifier_ids) AS score
  UNION ALL
  MATCH (t:Tag)
  WHERE t.name IN $terms AND ($collections IS NULL OR t.collection IN $collections)
    AND COUNT { (t)<-[:TAGGED]-() } <= $max_tagged_documents
  MATCH (t)<-[:TAGGED]-(:Document)-[:HAS_CHUNK]->(c:Chunk {ordinal: 0})
  RETURN c, 0.5 AS score
  UNION ALL
  UNWIND $identifier_ids AS id
  MATCH (e:Entity {id: id})
  WHERE COUNT { (e)<-[:MENTIONS]-() } <= $max_cluster_mentions
  MATCH (e)<-[:MENTIONS]-(:Chunk)<-[:HAS_CHUNK]-(:Document)<-[:CONTAINS]-(f:Folder)
  WITH DISTINCT f
  WHERE COUNT { (f)-[:CONTAINS]->() } <= $max_folder_entries
  MATCH (f)-[:CONTAINS]->(:Document)-[:HAS_CHUNK]->(c:Chunk {ordinal: 0})
  RETURN c, 0.25 AS score
}
WITH c, sum(score) AS score
WHERE $allowed IS NULL OR c.document_id IN $allowed
WITH c.id AS chunk_id, c.document_id AS document_id, score
ORDER BY score DESC, chunk_id
LIMIT $k
RETURN collect({chunk_id: chunk_id, document_id: document_id, score: score}) AS candidates;
