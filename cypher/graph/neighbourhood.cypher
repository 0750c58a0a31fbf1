// The neighbourhood of one document or chunk, for visual exploration (GET /graph/neighbourhood).
// Nodes within $depth hops (1 or 2), either direction, over the content relationships HAS_CHUNK,
// NEXT, LINKS_TO, ASSERTS, MENTIONS, RELATES, TAGGED and CONTAINS (HAS_TERM, the TF-IDF index,
// and ALIAS_OF, lookup keys, would drown the picture). Kept nearest first, then by how a node
// was reached (reading order, links, claims and mentions, triples, tags, folders), then by key:
// at most $limit nodes, the centre included; truncated says more were within reach. The centre
// expands all its relationships; at depth 2 each neighbour reads at most $fanout of its own
// (storage order), so a hub (a collection, a common entity) costs at most $fanout rows. Every
// relationship followed stays within the centre's collection.
// relationships: every one of those types between two kept nodes. Embeddings stay on the server,
// and so do the labels only the indexes use (a shard's, a language's: $index_labels).
// Parameters: $id (document or chunk key), $depth (1 or 2), $limit (nodes), $fanout,
// $index_labels (service/graph/shards.py index_labels).
// Returns: center (element id), nodes (list of {id: element id, labels, properties}),
// relationships (list of {id: element id, type, start, end: element ids, properties}),
// truncated; no row when no document or chunk has the id.
CALL () {
  MATCH (d:Document {id: $id})
  RETURN d AS center
  UNION
  MATCH (c:Chunk {id: $id})
  RETURN c AS center
}
WITH center
LIMIT 1
CALL (center) {
  MATCH (center)-[r:HAS_CHUNK|NEXT|LINKS_TO|ASSERTS|MENTIONS|RELATES|TAGGED|CONTAINS]-(n)
  WHERE n <> center
  WITH n, min(CASE type(r)
      WHEN 'HAS_CHUNK' THEN 0 WHEN 'NEXT' THEN 0 WHEN 'LINKS_TO' THEN 1 WHEN 'ASSERTS' THEN 2
      WHEN 'MENTIONS' THEN 2 WHEN 'RELATES' THEN 3 WHEN 'TAGGED' THEN 4 ELSE 5 END) AS via
  ORDER BY via, coalesce(n.id, n.key, n.path, n.name), elementId(n)
  LIMIT $limit
  RETURN collect({node: n, order: 10 + via}) AS first
}
CALL (center, first) {
  UNWIND first AS hop
  WITH hop.node AS m
  WHERE $depth >= 2
  CALL (m) {
    MATCH (m)-[r:HAS_CHUNK|NEXT|LINKS_TO|ASSERTS|MENTIONS|RELATES|TAGGED|CONTAINS]-(n)
    WHERE n <> m
    WITH r, n
    LIMIT $fanout
    RETURN n, CASE type(r)
      WHEN 'HAS_CHUNK' THEN 0 WHEN 'NEXT' THEN 0 WHEN 'LINKS_TO' THEN 1 WHEN 'ASSERTS' THEN 2
      WHEN 'MENTIONS' THEN 2 WHEN 'RELATES' THEN 3 WHEN 'TAGGED' THEN 4 ELSE 5 END AS via
  }
  WITH n, min(via) AS via
  WHERE n <> center
  RETURN collect({node: n, order: 20 + via}) AS second
}
UNWIND [{node: center, order: 0}] + first + second AS hop
WITH center, hop.node AS node, min(hop.order) AS order
ORDER BY order, coalesce(node.id, node.key, node.path, node.name), elementId(node)
WITH center, collect(node) AS reached
WITH center, reached[..$limit] AS nodes, size(reached) > $limit AS truncated
CALL (nodes) {
  CALL (nodes) {
    UNWIND nodes AS a
    MATCH (a)-[r:HAS_CHUNK|NEXT|LINKS_TO|ASSERTS|MENTIONS|RELATES|TAGGED]->(b)
    WHERE b IN nodes
    RETURN r
    UNION
    // A node sits in one folder (or at its collection's root): CONTAINS is read from the
    // contained side, not the folder's.
    UNWIND nodes AS b
    MATCH (a:Folder|Collection)-[r:CONTAINS]->(b)
    WHERE a IN nodes
    RETURN r
  }
  WITH r
  ORDER BY type(r), elementId(r)
  RETURN collect(r) AS relationships
}
RETURN elementId(center) AS center,
       [n IN nodes | {id: elementId(n), labels: [l IN labels(n) WHERE NOT l IN $index_labels],
                      properties: n {.*, embedding: null}}] AS nodes,
       [r IN relationships | {
         id: elementId(r), type: type(r), start: elementId(startNode(r)),
         end: elementId(endNode(r)),
         properties: r {.*, embedding: null, context_embedding: null}
       }] AS relationships,
       truncated;
