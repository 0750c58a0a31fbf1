// Text and document title of the chunks a search returns, and the collection they belong to.
// Parameters: $chunk_ids (keys). Returns: chunk_id, document_id (keys), collection, title, text,
// n_tokens, pages (the page numbers the chunk covers, [] without pages), ocr_confidence (null
// unless OCR read its text).
UNWIND $chunk_ids AS id
MATCH (d:Document)-[:HAS_CHUNK]->(c:Chunk {id: id})
RETURN c.id AS chunk_id, d.id AS document_id, d.collection AS collection,
       coalesce(d.title, '') AS title, c.text AS text, c.n_tokens AS n_tokens,
       coalesce(c.pages, []) AS pages, c.ocr_confidence AS ocr_confidence;
