// Before documents are replaced or deleted, links from OTHER documents into them (to the document
// or to one of its chunks) move onto an (:Unresolved {key: id}) placeholder, keeping their
// properties; resolve_unresolved.cypher points them at the new version when it is written.
// Parameters: $ids (list of document keys). Returns: moved (number of links moved).
UNWIND $ids AS id
MATCH (d:Document {id: id})
CALL (d) {
  MATCH (src:Chunk)-[old:LINKS_TO]->(d)
  RETURN src, old
  UNION ALL
  MATCH (d)-[:HAS_CHUNK]->(:Chunk)<-[old:LINKS_TO]-(src:Chunk)
  RETURN src, old
}
WITH d, src, old
// Links from documents being replaced in the same batch go with their chunks; moving them
// would leave placeholders behind.
WHERE NOT src.document_id IN $ids
MERGE (u:Unresolved {key: d.id})
ON CREATE SET u.collection = d.collection
CREATE (src)-[moved:LINKS_TO]->(u)
SET moved = properties(old)
DELETE old
RETURN count(moved) AS moved;
