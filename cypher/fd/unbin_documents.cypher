// Take documents out of the FD* length-bin statistics before they are replaced or deleted: each
// document and chunk of theirs that has a length_bin is subtracted from its bin's (:FdStats)
// (n, total and total_sq of fd_raw), counted in the bin's changes, and loses its length_bin, so
// that a node has a length_bin exactly when its bin counts it. A bin left empty is zeroed (no
// rounding residue). Runs in the write's transaction, before the content is removed.
// Parameters: $collection, $ids (document keys of that collection). Returns: nothing.
UNWIND $ids AS id
MATCH (d:Document {id: id})
WITH collect(d) AS documents
CALL (documents) {
  UNWIND documents AS d
  MATCH (d)-[:HAS_CHUNK]->(c:Chunk)
  WHERE c.length_bin IS NOT NULL
  RETURN 'chunk' AS level, c AS node
  UNION
  UNWIND documents AS d
  WITH d
  WHERE d.length_bin IS NOT NULL
  RETURN 'document' AS level, d AS node
}
WITH level, node.length_bin AS bin, collect(node) AS nodes, count(*) AS n,
     sum(node.fd_raw) AS total, sum(node.fd_raw * node.fd_raw) AS total_sq
MATCH (s:FdStats {collection: $collection, id: level + ':' + bin})
WITH s, nodes, n, total, total_sq, s.n - n AS left
SET s.n = left,
    s.total = CASE WHEN left = 0 THEN 0.0 ELSE s.total - total END,
    s.total_sq = CASE WHEN left = 0 THEN 0.0 ELSE s.total_sq - total_sq END,
    s.changes = s.changes + n
FOREACH (node IN nodes | REMOVE node.length_bin);
