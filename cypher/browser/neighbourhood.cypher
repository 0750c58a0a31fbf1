// Guide: A search hit's neighbourhood
// A document or chunk (by id) and what is one relationship away: a chunk's document, the
// chunks before and after it, its links out and in, the entities it mentions and the claims it
// asserts; a document's chunks, folder, tags and the links to it. The search page (GET /)
// opens Neo4j Browser on this query for each hit, with the hit's key in place of $id.
// Parameters: $id (a document's or chunk's key: its collection, '/', its id).
// Returns: centre (the node), around (paths of one relationship from it; at most 100).
// Example: {"id": "sample/climate/incident-2022.md#1"}
CALL () {
  MATCH (d:Document {id: $id})
  RETURN d AS centre
  UNION
  MATCH (c:Chunk {id: $id})
  RETURN c AS centre
}
OPTIONAL MATCH around = (centre)-[:HAS_CHUNK|NEXT|LINKS_TO|MENTIONS|ASSERTS|TAGGED|CONTAINS]-()
RETURN centre, around
LIMIT 100;
