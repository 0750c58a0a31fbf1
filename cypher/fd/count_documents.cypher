// Count documents and their chunks in the FD* length bins (service/factual_density.py), or take
// them out before they are replaced or deleted: each node with a length falls in the bin of its
// level that its n_tokens gives, short up to the level's lower bound, medium up to the upper,
// long above (the bounds are on every (:FdStats) of the level); $sign · its fd_raw goes into that
// bin's n, total and total_sq, counted in its changes. A bin left empty is zeroed (no rounding
// residue).
// The bin is not stored on the node: every reader derives it the same way from n_tokens and the
// bounds, and the bounds move only in a refit (loaders/fd_stats.py), which counts every node
// again. So a node is taken out of the bin it was counted in, and a refit writes only the
// (:FdStats). A level without statistics (a graph never fitted) counts nothing until the refit.
// Runs in the write's transaction: counting in after the chunks are created, taking out before
// the content is removed. The statistics are the collection's own.
// Parameters: $collection, $ids (document keys of that collection), $sign (1: count them in;
// -1: take them out). Returns: nothing.
UNWIND $ids AS id
MATCH (d:Document {id: id})
WITH collect(d) AS documents
CALL (documents) {
  UNWIND documents AS d
  MATCH (d)-[:HAS_CHUNK]->(c:Chunk)
  RETURN 'chunk' AS level, c AS node
  UNION
  UNWIND documents AS d
  RETURN 'document' AS level, d AS node
}
WITH level, node
WHERE node.n_tokens IS NOT NULL
MATCH (bounds:FdStats {collection: $collection, id: level + ':short'})
WITH level, node,
     CASE
       WHEN node.n_tokens <= bounds.lower THEN 'short'
       WHEN node.n_tokens <= bounds.upper THEN 'medium'
       ELSE 'long'
     END AS bin
WITH level, bin, count(*) AS n, sum(node.fd_raw) AS total,
     sum(node.fd_raw * node.fd_raw) AS total_sq
MATCH (s:FdStats {collection: $collection, id: level + ':' + bin})
WITH s, n, total, total_sq, s.n + $sign * n AS left
SET s.n = left,
    s.total = CASE WHEN left = 0 THEN 0.0 ELSE s.total + $sign * total END,
    s.total_sq = CASE WHEN left = 0 THEN 0.0 ELSE s.total_sq + $sign * total_sq END,
    s.changes = s.changes + n;
