// The atomic claims each chunk asserts (loaders/claims.py), (:Chunk)-[:ASSERTS]->(:Claim), the
// claims behind FD*. A claim belongs to one chunk (its id is f"{chunk_id}#c{k}"), so it goes with
// the chunk (delete_document_content.cypher); the chunk's own n_claims and fd_raw, computed from
// the same claims, are written by create_chunks.cypher.
// Parameters: $collection, $claims (list of {id, chunk_id, text, prob_fact, start, end}; start and end are
// offsets in the chunk text, -1 when unknown). Returns: nothing.
UNWIND $claims AS row
MATCH (c:Chunk {id: row.chunk_id})
CREATE (c)-[:ASSERTS]->(:Claim {
  id: row.id, collection: $collection, text: row.text, prob_fact: row.prob_fact, start: row.start, end: row.end
});
