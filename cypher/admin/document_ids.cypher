// Every document's id: what the evaluation compares with the corpus it is about to ingest.
// Parameters: none. Returns: id (one row per document).
MATCH (d:Document)
RETURN d.id AS id;
