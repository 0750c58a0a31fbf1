// Coverage pre-check, full corpus (service/audit/coverage.py): the $k nearest chunks of a
// collection to each claim by the chunk vector index (approximate, HNSW; the index's score
// (1 + cos) / 2 is turned back into the cosine), with the chunk's text only where the cosine
// reaches $min_cosine, since only those chunks can cover the claim and need their keywords
// compared. The index holds every collection: it is asked for $k_index neighbours, and the
// nearest $k of the collection are kept.
// Parameters: $vectors (list of claim embeddings), $k (neighbours per claim), $k_index,
// $min_cosine, $collection.
// Returns: claim (position in $vectors), chunk_id (key), cosine, text (null below $min_cosine);
// ordered by claim, most similar first.
UNWIND range(0, size($vectors) - 1) AS claim
CALL (claim) {
  CALL db.index.vector.queryNodes('chunk_embedding', $k_index, $vectors[claim])
  YIELD node, score
  WITH node, 2 * score - 1 AS cosine
  WHERE node.collection = $collection
  WITH node, cosine
  ORDER BY cosine DESC, node.id
  LIMIT $k
  RETURN node, cosine
}
RETURN claim, node.id AS chunk_id, cosine,
       CASE WHEN cosine >= $min_cosine THEN node.text END AS text
ORDER BY claim, cosine DESC, chunk_id;
