// Remove (:Unresolved) placeholders that no link points at any more (their linking chunks
// were replaced or deleted).
// Parameters: none. Returns: deleted (count).
MATCH (u:Unresolved)
WHERE NOT EXISTS { (u)<-[:LINKS_TO]-() }
DELETE u
RETURN count(*) AS deleted;
