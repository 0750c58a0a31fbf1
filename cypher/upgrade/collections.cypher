// Upgrade a graph written before collections, in place and without re-embedding: every node
// without a collection joins $collection. Documents, chunks, entities, claims, alias keys and
// link placeholders get their keys prefixed ('README.md' becomes 'default/README.md'),
// relations and chunks the prefixed ids they refer to; folders, tags, index terms and FD*
// statistics get the collection's name; the root folder (path '') gives way to the
// (:Collection) node, which then holds its documents and folders. Each statement touches only
// nodes not upgraded yet, in batches (CALL ... IN TRANSACTIONS, auto-commit), so an upgrade cut
// short is finished by the next one.
// Parameters: $collection. Returns: nothing. Statements end with ';'.
MERGE (c:Collection {name: $collection})
ON CREATE SET c.created = datetime(), c.documents = 0, c.chunks = 0;
MATCH (d:Document)
WHERE d.collection IS NULL
CALL (d) {
  SET d.collection = $collection, d.id = $collection + '/' + d.id
} IN TRANSACTIONS OF 5000 ROWS;
MATCH (c:Chunk)
WHERE c.collection IS NULL
CALL (c) {
  SET c.collection = $collection, c.id = $collection + '/' + c.id,
      c.document_id = $collection + '/' + c.document_id
} IN TRANSACTIONS OF 5000 ROWS;
MATCH (claim:Claim)
WHERE claim.collection IS NULL
CALL (claim) {
  SET claim.collection = $collection, claim.id = $collection + '/' + claim.id
} IN TRANSACTIONS OF 10000 ROWS;
MATCH (e:Entity)
WHERE e.collection IS NULL
CALL (e) {
  SET e.collection = $collection, e.id = $collection + '/' + e.id
} IN TRANSACTIONS OF 5000 ROWS;
MATCH (a:Alias)
WHERE a.collection IS NULL
CALL (a) {
  SET a.collection = $collection, a.key = $collection + '/' + a.key
} IN TRANSACTIONS OF 10000 ROWS;
MATCH (u:Unresolved)
WHERE u.collection IS NULL
CALL (u) {
  SET u.collection = $collection, u.key = $collection + '/' + u.key
} IN TRANSACTIONS OF 10000 ROWS;
MATCH ()-[r:RELATES]->()
WHERE r.collection IS NULL
CALL (r) {
  SET r.collection = $collection, r.chunk_id = $collection + '/' + r.chunk_id,
      r.document_id = $collection + '/' + r.document_id
} IN TRANSACTIONS OF 10000 ROWS;
MATCH (home:Collection {name: $collection})
MATCH (root:Folder {path: ''})-[old:CONTAINS]->(child)
WHERE root.collection IS NULL
CALL (home, old, child) {
  MERGE (home)-[:CONTAINS]->(child)
  DELETE old
} IN TRANSACTIONS OF 5000 ROWS;
MATCH (root:Folder {path: ''})
WHERE root.collection IS NULL
DETACH DELETE root;
MATCH (f:Folder)
WHERE f.collection IS NULL
CALL (f) {
  SET f.collection = $collection
} IN TRANSACTIONS OF 10000 ROWS;
MATCH (t:Tag)
WHERE t.collection IS NULL
CALL (t) {
  SET t.collection = $collection
} IN TRANSACTIONS OF 10000 ROWS;
MATCH (t:Term)
WHERE t.collection IS NULL
CALL (t) {
  SET t.collection = $collection
} IN TRANSACTIONS OF 10000 ROWS;
MATCH (s:FdStats)
WHERE s.collection IS NULL
SET s.collection = $collection;
MATCH (c:Collection {name: $collection})
SET c.documents = COUNT { MATCH (d:Document) WHERE d.collection = $collection },
    c.chunks = COUNT { MATCH (chunk:Chunk) WHERE chunk.collection = $collection };
