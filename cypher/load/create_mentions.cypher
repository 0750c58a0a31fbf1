// Record which entities each chunk mentions, and how often.
// Parameters: $mentions (list of {chunk_id, entity_id, count}). Returns: nothing.
UNWIND $mentions AS row
MATCH (c:Chunk {id: row.chunk_id})
MATCH (e:Entity {id: row.entity_id})
CREATE (c)-[:MENTIONS {count: row.count}]->(e);
