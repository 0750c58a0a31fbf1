// A page of a collection's documents ordered by id, with the collection's total count.
// Parameters: $collection, $offset (int), $limit (int).
// Returns: collection, total (int), offset, limit (as given), items (list of {id (within the
// collection), title, source, source_type, folder, tags, n_tokens, chunks}).
MATCH (d:Document)
WHERE d.collection = $collection
WITH count(d) AS total
CALL () {
  MATCH (d:Document)
  WHERE d.collection = $collection
  WITH d ORDER BY d.id SKIP $offset LIMIT $limit
  RETURN collect(d {
    id: substring(d.id, size($collection) + 1),
    .title, .source, .source_type, .folder, .tags, .n_tokens,
    chunks: COUNT { (d)-[:HAS_CHUNK]->() }
  }) AS items
}
RETURN $collection AS collection, total, $offset AS offset, $limit AS limit, items;
