// Create a document's chunks, linked from the document and to each other in reading order, with
// their index terms, (:Chunk)-[:HAS_TERM {tf}]->(:Term), the inverted index of the TF-IDF path.
// Each distinct term of the batch is MERGEd once, then referred to by its position. tf is stored
// only above 1 (absent means 1): four postings in five are single, and a relationship without
// properties is cheaper to write and to read.
// Index terms are per collection, so each collection's document frequencies are its own.
// The caller has removed the previous chunks (delete_document_content.cypher).
// n_claims and fd_raw (Σ prob_fact / n_tokens) come from the chunk's claims, computed by the
// caller; the claims themselves follow (create_claims.cypher). Each chunk carries its collection's
// shard label (service/graph/shards.py) and, unless it is in English, its language's label, whose
// full-text index analyses it (service/text/language.py); both are dynamic labels.
// Parameters: $collection, $chunk_labels (the shard's label, or none), $terms (the batch's
// distinct index terms), $chunks (list of {id, document_id, ordinal, text, start, end, n_tokens,
// n_claims, fd_raw, heading_slugs, identifiers, pages (the page numbers it covers, [] without
// pages), ocr_confidence (null unless OCR read them), labels (its language's, or none),
// single_terms: [position in $terms], repeated_terms: [[position in $terms, tf]], previous_id
// (null for the first), embedding}). Returns: nothing.
CALL () {
  UNWIND $terms AS text
  MERGE (t:Term {collection: $collection, text: text})
  RETURN collect(t) AS term_nodes
}
UNWIND $chunks AS row
MATCH (d:Document {id: row.document_id})
CREATE (d)-[:HAS_CHUNK]->(c:Chunk {
  id: row.id, collection: $collection, document_id: row.document_id, ordinal: row.ordinal,
  text: row.text,
  start: row.start, end: row.end, n_tokens: row.n_tokens, n_claims: row.n_claims,
  fd_raw: row.fd_raw,
  heading_slugs: row.heading_slugs, identifiers: row.identifiers, pages: row.pages,
  ocr_confidence: row.ocr_confidence
})
SET c:$($chunk_labels + row.labels)
WITH term_nodes, c, row
CALL db.create.setNodeVectorProperty(c, 'embedding', row.embedding)
WITH term_nodes, c, row
CALL (c, row, term_nodes) {
  UNWIND row.single_terms AS position
  WITH c, term_nodes[position] AS t
  CREATE (c)-[:HAS_TERM]->(t)
}
CALL (c, row, term_nodes) {
  UNWIND row.repeated_terms AS posting
  WITH c, term_nodes[posting[0]] AS t, posting[1] AS tf
  CREATE (c)-[:HAS_TERM {tf: tf}]->(t)
}
WITH c, row
WHERE row.previous_id IS NOT NULL
MATCH (previous:Chunk {id: row.previous_id})
CREATE (previous)-[:NEXT]->(c);
