// Which of the given entities already have an embedding in the graph and keep it until the
// caller's batch is written: mentioned by some chunk of a document other than those in
// $replacing (the batch being written right now, which may remove entities only its documents
// mentioned). The ingestor embeds and sends a vector only for the others: new entities, and
// entities stored without an embedding.
// Parameters: $entity_ids (list of entity ids), $replacing (list of document ids).
// Returns: id (one row per entity that has an embedding and keeps it).
UNWIND $entity_ids AS entity_id
MATCH (e:Entity {id: entity_id})
WHERE e.embedding IS NOT NULL
  AND EXISTS { MATCH (e)<-[:MENTIONS]-(c:Chunk) WHERE NOT c.document_id IN $replacing }
RETURN e.id AS id;
