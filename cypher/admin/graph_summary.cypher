// How many nodes of each label and relationships of each type the graph holds.
// Parameters: none. Returns: kind ('node' | 'relationship'), name, count (only counts > 0).
CALL db.labels() YIELD label
CALL (label) {
  MATCH (n)
  WHERE label IN labels(n)
  RETURN count(n) AS count
}
WITH 'node' AS kind, label AS name, count
WHERE count > 0
RETURN kind, name, count
UNION ALL
CALL db.relationshipTypes() YIELD relationshipType
CALL (relationshipType) {
  MATCH ()-[r]->()
  WHERE type(r) = relationshipType
  RETURN count(r) AS count
}
WITH 'relationship' AS kind, relationshipType AS name, count
WHERE count > 0
RETURN kind, name, count;
