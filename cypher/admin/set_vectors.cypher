// New vectors for a batch of documents, their chunks, triples and links (loaders/reembed.py),
// stored as float32 like ingestion stores them; the caller reads the elementIds in the same
// transaction (reembed_texts.cypher).
// Parameters: $documents, $chunks (lists of {id (key), embedding}), $triples, $links (lists of
// {id (elementId), embedding}). Returns: nothing.
CALL () {
  UNWIND $documents AS row
  MATCH (d:Document {id: row.id})
  CALL db.create.setNodeVectorProperty(d, 'embedding', row.embedding)
}
CALL () {
  UNWIND $chunks AS row
  MATCH (c:Chunk {id: row.id})
  CALL db.create.setNodeVectorProperty(c, 'embedding', row.embedding)
}
CALL () {
  UNWIND $triples AS row
  MATCH ()-[r:RELATES]->()
  WHERE elementId(r) = row.id
  CALL db.create.setRelationshipVectorProperty(r, 'embedding', row.embedding)
}
CALL () {
  UNWIND $links AS row
  MATCH ()-[l:LINKS_TO]->()
  WHERE elementId(l) = row.id
  CALL db.create.setRelationshipVectorProperty(l, 'context_embedding', row.embedding)
};
