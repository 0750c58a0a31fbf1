// A page of documents ordered by id, with the total count.
// Parameters: $offset (int), $limit (int).
// Returns: total (int), offset, limit (as given), items (list of {id, title, source,
// source_type, folder, tags, n_tokens, chunks}).
MATCH (d:Document)
WITH count(d) AS total
CALL () {
  MATCH (d:Document)
  WITH d ORDER BY d.id SKIP $offset LIMIT $limit
  RETURN collect(d {
    .id, .title, .source, .source_type, .folder, .tags, .n_tokens,
    chunks: COUNT { (d)-[:HAS_CHUNK]->() }
  }) AS items
}
RETURN total, $offset AS offset, $limit AS limit, items;
