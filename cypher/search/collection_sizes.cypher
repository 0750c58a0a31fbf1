// Every collection with its number of chunks (kept by every write, load/count_collection.cypher)
// and its shard: which collections a search may read, their part of the graph and of their
// shards, by which the indexes that cannot filter inside themselves are chosen and asked for more
// hits (service/retrieval/paths.py).
// Parameters: none. Returns: name, chunks, shard (null before the upgrade; one row per
// collection, by name).
MATCH (c:Collection)
RETURN c.name AS name, coalesce(c.chunks, 0) AS chunks, c.shard AS shard
ORDER BY name;
