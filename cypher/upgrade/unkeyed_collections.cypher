// Collections written before entities had keys without accents (service/text/identifiers.py,
// entity_keys): the upgrade (accented_entities.cypher, add_alias_keys.cypher) adds them; a
// collection created since is marked at creation (load/lock_collection.cypher).
// Parameters: none. Returns: name (one row per collection, by name).
MATCH (c:Collection)
WHERE c.accent_keys IS NULL
RETURN c.name AS name
ORDER BY name;
