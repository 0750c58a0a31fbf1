// New embeddings of entities' names (loaders/reembed.py), stored as float32.
// Parameters: $entities (list of {id, embedding}). Returns: nothing.
UNWIND $entities AS row
MATCH (e:Entity {id: row.id})
CALL db.create.setNodeVectorProperty(e, 'embedding', row.embedding);
