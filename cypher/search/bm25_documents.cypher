// Document BM25 path: Lucene's full-text index over each document's whole text, so a word is
// counted once however the chunks overlap, and the length normalisation is the document's.
// $query is already escaped (service/retrieval/lucene.py). A document is represented by its
// first chunk until fusion picks a better one. $index: the index of the query's language
// (document_text, or document_text_portuguese, ...: service/text/language.py).
// Parameters: $index, $query, $k_index (hits asked of the index), $k (rows kept), $collections (names,
// or null for every one), $allowed (document keys, or null).
// Returns: one row, candidates: a list of {chunk_id (the document's first chunk), document_id,
// score (BM25, unbounded)}, best first (one list rather than a row per candidate: the driver
// decodes it in a third of the CPU time).
CALL db.index.fulltext.queryNodes($index, $query, {limit: $k_index})
YIELD node, score
WHERE ($collections IS NULL OR node.collection IN $collections)
  AND ($allowed IS NULL OR node.id IN $allowed)
MATCH (node)-[:HAS_CHUNK]->(first:Chunk {ordinal: 0})
WITH first.id AS chunk_id, node.id AS document_id, score
ORDER BY score DESC, document_id
LIMIT $k
RETURN collect({chunk_id: chunk_id, document_id: document_id, score: score}) AS candidates;
