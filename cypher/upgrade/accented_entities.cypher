// The entities of a collection whose id or aliases hold a character beyond ASCII, the only ones
// whose keys without accents can differ from those they have.
// Parameters: $collection. Returns: id (the entity key), aliases (as written).
MATCH (e:Entity {collection: $collection})
WHERE e.id + coalesce(e.alias_text, '') =~ '(?s).*[^\\x00-\\x7F].*'
RETURN e.id AS id, coalesce(e.aliases, []) AS aliases
ORDER BY id;
