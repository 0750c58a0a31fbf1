// The state of every index anchorgraph created (lookup indexes are Neo4j's own and left out).
// Parameters: none. Returns: name, type, state, populationPercent, one row per index, by name.
SHOW INDEXES YIELD name, type, state, populationPercent
WHERE type <> 'LOOKUP'
RETURN name, type, state, populationPercent
ORDER BY name;
