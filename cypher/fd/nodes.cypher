// Every chunk's and document's length and FD_raw: what the refit derives the FD* length bins and
// their statistics from (loaders/fd_stats.py).
// Parameters: none. Returns: chunks, documents (lists of [id, n_tokens, fd_raw]).
RETURN COLLECT { MATCH (c:Chunk) RETURN [c.id, c.n_tokens, coalesce(c.fd_raw, 0.0)] } AS chunks,
       COLLECT { MATCH (d:Document) WHERE d.n_tokens IS NOT NULL
                 RETURN [d.id, d.n_tokens, coalesce(d.fd_raw, 0.0)] } AS documents;
