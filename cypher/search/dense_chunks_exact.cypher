// Dense path under a narrow filter: exact cosine over the chunks of the allowed documents
// (a Neo4j engineer: for up to ~10k vectors exact search is usually faster than the index,
// and it is never approximate; neo4j/neo4j#13684).
// Parameters: $vector (query embedding), $allowed (document ids), $k.
// Returns: chunk_id, document_id, score (cosine).
UNWIND $allowed AS id
MATCH (:Document {id: id})-[:HAS_CHUNK]->(c:Chunk)
WITH c, 2 * vector.similarity.cosine(c.embedding, $vector) - 1 AS score
RETURN c.id AS chunk_id, c.document_id AS document_id, score
ORDER BY score DESC, chunk_id
LIMIT $k;
