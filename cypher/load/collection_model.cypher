// The embedding model a collection records (load/lock_collection.cypher), read before its
// documents are embedded, so that a write with another model is refused before the work.
// Parameters: $collection. Returns: model (null: none recorded); no row for no collection.
MATCH (c:Collection {name: $collection})
RETURN c.embedding_model AS model;
