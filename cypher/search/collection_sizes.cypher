// Every collection with its number of chunks (kept by every write, load/count_collection.cypher):
// which collections a search may read, and their part of the graph, by which the indexes that
// cannot filter inside themselves are asked for more hits (service/retrieval/paths.py).
// Parameters: none. Returns: name, chunks (one row per collection, by name).
MATCH (c:Collection)
RETURN c.name AS name, coalesce(c.chunks, 0) AS chunks
ORDER BY name;
