// Delete a collection and everything in it, in batches (CALL ... IN TRANSACTIONS, auto-commit,
// so that a large collection does not sit in one transaction's memory): first the collection is
// marked as being deleted, then its judgments, its chunks with their claims, its entities with
// their aliases and relations, its documents, index terms, tags, folders, link placeholders and
// FD* statistics, and the (:Collection) node last. A deletion cut short leaves the collection marked
// and is finished by running it again. Nothing of another collection is touched: every node
// matched here has this collection's name.
// Parameters: $collection. Returns: nothing. Statements end with ';'.
MATCH (c:Collection {name: $collection})
SET c.deleting = true;
MATCH (j:Judgment)
WHERE j.collection = $collection
CALL (j) {
  DETACH DELETE j
} IN TRANSACTIONS OF 2000 ROWS;
MATCH (chunk:Chunk)
WHERE chunk.collection = $collection
CALL (chunk) {
  OPTIONAL MATCH (chunk)-[:ASSERTS]->(claim:Claim)
  DETACH DELETE claim
  WITH DISTINCT chunk
  DETACH DELETE chunk
} IN TRANSACTIONS OF 2000 ROWS;
MATCH (e:Entity)
WHERE e.collection = $collection
CALL (e) {
  OPTIONAL MATCH (a:Alias)-[:ALIAS_OF]->(e)
  DETACH DELETE a
  WITH DISTINCT e
  DETACH DELETE e
} IN TRANSACTIONS OF 2000 ROWS;
MATCH (d:Document)
WHERE d.collection = $collection
CALL (d) {
  DETACH DELETE d
} IN TRANSACTIONS OF 2000 ROWS;
MATCH (t:Term)
WHERE t.collection = $collection
CALL (t) {
  DETACH DELETE t
} IN TRANSACTIONS OF 10000 ROWS;
MATCH (n:Tag|Folder|Unresolved|FdStats|Alias)
WHERE n.collection = $collection
CALL (n) {
  DETACH DELETE n
} IN TRANSACTIONS OF 10000 ROWS;
MATCH (c:Collection {name: $collection})
DETACH DELETE c;
