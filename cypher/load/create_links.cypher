// Hyperlinks found while chunking, resolved within their collection. The target is the linked
// chunk when the fragment names one of its headings, else the linked document (by key, or by
// uri in the same collection); a document not ingested yet is stood in for by
// (:Unresolved {key}) until it arrives (resolve_unresolved.cypher), so ingest order never matters.
// The anchor context's embedding (context_embedding, float32) is what expansion validates the
// chunk a link lands on against (service/retrieval/expansion.py).
// Parameters: $collection, $links (list of {chunk_id, target (the target's key), uri (the
// target as written, for a match on a document's uri), fragment, href, anchor_text, context,
// context_embedding (list of floats, or null)}). Returns: nothing.
// The collection is marked as having links (has_links) once one with an anchor context is
// written: only those can be followed (expand/reached.cypher), and a search of collections
// without any skips the expansion's read of links (service/retrieval/expansion.py). A delete
// leaves the mark: a collection that lost its last link reads nothing in one more round trip.
UNWIND $links AS row
MATCH (c:Chunk {id: row.chunk_id})
OPTIONAL CALL (row) {
  MATCH (d:Document {id: row.target})
  RETURN d
  UNION
  MATCH (d:Document {uri: row.uri})
  WHERE d.collection = $collection
  RETURN d
}
WITH c, row, head(collect(d)) AS d
OPTIONAL MATCH (d)-[:HAS_CHUNK]->(section:Chunk)
WHERE row.fragment <> '' AND row.fragment IN section.heading_slugs
WITH c, row, d, collect(section) AS sections
WITH c, row, coalesce(head(sections), d) AS target
CALL (row, target) {
  WITH row, target
  WHERE target IS NULL
  MERGE (u:Unresolved {key: row.target})
  ON CREATE SET u.collection = $collection
  RETURN u AS linked
  UNION
  WITH row, target
  WHERE target IS NOT NULL
  RETURN target AS linked
}
CREATE (c)-[link:LINKS_TO {
  href: row.href, anchor_text: row.anchor_text, context: row.context, fragment: row.fragment
}]->(linked)
WITH link, row
WHERE row.context_embedding IS NOT NULL
CALL db.create.setRelationshipVectorProperty(link, 'context_embedding', row.context_embedding)
WITH DISTINCT true AS written
MATCH (collection:Collection {name: $collection})
SET collection.has_links = true;
