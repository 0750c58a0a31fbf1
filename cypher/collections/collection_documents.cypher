// Every document of a collection with its content hash and origin: what a sync compares a
// folder with (loaders/sync.py).
// Parameters: $collection. Returns: id (within the collection), content_hash, uri ('' when
// none); one row per document, by id.
MATCH (d:Document)
WHERE d.collection = $collection
RETURN substring(d.id, size($collection) + 1) AS id, coalesce(d.content_hash, '') AS content_hash,
       coalesce(d.uri, '') AS uri
ORDER BY id;
