// Put documents in their collection's folder tree, (:Collection)-[:CONTAINS]->(:Folder)-
// [:CONTAINS]->...->(:Document) (a document at the root hangs from the collection itself), and
// tag them ((:Document)-[:TAGGED]->(:Tag)). Folders and tags are per collection.
// Parameters: $collection, $documents (list of {id, folder (its folder's path, '' at the root),
// folders: [{path, name, parent ('' below the root)}] from the top down to the document's folder,
// tags: list<string>}). Returns: nothing.
MATCH (home:Collection {name: $collection})
UNWIND $documents AS row
MATCH (d:Document {id: row.id})
CALL (row, home) {
  UNWIND row.folders AS folder
  MERGE (f:Folder {collection: $collection, path: folder.path})
  ON CREATE SET f.name = folder.name
  WITH f, folder, home
  OPTIONAL MATCH (parent:Folder {collection: $collection, path: folder.parent})
  WITH f, coalesce(parent, home) AS above
  MERGE (above)-[:CONTAINS]->(f)
}
CALL (row, d, home) {
  OPTIONAL MATCH (own:Folder {collection: $collection, path: row.folder})
  WITH d, coalesce(own, home) AS above
  MERGE (above)-[:CONTAINS]->(d)
}
CALL (row, d) {
  UNWIND row.tags AS tag
  MERGE (t:Tag {collection: $collection, name: tag})
  MERGE (d)-[:TAGGED]->(t)
};
