// Store a collection's own fusion weights (anchorgraph tune; service/retrieval/tuning.py), or
// remove them (null): searches of the collection alone read them (search/collection_sizes.cypher).
// Parameters: $collection, $ranking (a CollectionRanking as JSON, or null), $name (its name, or
// null). Returns: name (the collection's; no row when there is none).
MATCH (c:Collection {name: $collection})
SET c.ranking = $ranking, c.ranking_name = $name
RETURN c.name AS name;
