// Remove the title links (href ending with $mark) out of the given documents' chunks, before the
// title-link pass makes them again (loaders/title_pass.py). Links an author wrote are kept.
// Parameters: $ids (document keys), $mark (anchorgraph.loaders.title_links.TITLE_LINK_MARK).
// Returns: deleted (count), keys (the placeholders they pointed at, for
// delete_orphan_placeholders.cypher).
UNWIND $ids AS id
MATCH (:Document {id: id})-[:HAS_CHUNK]->(:Chunk)-[l:LINKS_TO]->(t)
WHERE l.href ENDS WITH $mark
WITH l, CASE WHEN t:Unresolved THEN t.key END AS key
DELETE l
RETURN count(l) AS deleted, collect(DISTINCT key) AS keys;
