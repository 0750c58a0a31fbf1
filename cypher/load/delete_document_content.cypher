// Remove what a document owns: its chunks with their mentions, outgoing links and NEXT edges,
// the triples read from those chunks, and its folder and tag edges. The Document node stays.
// Parameters: $ids (list of document ids).
// Returns: entity_ids (ids of entities its chunks mentioned, to check for orphans afterwards).
UNWIND $ids AS id
MATCH (d:Document {id: id})
OPTIONAL MATCH (d)<-[filed:CONTAINS]-(:Folder)
OPTIONAL MATCH (d)-[tagged:TAGGED]->(:Tag)
DELETE filed, tagged
WITH DISTINCT d
MATCH (d)-[:HAS_CHUNK]->(c:Chunk)
OPTIONAL MATCH (c)-[:MENTIONS]->(e:Entity)
WITH c, collect(e.id) AS mentioned
CALL (c) {
  MATCH ()-[r:RELATES {chunk_id: c.id}]->()
  DELETE r
}
DETACH DELETE c
WITH mentioned
UNWIND mentioned AS entity_id
RETURN collect(DISTINCT entity_id) AS entity_ids;
