// Remove Document nodes (their content and incoming links were handled before), then the
// collection's folders and tags that no document uses any more.
// Parameters: $collection, $ids (list of document keys).
// Returns: deleted (number of documents removed).
UNWIND $ids AS id
MATCH (d:Document {id: id})
DETACH DELETE d
WITH count(*) AS deleted
CALL () {
  MATCH (t:Tag {collection: $collection})
  WHERE NOT EXISTS { (t)<-[:TAGGED]-() }
  DELETE t
}
CALL () {
  MATCH (f:Folder {collection: $collection})
  WHERE NOT EXISTS { (f)-[:CONTAINS]->+(:Document) }
  DETACH DELETE f
}
RETURN deleted;
