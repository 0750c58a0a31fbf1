// Make the entity bridges of the given entities what their mentions now give: every two chunks of
// two documents that mention an entity at most $bound chunks mention are joined, both ways, by
// (:Chunk)-[:BRIDGE {entity_id, name, mentions, validation}]->(:Chunk): the entity's key and
// name, how many chunks mention it, and 2·cos − 1 of the two chunks' embeddings (the bridge's
// validation, the same both ways). The expansion reads these (expand/reached.cypher) instead of
// joining mentions and reading each landing chunk's embedding twice at search time: replayed
// with 60 MuSiQue dev answers' parameters, that statement's client p50 fell by 23 %
// (docs/benchmarks.md, "The expansion's cost").
// Every write that adds or removes a mention of an entity gives its id here, in the same
// transaction (loaders/graph_writer.py): its mention count, which every one of its bridges
// carries, has changed, so they are all made again. An entity that holds bridges is marked
// (bridged), so that one more than $bound chunks mention is not scanned for bridges it cannot
// have.
// Parameters: $entity_ids (entity keys; those no longer in the graph are skipped), $bound
// (integer: graph/bounds.py BRIDGED_MENTIONS). Returns: nothing.
UNWIND $entity_ids AS entity_id
MATCH (e:Entity {id: entity_id})
CALL (e) {
  WITH e
  WHERE e.bridged
  MATCH (e)<-[:MENTIONS]-(:Chunk)-[b:BRIDGE {entity_id: e.id}]->()
  DELETE b
}
WITH e, COUNT { (e)<-[:MENTIONS]-() } AS mentions
SET e.bridged = 2 <= mentions <= $bound
WITH e, mentions
WHERE e.bridged
MATCH (e)<-[:MENTIONS]-(s:Chunk)
MATCH (e)<-[:MENTIONS]-(t:Chunk)
WHERE t.document_id <> s.document_id
CREATE (s)-[:BRIDGE {entity_id: e.id, name: e.name, mentions: mentions,
                     validation: 2 * vector.similarity.cosine(t.embedding, s.embedding) - 1}]->(t);
