// Multi-signal scoring inputs for candidate documents (docs/design.md §2), exact cosines:
// S_doc (document embedding), S_segment (best chunk; null when the document has no chunks),
// the exact query entities the document mentions (for S_entity) and S_triple (best relation
// read from the document).
// Parameters: $document_ids, $vector (query embedding), $exact_entity_ids.
// Returns: document_id, s_doc, best_chunk_id, s_segment, matched_entities, s_triple.
UNWIND $document_ids AS id
MATCH (d:Document {id: id})
CALL (d) {
  OPTIONAL MATCH (d)-[:HAS_CHUNK]->(c:Chunk)
  WITH c, 2 * vector.similarity.cosine(c.embedding, $vector) - 1 AS similarity
  ORDER BY similarity DESC
  LIMIT 1
  RETURN c.id AS best_chunk_id, similarity AS s_segment
}
CALL (d) {
  OPTIONAL MATCH (d)-[:HAS_CHUNK]->(:Chunk)-[:MENTIONS]->(e:Entity)
  WHERE e.id IN $exact_entity_ids
  RETURN collect(DISTINCT e.id) AS matched_entities
}
CALL (d) {
  OPTIONAL MATCH ()-[r:RELATES {document_id: d.id}]->()
  RETURN max(2 * vector.similarity.cosine(r.embedding, $vector) - 1) AS s_triple
}
RETURN d.id AS document_id, 2 * vector.similarity.cosine(d.embedding, $vector) - 1 AS s_doc,
       best_chunk_id, s_segment, matched_entities, coalesce(s_triple, 0.0) AS s_triple;
