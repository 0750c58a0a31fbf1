// Every document's id in a collection: what the evaluation compares with the corpus it is about
// to ingest there.
// Parameters: $collection. Returns: id (within the collection; one row per document).
MATCH (d:Document)
WHERE d.collection = $collection
RETURN substring(d.id, size($collection) + 1) AS id;
