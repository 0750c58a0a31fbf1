// Create or update Document nodes with their properties, their collection's shard label (a dynamic
// label: service/graph/shards.py) and embedding (stored as float32).
// Parameters: $documents (list of {id, properties: map, embedding: list<float>}),
// $document_labels (the shard's label, or none). Returns: nothing.
UNWIND $documents AS row
MERGE (d:Document {id: row.id})
SET d += row.properties, d:$($document_labels)
WITH d, row
CALL db.create.setNodeVectorProperty(d, 'embedding', row.embedding);
