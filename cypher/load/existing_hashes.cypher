// Content hashes and origins of the documents already in the graph: unchanged re-ingests are
// skipped, and a write that would replace a document from another origin is refused unless the
// caller asks to replace it (loaders/ingest.py).
// Parameters: $ids (list of document keys).
// Returns: id, content_hash, uri ('' when none) (one row per existing key).
UNWIND $ids AS id
MATCH (d:Document {id: id})
RETURN d.id AS id, d.content_hash AS content_hash, coalesce(d.uri, '') AS uri;
