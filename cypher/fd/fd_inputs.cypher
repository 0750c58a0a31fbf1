// What FD* of chunks and of their documents is computed from (service/factual_density.py): each
// node's fd_raw and length bin with that bin's statistics, and the document's source type with its
// authority (1.0 unless a (:SourceAuthority) says otherwise). A node not yet binned has null bin
// statistics (its FD* is unknown). The bins are those of the node's own collection. a_max is the
// largest authority (at least 1.0), which FD*_rescaled divides by.
// Parameters: $chunk_ids.
// Returns: chunk_id, document_id, source_type, a_source, a_max, chunk (map: fd_raw, n_tokens,
// n_claims, bin, n, total, total_sq) and document (the same map for the document).
CALL () {
  OPTIONAL MATCH (top:SourceAuthority)
  RETURN CASE WHEN max(top.a_source) > 1.0 THEN max(top.a_source) ELSE 1.0 END AS a_max
}
UNWIND $chunk_ids AS id
MATCH (d:Document)-[:HAS_CHUNK]->(c:Chunk {id: id})
// A node's length bin is not stored: it is the bin its n_tokens falls in under its level's
// bounds, which every (:FdStats) of the level holds (cypher/fd/count_documents.cypher).
OPTIONAL MATCH (csb:FdStats {collection: c.collection, id: 'chunk:short'})
OPTIONAL MATCH (cs:FdStats {collection: c.collection, id: 'chunk:' + CASE
    WHEN c.n_tokens <= csb.lower THEN 'short'
    WHEN c.n_tokens <= csb.upper THEN 'medium' ELSE 'long' END})
  WHERE c.n_tokens IS NOT NULL
OPTIONAL MATCH (dsb:FdStats {collection: d.collection, id: 'document:short'})
OPTIONAL MATCH (ds:FdStats {collection: d.collection, id: 'document:' + CASE
    WHEN d.n_tokens <= dsb.lower THEN 'short'
    WHEN d.n_tokens <= dsb.upper THEN 'medium' ELSE 'long' END})
  WHERE d.n_tokens IS NOT NULL
OPTIONAL MATCH (a:SourceAuthority {source_type: d.source_type})
RETURN c.id AS chunk_id, d.id AS document_id, coalesce(d.source_type, '') AS source_type,
       coalesce(a.a_source, 1.0) AS a_source, a_max,
       {fd_raw: coalesce(c.fd_raw, 0.0), n_tokens: c.n_tokens, n_claims: coalesce(c.n_claims, 0),
        bin: cs.bin, n: cs.n, total: cs.total, total_sq: cs.total_sq} AS chunk,
       {fd_raw: coalesce(d.fd_raw, 0.0), n_tokens: d.n_tokens, n_claims: coalesce(d.n_claims, 0),
        bin: ds.bin, n: ds.n, total: ds.total, total_sq: ds.total_sq} AS document;
