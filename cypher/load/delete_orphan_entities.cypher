// Remove entities that no chunk mentions any more (with any relations still touching them).
// Parameters: $entity_ids (list of entity ids to check). Returns: deleted (count).
UNWIND $entity_ids AS entity_id
MATCH (e:Entity {id: entity_id})
WHERE NOT EXISTS { (:Chunk)-[:MENTIONS]->(e) }
DETACH DELETE e
RETURN count(*) AS deleted;
