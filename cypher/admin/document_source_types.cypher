// Every document's source type: what the evaluation counts the tiers of the top 5 with.
// Parameters: none. Returns: id, source_type ('' when none).
MATCH (d:Document)
RETURN d.id AS id, coalesce(d.source_type, '') AS source_type;
