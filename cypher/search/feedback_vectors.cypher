// The embeddings of documents a first ranking put on top: pseudo-relevance feedback moves the
// query vector towards them (service/retrieval/feedback.py).
// Parameters: $document_ids. Returns: document_id, embedding (documents without one are left out).
UNWIND $document_ids AS id
MATCH (d:Document {id: id})
WHERE d.embedding IS NOT NULL
RETURN d.id AS document_id, d.embedding AS embedding;
