// The subgraph a Personalized PageRank walks (service/retrieval/walk.py): around the seed chunks,
// each chunk–entity MENTIONS edge of the entities they mention that at most $max_mentions chunks
// mention (a common entity would join everything to everything), with every chunk mentioning
// those; each LINKS_TO edge into or out of a seed chunk (a link to a whole document as an edge
// to each of its chunks); and the same mentions of the query's own entities.
// Why one statement: the walk's graph is read in one round trip, then walked in memory.
// Parameters: $chunks (seed chunk ids), $entities (the query's entity ids), $max_mentions,
// $limit (edges at most: the walk's time bound).
// Returns: source, target, kind ('mentions': source a chunk id, target an entity id; 'link':
// both chunk ids); each edge once, in a fixed order.
CALL () {
  UNWIND $chunks AS chunk_id
  MATCH (c:Chunk {id: chunk_id})-[:MENTIONS]->(e:Entity)
  WHERE COUNT { (e)<-[:MENTIONS]-(:Chunk) } <= $max_mentions
  MATCH (e)<-[:MENTIONS]-(other:Chunk)
  RETURN other.id AS source, e.id AS target, 'mentions' AS kind
  UNION
  UNWIND $entities AS entity_id
  MATCH (e:Entity {id: entity_id})
  WHERE COUNT { (e)<-[:MENTIONS]-(:Chunk) } <= $max_mentions
  MATCH (e)<-[:MENTIONS]-(other:Chunk)
  RETURN other.id AS source, e.id AS target, 'mentions' AS kind
  UNION
  UNWIND $chunks AS chunk_id
  MATCH (c:Chunk {id: chunk_id})-[:LINKS_TO]-(landing:Chunk)
  RETURN c.id AS source, landing.id AS target, 'link' AS kind
  UNION
  UNWIND $chunks AS chunk_id
  MATCH (c:Chunk {id: chunk_id})-[:LINKS_TO]-(:Document)-[:HAS_CHUNK]->(landing:Chunk)
  RETURN c.id AS source, landing.id AS target, 'link' AS kind
}
RETURN source, target, kind
ORDER BY kind, source, target
LIMIT $limit;
