// One vector index per shard of collections, over the chunks and over the documents of the
// collections in it (service/graph/shards.py says why a fixed pool, and which collection is in
// which shard). Cosine and not quantized, like the graph-wide ones (vector_indexes.cypher says
// why).
// Parameters: $dimensions (int, read from the embedding model). Returns: nothing.
// Idempotent (IF NOT EXISTS); statements end with ';'.
CREATE VECTOR INDEX chunk_embedding_00 IF NOT EXISTS FOR (c:ChunkShard00) ON c.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX chunk_embedding_01 IF NOT EXISTS FOR (c:ChunkShard01) ON c.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX chunk_embedding_02 IF NOT EXISTS FOR (c:ChunkShard02) ON c.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX chunk_embedding_03 IF NOT EXISTS FOR (c:ChunkShard03) ON c.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX chunk_embedding_04 IF NOT EXISTS FOR (c:ChunkShard04) ON c.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX chunk_embedding_05 IF NOT EXISTS FOR (c:ChunkShard05) ON c.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX chunk_embedding_06 IF NOT EXISTS FOR (c:ChunkShard06) ON c.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX chunk_embedding_07 IF NOT EXISTS FOR (c:ChunkShard07) ON c.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX chunk_embedding_08 IF NOT EXISTS FOR (c:ChunkShard08) ON c.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX chunk_embedding_09 IF NOT EXISTS FOR (c:ChunkShard09) ON c.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX chunk_embedding_10 IF NOT EXISTS FOR (c:ChunkShard10) ON c.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX chunk_embedding_11 IF NOT EXISTS FOR (c:ChunkShard11) ON c.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX chunk_embedding_12 IF NOT EXISTS FOR (c:ChunkShard12) ON c.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX chunk_embedding_13 IF NOT EXISTS FOR (c:ChunkShard13) ON c.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX chunk_embedding_14 IF NOT EXISTS FOR (c:ChunkShard14) ON c.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX chunk_embedding_15 IF NOT EXISTS FOR (c:ChunkShard15) ON c.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX document_embedding_00 IF NOT EXISTS FOR (d:DocumentShard00) ON d.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX document_embedding_01 IF NOT EXISTS FOR (d:DocumentShard01) ON d.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX document_embedding_02 IF NOT EXISTS FOR (d:DocumentShard02) ON d.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX document_embedding_03 IF NOT EXISTS FOR (d:DocumentShard03) ON d.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX document_embedding_04 IF NOT EXISTS FOR (d:DocumentShard04) ON d.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX document_embedding_05 IF NOT EXISTS FOR (d:DocumentShard05) ON d.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX document_embedding_06 IF NOT EXISTS FOR (d:DocumentShard06) ON d.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX document_embedding_07 IF NOT EXISTS FOR (d:DocumentShard07) ON d.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX document_embedding_08 IF NOT EXISTS FOR (d:DocumentShard08) ON d.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX document_embedding_09 IF NOT EXISTS FOR (d:DocumentShard09) ON d.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX document_embedding_10 IF NOT EXISTS FOR (d:DocumentShard10) ON d.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX document_embedding_11 IF NOT EXISTS FOR (d:DocumentShard11) ON d.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX document_embedding_12 IF NOT EXISTS FOR (d:DocumentShard12) ON d.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX document_embedding_13 IF NOT EXISTS FOR (d:DocumentShard13) ON d.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX document_embedding_14 IF NOT EXISTS FOR (d:DocumentShard14) ON d.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX document_embedding_15 IF NOT EXISTS FOR (d:DocumentShard15) ON d.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false}};
