// Create entities, or add newly seen aliases to existing ones; alias_text feeds the full-text
// index, and each alias whose normalised key differs from the id gets an (:Alias {key}) node
// -[:ALIAS_OF]-> the entity, so that a query naming the alias finds the entity exactly
// (detect_entities.cypher) whatever gazetteer the query side loaded. An entity without an
// embedding gets the row's (the embedding of its name); rows of entities the caller knows to
// be embedded already carry none (embedded_entities.cypher).
// Entities are per collection: ids and alias keys start with the collection (service/scope.py).
// Parameters: $collection, $entities (list of {id, name, type, aliases: list<string>,
// alias_keys: list<string> (normalised aliases other than the id, as keys), embedding:
// list<float> or null}).
// Returns: without_embedding (ids of entities still without an embedding: their row had none,
// and the graph had none either; normally empty).
UNWIND $entities AS row
MERGE (e:Entity {id: row.id})
ON CREATE SET e.collection = $collection, e.name = row.name, e.type = row.type, e.aliases = []
WITH e, row, e.embedding IS NULL AS lacks_embedding
SET e.aliases = reduce(known = e.aliases, alias IN row.aliases |
      CASE WHEN alias IN known THEN known ELSE known + alias END)
SET e.alias_text = reduce(text = '', alias IN e.aliases | text + ' ' + alias)
WITH e, row, lacks_embedding
CALL (e, row) {
  UNWIND row.alias_keys AS key
  MERGE (a:Alias {key: key})
  ON CREATE SET a.collection = $collection
  MERGE (a)-[:ALIAS_OF]->(e)
}
CALL (e, row, lacks_embedding) {
  WITH *
  WHERE lacks_embedding AND row.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(e, 'embedding', row.embedding)
}
WITH row
WHERE lacks_embedding AND row.embedding IS NULL
RETURN collect(row.id) AS without_embedding;
