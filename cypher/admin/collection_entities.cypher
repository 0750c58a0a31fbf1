// A page of a collection's entities with the names their embeddings are made from (ingestion
// embeds an entity's name: loaders/ingest.py), for re-embedding them (loaders/reembed.py).
// Parameters: $collection, $after (the last id of the page before; '' for the first), $limit.
// Returns: id, name; by id.
MATCH (e:Entity)
WHERE e.collection = $collection AND e.id > $after
RETURN e.id AS id, e.name AS name
ORDER BY id
LIMIT $limit;
