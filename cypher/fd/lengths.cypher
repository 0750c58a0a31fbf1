// Every chunk's and document's length and FD_raw, one row each, streamed: what the refit derives
// the FD* length bins and their statistics from (loaders/fd_stats.py). Rows, not one collected
// list, so that a million chunks are never held in the transaction's memory at once.
// Parameters: $collection. Returns: level ('chunk' | 'document'), n_tokens, fd_raw (rows of that
// collection).
MATCH (c:Chunk) WHERE c.collection = $collection AND c.n_tokens IS NOT NULL
RETURN 'chunk' AS level, c.n_tokens AS n_tokens, coalesce(c.fd_raw, 0.0) AS fd_raw
UNION ALL
MATCH (d:Document) WHERE d.collection = $collection AND d.n_tokens IS NOT NULL
RETURN 'document' AS level, d.n_tokens AS n_tokens, coalesce(d.fd_raw, 0.0) AS fd_raw;
