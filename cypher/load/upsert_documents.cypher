// Create or update Document nodes with their properties, their collection's shard label
// (service/graph/shards.py), their language's label unless it is English (its full-text index
// analyses them: service/text/language.py), and embedding (stored as float32). A document written
// again first loses every language label, since its language may have changed; all are dynamic
// labels.
// Parameters: $documents (list of {id, properties: map, labels (its language's, or none),
// embedding: list<float>}), $document_labels (the shard's label, or none), $language_labels
// (every language label a document may carry). Returns: nothing.
UNWIND $documents AS row
MERGE (d:Document {id: row.id})
REMOVE d:$($language_labels)
SET d += row.properties, d:$($document_labels + row.labels)
WITH d, row
CALL db.create.setNodeVectorProperty(d, 'embedding', row.embedding);
