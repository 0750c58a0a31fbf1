// Document BM25 path: Lucene's full-text index over each document's whole text, so a word is
// counted once however the chunks overlap, and the length normalisation is the document's.
// $query is already escaped (service/retrieval/lucene.py). A document is represented by its
// first chunk until fusion picks a better one.
// Parameters: $query, $k_index (hits asked of the index), $k (rows kept), $allowed (document
// ids, or null). Returns: chunk_id, document_id, score (BM25, unbounded).
CALL db.index.fulltext.queryNodes('document_text', $query, {limit: $k_index})
YIELD node, score
WHERE $allowed IS NULL OR node.id IN $allowed
MATCH (node)-[:HAS_CHUNK]->(first:Chunk {ordinal: 0})
RETURN first.id AS chunk_id, node.id AS document_id, score
ORDER BY score DESC, document_id
LIMIT $k;
