// Put documents in their folder hierarchy ((:Folder)-[:CONTAINS]->(:Folder|:Document)) and tag
// them ((:Document)-[:TAGGED]->(:Tag)). The root folder has path "".
// Parameters: $documents (list of {id, folders: [{path, name, parent}] from the root down to
// the document's folder, tags: list<string>}). Returns: nothing.
UNWIND $documents AS row
MATCH (d:Document {id: row.id})
CALL (row) {
  UNWIND row.folders AS folder
  MERGE (f:Folder {path: folder.path})
  ON CREATE SET f.name = folder.name
  WITH f, folder
  WHERE folder.parent IS NOT NULL
  MERGE (parent:Folder {path: folder.parent})
  MERGE (parent)-[:CONTAINS]->(f)
}
CALL (row, d) {
  MATCH (home:Folder {path: last(row.folders).path})
  MERGE (home)-[:CONTAINS]->(d)
}
CALL (row, d) {
  UNWIND row.tags AS tag
  MERGE (t:Tag {name: tag})
  MERGE (d)-[:TAGGED]->(t)
};
