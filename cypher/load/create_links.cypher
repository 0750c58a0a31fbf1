// Hyperlinks found while chunking. The target is the linked chunk when the fragment names one of
// its headings, else the linked document; a document not ingested yet is stood in for by
// (:Unresolved {key}) until it arrives (resolve_unresolved.cypher), so ingest order never matters.
// Parameters: $links (list of {chunk_id, target, fragment, href, anchor_text, context}).
// Returns: nothing.
UNWIND $links AS row
MATCH (c:Chunk {id: row.chunk_id})
OPTIONAL CALL (row) {
  MATCH (d:Document {id: row.target})
  RETURN d
  UNION
  MATCH (d:Document {uri: row.target})
  RETURN d
}
WITH c, row, head(collect(d)) AS d
OPTIONAL MATCH (d)-[:HAS_CHUNK]->(section:Chunk)
WHERE row.fragment <> '' AND row.fragment IN section.heading_slugs
WITH c, row, d, collect(section) AS sections
WITH c, row, coalesce(head(sections), d) AS target
CALL (c, row, target) {
  WITH *
  WHERE target IS NOT NULL
  CREATE (c)-[:LINKS_TO {
    href: row.href, anchor_text: row.anchor_text, context: row.context, fragment: row.fragment
  }]->(target)
}
CALL (c, row, target) {
  WITH *
  WHERE target IS NULL
  MERGE (u:Unresolved {key: row.target})
  CREATE (c)-[:LINKS_TO {
    href: row.href, anchor_text: row.anchor_text, context: row.context, fragment: row.fragment
  }]->(u)
};
