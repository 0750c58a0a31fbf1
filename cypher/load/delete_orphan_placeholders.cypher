// Remove the given (:Unresolved) placeholders when no link points at them any more (their
// linking chunks were replaced or deleted). Only the placeholders the removed chunks linked to
// can have been emptied, so only those are checked, not every placeholder in the graph.
// Parameters: $keys (list of placeholder keys, from delete_document_content.cypher).
// Returns: deleted (count).
UNWIND $keys AS key
MATCH (u:Unresolved {key: key})
WHERE NOT EXISTS { (u)<-[:LINKS_TO]-() }
DELETE u
RETURN count(*) AS deleted;
