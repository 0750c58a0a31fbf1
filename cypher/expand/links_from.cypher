// One level of the hyperlink expansion (service/retrieval/expansion.py), for the whole answer:
// every link out of the given chunks that carries its anchor context's embedding, with the chunk
// it lands on (the linked chunk, which is the heading's chunk for a fragment link, or else the
// linked document's chunk most similar to the anchor context), the validation cosine between that
// chunk and the anchor context, and the FD* inputs of the chunk the link leaves (its anchor
// node): fd_raw and its length bin's statistics, its document's source type and authority.
// Parameters: $sources (chunk ids).
// Returns: source_id, href, anchor_text, landing_id, landing_document_id, landing_tokens,
// document_tokens (the linked document's whole length), validation (cosine, -1..1),
// source_fd (map as fd_inputs.cypher's chunk map: fd_raw, n_tokens, n_claims, bin, n, total,
// total_sq; with source_type and a_source), a_max.
CALL () {
  OPTIONAL MATCH (top:SourceAuthority)
  RETURN CASE WHEN max(top.a_source) > 1.0 THEN max(top.a_source) ELSE 1.0 END AS a_max
}
UNWIND $sources AS source_id
MATCH (sd:Document)-[:HAS_CHUNK]->(s:Chunk {id: source_id})-[l:LINKS_TO]->(target)
WHERE l.context_embedding IS NOT NULL AND (target:Chunk OR target:Document)
CALL (l, target) {
  WITH l, target
  WHERE target:Chunk
  RETURN target AS landing
  UNION
  WITH l, target
  MATCH (target:Document)-[:HAS_CHUNK]->(c:Chunk)
  WITH c, vector.similarity.cosine(c.embedding, l.context_embedding) AS similarity
  ORDER BY similarity DESC, c.id
  LIMIT 1
  RETURN c AS landing
}
MATCH (ld:Document)-[:HAS_CHUNK]->(landing)
OPTIONAL MATCH (bin:FdStats {id: 'chunk:' + s.length_bin})
OPTIONAL MATCH (authority:SourceAuthority {source_type: sd.source_type})
RETURN s.id AS source_id, l.href AS href, l.anchor_text AS anchor_text,
       landing.id AS landing_id, ld.id AS landing_document_id,
       landing.n_tokens AS landing_tokens, ld.n_tokens AS document_tokens,
       2 * vector.similarity.cosine(landing.embedding, l.context_embedding) - 1 AS validation,
       {fd_raw: coalesce(s.fd_raw, 0.0), n_tokens: s.n_tokens, n_claims: coalesce(s.n_claims, 0),
        bin: s.length_bin, n: bin.n, total: bin.total,
        total_sq: bin.total_sq, source_type: coalesce(sd.source_type, ''),
        a_source: coalesce(authority.a_source, 1.0)} AS source_fd,
       a_max
ORDER BY source_id, landing_id, href;
