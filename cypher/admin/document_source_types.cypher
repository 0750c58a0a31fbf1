// Every document's source type in a collection: what the evaluation counts the tiers of the top
// 5 with.
// Parameters: $collection. Returns: id (within the collection), source_type ('' when none).
MATCH (d:Document)
WHERE d.collection = $collection
RETURN substring(d.id, size($collection) + 1) AS id, coalesce(d.source_type, '') AS source_type;
