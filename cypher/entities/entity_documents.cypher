// The documents of a collection whose chunks mention each given entity of it (tests and audits
// of entity extraction).
// Parameters: $collection, $entity_ids (list of entity ids within the collection).
// Returns: entity_id, documents (list of document ids within the collection); a row per entity
// that exists.
UNWIND $entity_ids AS entity_id
MATCH (e:Entity {id: $collection + '/' + entity_id})
OPTIONAL MATCH (c:Chunk)-[:MENTIONS]->(e)
RETURN entity_id,
       collect(DISTINCT substring(c.document_id, size($collection) + 1)) AS documents;
