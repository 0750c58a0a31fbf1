// Give entities alias keys they lack, as upsert_entities.cypher gives them at ingest, then mark
// the collection upgraded. Statements end with ';'.
// Parameters: $collection, $entities (list of {id: entity key, alias_keys: list<string>}).
// Returns: nothing.
UNWIND $entities AS row
MATCH (e:Entity {id: row.id})
UNWIND row.alias_keys AS key
MERGE (a:Alias {key: key})
ON CREATE SET a.collection = $collection
MERGE (a)-[:ALIAS_OF]->(e);
MATCH (c:Collection {name: $collection})
SET c.accent_keys = true;
