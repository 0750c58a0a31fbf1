// Entity boosting: chunks that mention entities the query names join the pool whatever their
// vector score (docs/design.md §2); a chunk scores the sum of its entities' detection scores.
// Parameters: $entities (list of {id, score}), $k, $allowed (document ids, or null).
// Returns: one row, candidates: a list of {chunk_id, document_id, score}, best first (one list
// rather than a row per candidate: the driver decodes it in a third of the CPU time).
UNWIND $entities AS entity
MATCH (:Entity {id: entity.id})<-[:MENTIONS]-(c:Chunk)
WHERE $allowed IS NULL OR c.document_id IN $allowed
WITH c, sum(entity.score) AS score
WITH c.id AS chunk_id, c.document_id AS document_id, score
ORDER BY score DESC, chunk_id
LIMIT $k
RETURN collect({chunk_id: chunk_id, document_id: document_id, score: score}) AS candidates;
