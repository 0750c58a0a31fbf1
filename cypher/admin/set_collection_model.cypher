// The embedding model a collection records (load/lock_collection.cypher), set once every vector
// of it was embedded again with that model (loaders/reembed.py).
// Parameters: $collection, $model. Returns: nothing.
MATCH (c:Collection {name: $collection})
SET c.embedding_model = $model;
