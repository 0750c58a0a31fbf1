// Guide: An entity's mentions across documents
// An entity, named by its name or one of its aliases (as a query names it: "MAC" is the
// museum), with every chunk that mentions it (MENTIONS, with the count) and each chunk's
// document: where one thing is talked about across a collection (entities are per collection).
// Parameters: $collection (the collection), $name (an entity's name or alias, any case).
// Returns: mentions (paths document → chunk → entity), one per mentioning chunk, by document.
// Example: {"collection": "sample", "name": "MAC"}
MATCH (e:Entity)
WHERE e.id = $collection + '/' + toLower(trim($name))
   OR EXISTS { (:Alias {key: $collection + '/' + toLower(trim($name))})-[:ALIAS_OF]->(e) }
MATCH mentions = (:Document)-[:HAS_CHUNK]->(c:Chunk)-[:MENTIONS]->(e)
RETURN mentions
ORDER BY c.document_id, c.ordinal;
