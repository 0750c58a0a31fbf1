// Record which entities each chunk mentions, and how often, and mark the collection as having
// mentions (has_mentions): a search of collections without any skips the expansion's read of
// entity bridges (service/retrieval/expansion.py). A delete leaves the mark.
// Parameters: $collection, $mentions (list of {chunk_id, entity_id, count}). Returns: nothing.
UNWIND $mentions AS row
MATCH (c:Chunk {id: row.chunk_id})
MATCH (e:Entity {id: row.entity_id})
CREATE (c)-[:MENTIONS {count: row.count}]->(e)
WITH DISTINCT true AS written
MATCH (collection:Collection {name: $collection})
SET collection.has_mentions = true;
