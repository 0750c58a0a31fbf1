// The state of every index anchorgraph created (lookup indexes are Neo4j's own and left out).
// Parameters: none. Returns: name, type, state, populationPercent, id, one row per index, by name.
SHOW INDEXES YIELD name, type, state, populationPercent, id
WHERE type <> 'LOOKUP'
RETURN name, type, state, populationPercent, id
ORDER BY name;
