// Every chunk's and document's length and FD_raw: what the refit derives the FD* length bins and
// their statistics from (loaders/fd_stats.py).
// Parameters: $collection. Returns: chunks, documents (lists of [id, n_tokens, fd_raw]) of that
// collection.
RETURN COLLECT { MATCH (c:Chunk) WHERE c.collection = $collection
                 RETURN [c.id, c.n_tokens, coalesce(c.fd_raw, 0.0)] } AS chunks,
       COLLECT { MATCH (d:Document) WHERE d.collection = $collection AND d.n_tokens IS NOT NULL
                 RETURN [d.id, d.n_tokens, coalesce(d.fd_raw, 0.0)] } AS documents;
