// Create entities, or add newly seen aliases to existing ones; alias_text feeds the full-text
// index. A new entity gets the embedding of its name.
// Parameters: $entities (list of {id, name, type, aliases: list<string>, embedding}).
// Returns: nothing.
UNWIND $entities AS row
MERGE (e:Entity {id: row.id})
ON CREATE SET e.name = row.name, e.type = row.type, e.aliases = []
WITH e, row, e.embedding IS NULL AS is_new
SET e.aliases = reduce(known = e.aliases, alias IN row.aliases |
      CASE WHEN alias IN known THEN known ELSE known + alias END)
SET e.alias_text = reduce(text = '', alias IN e.aliases | text + ' ' + alias)
WITH e, row
WHERE is_new
CALL db.create.setNodeVectorProperty(e, 'embedding', row.embedding);
