// The documents of a collection read from the given files or URLs, whatever their ids: a file
// read again from a folder above or below the one it was first read from gets another id, and
// an ingest refuses to keep it twice (loaders/ingest.py, write_decision). Served by the
// document_uri range index.
// Parameters: $collection, $uris (list of uris).
// Returns: id (within the collection), content_hash, uri (one row per document found).
UNWIND $uris AS uri
MATCH (d:Document {uri: uri})
WHERE d.collection = $collection
RETURN substring(d.id, size($collection) + 1) AS id, coalesce(d.content_hash, '') AS content_hash,
       d.uri AS uri;
