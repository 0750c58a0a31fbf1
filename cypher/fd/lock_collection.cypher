// Take an existing collection's write lock (as load/lock_collection.cypher does, but never
// creating one): a refit of its FD* bins must not interleave with a write into it, and a
// delete (loaders/graph_writer.py) must not create the collection it deletes from.
// Parameters: $collection. Returns: found (1 when the collection exists, else 0).
OPTIONAL MATCH (c:Collection {name: $collection})
SET c.writing = true
RETURN count(c) AS found;
