// HNSW vector indexes (cosine) over chunk, document, entity and triple embeddings.
// Not quantized: a query's scores are then the exact cosines of the neighbours found. Neo4j's
// default quantizes each Lucene segment's vectors to bytes, with quantiles of that segment, and
// scores by the bytes, a ten-thousandth or so off: on the relevance pins' SciFact slice 25 of 40
// top tens were ordered otherwise than by the exact cosine, so near ties decided the figure
// (0.8887 alone, 0.89524 in some whole-suite runs); not quantized, every top ten is the exact
// one (docs/benchmarks.md, "Server settings"). The full vectors are stored either way; a search
// reads 4 bytes a dimension instead of 1, and on this two-core machine ran no slower.
// Parameters: $dimensions (int, read from the embedding model). Returns: nothing.
// Idempotent (IF NOT EXISTS); statements end with ';'.
CREATE VECTOR INDEX chunk_embedding IF NOT EXISTS FOR (c:Chunk) ON c.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX document_embedding IF NOT EXISTS FOR (d:Document) ON d.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX entity_embedding IF NOT EXISTS FOR (e:Entity) ON e.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX triple_embedding IF NOT EXISTS FOR ()-[r:RELATES]-() ON r.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false}};
