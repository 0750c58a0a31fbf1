// The state of every index anchorgraph created (lookup indexes are Neo4j's own and left out),
// with a vector index's configured dimension, to catch a model change against an old graph.
// Parameters: none. Returns: name, type, state, populationPercent, id, dimensions (a vector
// index's, else null), one row per index, by name.
SHOW INDEXES YIELD name, type, state, populationPercent, id, options
WHERE type <> 'LOOKUP'
RETURN name, type, state, populationPercent, id,
  CASE type WHEN 'VECTOR' THEN options.indexConfig.`vector.dimensions` END AS dimensions
ORDER BY name;
