// Text and document title of the chunks a search returns, the collection they belong to, and
// what their FD* is computed from (as cypher/fd/fd_inputs.cypher reads it), so a search
// shows every hit's FD* without a read of its own.
// Parameters: $chunk_ids (keys). Returns: one row, chunks: a list with an entry per chunk found,
// in the order of $chunk_ids (one list rather than a row per chunk: the driver's work per row
// is most of the statement's client time for the ten hits of a search, 0.80–0.86 against
// 0.65–0.73 ms p50 replayed with MuSiQue dev's 162 answers): chunk_id, document_id (keys),
// collection, title, text, n_tokens, start and end (the chunk's span in its document's
// normalised text; null for a chunk written without one), pages (the page numbers the chunk
// covers, [] without pages), ocr_confidence (null unless OCR read its text), source_type, a_source, a_max, chunk
// and document (maps: fd_raw, n_tokens, n_claims, bin, n, total, total_sq; null bin statistics
// when not yet binned).
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
RETURN collect({
  chunk_id: c.id, document_id: d.id, collection: d.collection,
  title: coalesce(d.title, ''), text: c.text, n_tokens: c.n_tokens, start: c.start, end: c.end,
  pages: coalesce(c.pages, []), ocr_confidence: c.ocr_confidence,
  source_type: coalesce(d.source_type, ''), a_source: coalesce(a.a_source, 1.0), a_max: a_max,
  chunk: {fd_raw: coalesce(c.fd_raw, 0.0), n_tokens: c.n_tokens, n_claims: coalesce(c.n_claims, 0),
          bin: cs.bin, n: cs.n, total: cs.total, total_sq: cs.total_sq},
  document: {fd_raw: coalesce(d.fd_raw, 0.0), n_tokens: d.n_tokens,
             n_claims: coalesce(d.n_claims, 0),
             bin: ds.bin, n: ds.n, total: ds.total, total_sq: ds.total_sq}
}) AS chunks;
