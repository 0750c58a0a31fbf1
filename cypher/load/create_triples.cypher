// Relations read from a chunk: (:Entity)-[:RELATES {predicate, text, chunk_id, document_id}]->
// (:Entity), each with the embedding of its text for the triple vector index.
// Parameters: $collection, $triples (list of {subject_id, object_id, predicate, text, chunk_id, document_id,
// embedding}). Returns: nothing.
UNWIND $triples AS row
MATCH (s:Entity {id: row.subject_id})
MATCH (o:Entity {id: row.object_id})
CREATE (s)-[r:RELATES {
  predicate: row.predicate, text: row.text, chunk_id: row.chunk_id, document_id: row.document_id,
  collection: $collection
}]->(o)
WITH r, row
CALL db.create.setRelationshipVectorProperty(r, 'embedding', row.embedding);
