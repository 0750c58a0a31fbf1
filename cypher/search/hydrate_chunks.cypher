// Text and document title of the chunks a search returns.
// Parameters: $chunk_ids. Returns: chunk_id, document_id, title, text, n_tokens.
UNWIND $chunk_ids AS id
MATCH (d:Document)-[:HAS_CHUNK]->(c:Chunk {id: id})
RETURN c.id AS chunk_id, d.id AS document_id, coalesce(d.title, '') AS title, c.text AS text,
       c.n_tokens AS n_tokens;
