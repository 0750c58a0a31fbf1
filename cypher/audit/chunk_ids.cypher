// Every chunk's key in a collection, in a fixed order: the population the coverage pre-check
// draws its seeded sample from (service/audit/coverage.py).
// Parameters: $collection. Returns: id (key); ordered by id.
MATCH (c:Chunk)
WHERE c.collection = $collection
RETURN c.id AS id
ORDER BY id;
