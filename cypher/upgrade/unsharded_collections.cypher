// Collections written before shards (service/graph/shards.py): no shard yet, their chunks and
// documents without a shard label. The upgrade (shard_collection.cypher) gives each one.
// Parameters: none. Returns: name (one row per collection, by name).
MATCH (c:Collection)
WHERE c.shard IS NULL
RETURN c.name AS name
ORDER BY name;
