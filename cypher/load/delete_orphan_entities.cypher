// Remove entities that no chunk mentions any more (with any relations still touching them), and
// their (:Alias) keys that name no other entity.
// Parameters: $entity_ids (list of entity ids to check). Returns: deleted (count).
UNWIND $entity_ids AS entity_id
MATCH (e:Entity {id: entity_id})
WHERE NOT EXISTS { (:Chunk)-[:MENTIONS]->(e) }
CALL (e) {
  MATCH (a:Alias)-[:ALIAS_OF]->(e)
  WHERE COUNT { (a)-[:ALIAS_OF]->() } = 1
  DETACH DELETE a
}
DETACH DELETE e
RETURN count(*) AS deleted;
