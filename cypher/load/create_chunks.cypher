// Create a document's chunks, linked from the document and to each other in reading order, with
// their index terms, (:Chunk)-[:HAS_TERM {tf}]->(:Term), the inverted index of the TF-IDF path.
// The caller has removed the previous chunks (delete_document_content.cypher).
// Parameters: $chunks (list of {id, document_id, ordinal, text, start, end, n_tokens,
// heading_slugs, identifiers, terms: [{text, tf}], previous_id (null for the first),
// embedding}). Returns: nothing.
UNWIND $chunks AS row
MATCH (d:Document {id: row.document_id})
CREATE (d)-[:HAS_CHUNK]->(c:Chunk {
  id: row.id, document_id: row.document_id, ordinal: row.ordinal, text: row.text,
  start: row.start, end: row.end, n_tokens: row.n_tokens,
  heading_slugs: row.heading_slugs, identifiers: row.identifiers
})
WITH c, row
CALL db.create.setNodeVectorProperty(c, 'embedding', row.embedding)
WITH c, row
CALL (c, row) {
  UNWIND row.terms AS term
  MERGE (t:Term {text: term.text})
  CREATE (c)-[:HAS_TERM {tf: term.tf}]->(t)
}
WITH c, row
WHERE row.previous_id IS NOT NULL
MATCH (previous:Chunk {id: row.previous_id})
CREATE (previous)-[:NEXT]->(c);
