// Every document's embedding, for offline work on a whole graph (the feedback replay of
// evaluation/tune.py).
// Parameters: none. Returns: id, embedding; ordered by id.
MATCH (d:Document)
RETURN d.id AS id, d.embedding AS embedding
ORDER BY id;
