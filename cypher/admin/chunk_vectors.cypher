// Every chunk's embedding, for offline work on a whole graph (the feedback replay of
// evaluation/tune.py).
// Parameters: none. Returns: id, document_id, embedding; ordered by id.
MATCH (c:Chunk)
RETURN c.id AS id, c.document_id AS document_id, c.embedding AS embedding
ORDER BY id;
