// Put documents and their chunks into the FD* length bins (service/factual_density.py): each node
// gets the bin its n_tokens falls in, short up to the level's lower bound, medium up to the upper,
// long above (the bounds are on every (:FdStats) of the level), and is added to that bin's n,
// total and total_sq of fd_raw, counted in its changes. A level without statistics (a graph never
// fitted) leaves length_bin unset until the refit (loaders/fd_stats.py) bins everything.
// Runs in the write's transaction, after the chunks are created; the nodes must be unbinned.
// The statistics are the collection's own: corpora differ in length and density.
// Parameters: $collection, $ids (document keys of that collection). Returns: nothing.
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
MATCH (bounds:FdStats {collection: $collection, id: level + ':short'})
WITH level, node,
     CASE
       WHEN node.n_tokens <= bounds.lower THEN 'short'
       WHEN node.n_tokens <= bounds.upper THEN 'medium'
       ELSE 'long'
     END AS bin
SET node.length_bin = bin
WITH level, bin, count(*) AS n, sum(node.fd_raw) AS total,
     sum(node.fd_raw * node.fd_raw) AS total_sq
MATCH (s:FdStats {collection: $collection, id: level + ':' + bin})
SET s.n = s.n + n, s.total = s.total + total, s.total_sq = s.total_sq + total_sq,
    s.changes = s.changes + n;
