// Every chunk's id, in a fixed order: the population the coverage pre-check draws its seeded
// sample from (service/audit/coverage.py).
// Parameters: none. Returns: id; ordered by id.
MATCH (c:Chunk)
RETURN c.id AS id
ORDER BY id;
