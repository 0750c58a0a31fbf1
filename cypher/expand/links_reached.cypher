// The hyperlink expansion's one read (service/retrieval/expansion.py): every link reached from the
// given chunks within $depth links, for the whole answer. Level 1 is the links out of $sources;
// each next level, the links out of the chunks the previous one landed on with a validation of at
// least $threshold (each chunk once, none of $sources). A link lands on the chunk it names (the
// heading's chunk for a fragment link) or, when it names a whole document, on that document's
// chunk most similar to the anchor context (ties: the smaller id). Each row also carries the FD*
// inputs of the chunk the link leaves (its anchor node).
// Why one statement: the levels are computed inside it (reduce over range(1, $depth), each level a
// pattern comprehension over the previous one's landings), so the expansion costs one round trip
// whatever its depth; two reads (one per level) took 1.6 ms p50 against 1.2 ms for this one on
// HotpotQA dev500. Rows may include links the registry will not use (a chunk two hits reach);
// service/retrieval/expansion.py decides which count.
// Parameters: $sources (chunk ids), $depth (1..3), $threshold (validation, -1..1).
// Returns: source_id, href, anchor_text, landing_id, landing_document_id, landing_tokens,
// document_tokens (the linked document's whole length), validation (cosine rescaled to -1..1:
// 2·cos − 1), source_fd (map as fd_inputs.cypher's chunk map: fd_raw, n_tokens, n_claims, bin, n,
// total, total_sq; with source_type and a_source), a_max.
CALL () {
  OPTIONAL MATCH (top:SourceAuthority)
  RETURN CASE WHEN max(top.a_source) > 1.0 THEN max(top.a_source) ELSE 1.0 END AS a_max
}
WITH a_max, reduce(levels = [], depth IN range(1, $depth) |
  levels + [reduce(edges = [], source_id IN
    CASE
      WHEN depth = 1 THEN $sources
      ELSE reduce(ids = [], e IN last(levels) |
        CASE
          WHEN 2 * vector.similarity.cosine(e.landing.embedding, e.link.context_embedding) - 1
                 < $threshold
            OR e.landing.id IN ids OR e.landing.id IN $sources THEN ids
          ELSE ids + e.landing.id
        END)
    END |
    edges + [(s:Chunk {id: source_id})-[l:LINKS_TO]->(target)
      WHERE l.context_embedding IS NOT NULL AND (target:Chunk OR target:Document) |
      {source: s, link: l, landing: CASE
        WHEN target:Chunk THEN target
        ELSE reduce(best = null, c IN [(target)-[:HAS_CHUNK]->(c:Chunk) | c] |
          CASE
            WHEN best IS NULL THEN c
            WHEN vector.similarity.cosine(c.embedding, l.context_embedding)
                 > vector.similarity.cosine(best.embedding, l.context_embedding) THEN c
            WHEN vector.similarity.cosine(c.embedding, l.context_embedding)
                 = vector.similarity.cosine(best.embedding, l.context_embedding)
                 AND c.id < best.id THEN c
            ELSE best
          END)
      END}])]
) AS levels
UNWIND levels AS level
UNWIND level AS edge
WITH a_max, edge.source AS s, edge.link AS l, edge.landing AS landing
WHERE landing IS NOT NULL
MATCH (sd:Document {id: s.document_id})
MATCH (ld:Document {id: landing.document_id})
OPTIONAL MATCH (bin:FdStats {collection: s.collection, id: 'chunk:' + s.length_bin})
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
