// Last statement of every write into a collection: add what it changed to the collection's
// document and chunk counts (what TF-IDF's N and GET /collections read) and release the mark
// lock_collection.cypher set (the lock itself ends with the transaction).
// Parameters: $collection, $documents, $chunks (changes, negative for removals).
// Returns: nothing.
MATCH (c:Collection {name: $collection})
SET c.documents = c.documents + $documents, c.chunks = c.chunks + $chunks
REMOVE c.writing;
