// Create or update Document nodes with their properties and embedding (stored as float32).
// Parameters: $documents (list of {id, properties: map, embedding: list<float>}). Returns: nothing.
UNWIND $documents AS row
MERGE (d:Document {id: row.id})
SET d += row.properties
WITH d, row
CALL db.create.setNodeVectorProperty(d, 'embedding', row.embedding);
