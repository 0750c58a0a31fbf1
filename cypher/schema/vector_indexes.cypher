// HNSW vector indexes (cosine) over chunk, document, entity and triple embeddings.
// Parameters: $dimensions (int, read from the embedding model). Returns: nothing.
// Idempotent (IF NOT EXISTS); statements end with ';'.
CREATE VECTOR INDEX chunk_embedding IF NOT EXISTS FOR (c:Chunk) ON c.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX document_embedding IF NOT EXISTS FOR (d:Document) ON d.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX entity_embedding IF NOT EXISTS FOR (e:Entity) ON e.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX triple_embedding IF NOT EXISTS FOR ()-[r:RELATES]-() ON r.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine'}};
