// Every document of a collection with its content hash, origin and revision: what a sync
// compares a folder with (loaders/sync.py).
// Parameters: $collection. Returns: id (within the collection), content_hash, uri ('' when
// none), revision (its file's, as listed when it was read; '' when unknown); one row per
// document, by id.
MATCH (d:Document)
WHERE d.collection = $collection
RETURN substring(d.id, size($collection) + 1) AS id, coalesce(d.content_hash, '') AS content_hash,
       coalesce(d.uri, '') AS uri, coalesce(d.revision, '') AS revision
ORDER BY id;
