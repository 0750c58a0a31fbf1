// The documents whose chunks mention each given entity (entity boosting, audits).
// Parameters: $entity_ids (list of entity ids).
// Returns: entity_id, documents (list of document ids); a row per entity that exists.
UNWIND $entity_ids AS entity_id
MATCH (e:Entity {id: entity_id})
OPTIONAL MATCH (c:Chunk)-[:MENTIONS]->(e)
RETURN entity_id, collect(DISTINCT c.document_id) AS documents;
