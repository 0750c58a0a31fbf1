// Every judgment of a collection whose document is still there (anchorgraph tune fits on them).
// Parameters: $collection. Returns: query, document_id (within the collection), relevance; by
// query, then document.
MATCH (j:Judgment)-[:JUDGES]->(d:Document)
WHERE j.collection = $collection
RETURN j.query AS query, substring(d.id, size($collection) + 1) AS document_id,
       j.relevance AS relevance
ORDER BY query, document_id;
