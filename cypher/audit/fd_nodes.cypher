// What the FD* audits read of every chunk and document of a collection (service/audit): its
// length, fd_raw and length bin with that bin's running statistics, and its document's source
// type with the type's authority (1.0 unless a (:SourceAuthority) says otherwise). A node not
// binned yet (a collection never fitted) has a null bin and null statistics; nodes without
// n_tokens are left out.
// Parameters: $collection.
// Returns: level ('chunk' | 'document'), id (within the collection), source_type ('' when
// unset), n_tokens, fd_raw, length_bin, a_source, n, total, total_sq (the bin's); ordered by
// level and id.
CALL () {
  MATCH (d:Document)-[:HAS_CHUNK]->(c:Chunk)
  WHERE d.collection = $collection
  RETURN 'chunk' AS level, c AS node, d.source_type AS source_type
  UNION ALL
  MATCH (d:Document)
  WHERE d.collection = $collection
  RETURN 'document' AS level, d AS node, d.source_type AS source_type
}
WITH level, node, coalesce(source_type, '') AS source_type
WHERE node.n_tokens IS NOT NULL
// A node's length bin is not stored: it is the bin its n_tokens falls in under its level's
// bounds, which every (:FdStats) of the level holds (cypher/fd/count_documents.cypher).
OPTIONAL MATCH (sb:FdStats {collection: $collection, id: level + ':short'})
OPTIONAL MATCH (s:FdStats {collection: $collection, id: level + ':' + CASE
    WHEN node.n_tokens <= sb.lower THEN 'short'
    WHEN node.n_tokens <= sb.upper THEN 'medium' ELSE 'long' END})
OPTIONAL MATCH (a:SourceAuthority {source_type: source_type})
RETURN level, substring(node.id, size($collection) + 1) AS id, source_type,
       node.n_tokens AS n_tokens, coalesce(node.fd_raw, 0.0) AS fd_raw,
       s.bin AS length_bin, coalesce(a.a_source, 1.0) AS a_source, s.n AS n,
       s.total AS total, s.total_sq AS total_sq
ORDER BY level, id;
