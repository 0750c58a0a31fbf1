// Dense path: approximate nearest chunks from HNSW vector indexes (the graph-wide one, or those of
// the searched collections' shards: service/graph/shards.py), optionally post-filtered to
// collections and allowed documents (the caller over-fetches $k_index for that).
// Parameters: $vector (query embedding), $indexes (vector index names), $k_index (neighbours
// asked of each), $k (rows kept), $collections (names, or null for every one), $allowed
// (document keys, or null).
// Returns: one row, candidates: a list of {chunk_id, document_id, score (cosine)}, best first (one
// list rather than a row per candidate: the driver decodes it in a third of the CPU time).
UNWIND $indexes AS index
CALL (index) {
  CALL db.index.vector.queryNodes(index, $k_index, $vector)
  YIELD node, score
  RETURN node, score
}
WITH node, score
WHERE ($collections IS NULL OR node.collection IN $collections)
  AND ($allowed IS NULL OR node.document_id IN $allowed)
WITH node.id AS chunk_id, node.document_id AS document_id, 2 * score - 1 AS score
ORDER BY score DESC, chunk_id
LIMIT $k
RETURN collect({chunk_id: chunk_id, document_id: document_id, score: score}) AS candidates;
