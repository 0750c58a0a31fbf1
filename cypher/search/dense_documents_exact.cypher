// Document dense path under a narrow filter: exact cosine of the allowed documents' embeddings
// (never approximate; cheaper than the index below a few thousand vectors).
// Parameters: $vector (query embedding), $allowed (document ids), $k.
// Returns: chunk_id (the document's first chunk), document_id, score (cosine).
UNWIND $allowed AS id
MATCH (d:Document {id: id})-[:HAS_CHUNK]->(first:Chunk {ordinal: 0})
WITH d, first, 2 * vector.similarity.cosine(d.embedding, $vector) - 1 AS score
RETURN first.id AS chunk_id, d.id AS document_id, score
ORDER BY score DESC, document_id
LIMIT $k;
