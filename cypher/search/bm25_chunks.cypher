// BM25 path: Lucene's full-text index over chunk text. $query is already escaped
// (service/retrieval/lucene.py), so user text cannot inject Lucene syntax. $index: the index of
// the query's language (chunk_text, or chunk_text_portuguese, ...: service/text/language.py).
// Parameters: $index, $query, $k_index (hits asked of the index), $k (rows kept), $collections (names,
// or null for every one), $allowed (document keys, or null).
// Returns: one row, candidates: a list of {chunk_id, document_id, score (BM25, unbounded)}, best
// first (one list rather than a row per candidate: the driver decodes it in a third of the CPU
// time).
CALL db.index.fulltext.queryNodes($index, $query, {limit: $k_index})
YIELD node, score
WHERE ($collections IS NULL OR node.collection IN $collections)
  AND ($allowed IS NULL OR node.document_id IN $allowed)
WITH node.id AS chunk_id, node.document_id AS document_id, score
ORDER BY score DESC, chunk_id
LIMIT $k
RETURN collect({chunk_id: chunk_id, document_id: document_id, score: score}) AS candidates;
