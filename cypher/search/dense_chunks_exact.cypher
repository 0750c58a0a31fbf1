// Dense path under a narrow filter: exact cosine over the chunks of the allowed documents
// (a Neo4j engineer: for up to ~10k vectors exact search is usually faster than the index,
// and it is never approximate; neo4j/neo4j#13684).
// Parameters: $vector (query embedding), $allowed (document ids), $k.
// Returns: one row, candidates: a list of {chunk_id, document_id, score (cosine)}, best first (one
// list rather than a row per candidate: the driver decodes it in a third of the CPU time).
UNWIND $allowed AS id
MATCH (:Document {id: id})-[:HAS_CHUNK]->(c:Chunk)
WITH c, 2 * vector.similarity.cosine(c.embedding, $vector) - 1 AS score
WITH c.id AS chunk_id, c.document_id AS document_id, score
ORDER BY score DESC, chunk_id
LIMIT $k
RETURN collect({chunk_id: chunk_id, document_id: document_id, score: score}) AS candidates;
