// Every collection with what it holds: documents and chunks (the counts every write keeps,
// load/count_collection.cypher), entities, when it was created, and its own fusion weights'
// name (anchorgraph tune).
// Parameters: none. Returns: name, documents, chunks, entities, created, ranking (null: the
// default weights); one row per collection, by name.
MATCH (c:Collection)
RETURN c.name AS name, coalesce(c.documents, 0) AS documents, coalesce(c.chunks, 0) AS chunks,
       COUNT { MATCH (e:Entity) WHERE e.collection = c.name } AS entities, c.created AS created,
       c.ranking_name AS ranking
ORDER BY name;
