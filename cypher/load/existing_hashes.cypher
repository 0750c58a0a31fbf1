// Content hashes of the documents already in the graph, to skip unchanged re-ingests.
// Parameters: $ids (list of document ids). Returns: id, content_hash (one row per existing id).
UNWIND $ids AS id
MATCH (d:Document {id: id})
RETURN d.id AS id, d.content_hash AS content_hash;
