// The texts a batch of a collection's documents were embedded from (loaders/reembed.py), as
// ingestion embeds them (loaders/ingest.py): each chunk's text, each triple's text and each
// link's anchor context (its anchor text where it has none), so that another model embeds them
// again in place. Links without a context embedding (none was made) are left out.
// The entities its chunks mention are listed too: their bridges' validations are cosines of
// chunk vectors (load/refresh_bridges.cypher), refreshed with the vectors.
// Parameters: $ids (document keys). Returns: id (key), chunks (list of {id, text}, in reading
// order), triples (list of {id: the relationship's elementId, text}), links (list of {id: the
// relationship's elementId, text}), entity_ids (list of entity keys); one row per document that
// exists.
UNWIND $ids AS id
MATCH (d:Document {id: id})
CALL (d) {
  MATCH (d)-[:HAS_CHUNK]->(c:Chunk)
  WITH c
  ORDER BY c.ordinal
  RETURN collect({id: c.id, text: c.text}) AS chunks
}
CALL (d) {
  MATCH ()-[r:RELATES {document_id: d.id}]->()
  RETURN collect({id: elementId(r), text: r.text}) AS triples
}
CALL (d) {
  MATCH (d)-[:HAS_CHUNK]->(:Chunk)-[l:LINKS_TO]->()
  WHERE l.context_embedding IS NOT NULL
  RETURN collect({
    id: elementId(l),
    text: CASE WHEN coalesce(l.context, '') = '' THEN l.anchor_text ELSE l.context END
  }) AS links
}
RETURN d.id AS id, chunks, triples, links,
  COLLECT { MATCH (d)-[:HAS_CHUNK]->(:Chunk)-[:MENTIONS]->(e:Entity) RETURN DISTINCT e.id }
    AS entity_ids;
