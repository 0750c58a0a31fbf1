// Guide: Collections, the sources side by side
// Every document belongs to exactly one collection (a wiki, a shared drive, the sample corpus),
// its id unique within it; in the graph a document, chunk or entity is stored under its key,
// the collection's name, '/' and its id ('sample/timeline.md'). The (:Collection) is the root
// of its folder tree: it CONTAINS its folders and the documents at its root. Links, entities,
// index terms and FD* statistics never cross from one collection to another. Its documents and
// chunks carry its shard's labels (:DocumentShard03, :ChunkShard03 for shard 3), whose vector
// indexes a search in the collection reads.
// Parameters: $collection (a collection's name).
// Returns: collection (the node: name, documents, chunks, created, shard), tree (paths from it through
// its folders to its documents, at most 50).
// Example: {"collection": "sample"}
MATCH (collection:Collection {name: $collection})
OPTIONAL MATCH tree = (collection)-[:CONTAINS*1..3]->(:Document)
RETURN collection, tree
LIMIT 50;
