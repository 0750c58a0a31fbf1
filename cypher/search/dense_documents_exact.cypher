// Document dense path under a narrow filter: exact cosine of the allowed documents' embeddings
// (never approximate; cheaper than the index below a few thousand vectors).
// Parameters: $vector (query embedding), $allowed (document ids), $k.
// Returns: one row, candidates: a list of {chunk_id (the document's first chunk), document_id,
// score (cosine)}, best first (one list rather than a row per candidate: the driver decodes it in a
// third of the CPU time).
UNWIND $allowed AS id
MATCH (d:Document {id: id})-[:HAS_CHUNK]->(first:Chunk {ordinal: 0})
WITH d, first, 2 * vector.similarity.cosine(d.embedding, $vector) - 1 AS score
WITH first.id AS chunk_id, d.id AS document_id, score
ORDER BY score DESC, document_id
LIMIT $k
RETURN collect({chunk_id: chunk_id, document_id: document_id, score: score}) AS candidates;
