// Point links that waited on an (:Unresolved) placeholder at the documents that just arrived
// (matched by key, or by uri within the collection), or at the chunk whose heading the link's
// fragment names; placeholders left with no links are removed.
// Parameters: $collection, $documents (list of {id (key), uri}).
// Returns: resolved (number of links re-pointed).
UNWIND $documents AS doc
MATCH (u:Unresolved)
WHERE u.key IN [doc.id, $collection + '/' + doc.uri]
MATCH (d:Document {id: doc.id})
MATCH (src:Chunk)-[old:LINKS_TO]->(u)
OPTIONAL MATCH (d)-[:HAS_CHUNK]->(section:Chunk)
WHERE old.fragment <> '' AND old.fragment IN section.heading_slugs
WITH u, src, old, d, collect(section) AS sections
WITH u, src, old, coalesce(head(sections), d) AS target
CREATE (src)-[resolved:LINKS_TO]->(target)
SET resolved = properties(old)
DELETE old
WITH u, count(resolved) AS resolved
CALL (u) {
  WITH u
  WHERE NOT EXISTS { (u)<-[:LINKS_TO]-() }
  DELETE u
}
RETURN sum(resolved) AS resolved;
