// The chunks of the coverage pre-check's sample, with what the check compares: text (for
// keywords) and embedding (for the cosine, computed in memory against the sample alone).
// Parameters: $ids (chunk ids). Returns: id, text, embedding; ordered by id.
UNWIND $ids AS id
MATCH (c:Chunk {id: id})
RETURN c.id AS id, c.text AS text, c.embedding AS embedding
ORDER BY id;
