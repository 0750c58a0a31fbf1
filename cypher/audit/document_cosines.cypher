// Expert-blindness audit (service/audit/blindness.py): each document's cosine to the query, as a
// dense document-level search ranks it (MaxP: its best chunk's cosine), so that hits of every
// condition, BM25's too, show the same cosine. vector.similarity.cosine gives (1 + cos) / 2, as
// the vector index does; it is turned back into the cosine.
// Parameters: $vector (query embedding), $document_ids (keys).
// Returns: document_id, cosine.
UNWIND $document_ids AS id
MATCH (:Document {id: id})-[:HAS_CHUNK]->(c:Chunk)
RETURN id AS document_id, max(2 * vector.similarity.cosine(c.embedding, $vector) - 1) AS cosine;
