// One document of a collection with its chunks in order, its outgoing links and the entities it
// mentions; every id in it is the id within the collection (links and mentions never leave it).
// Parameters: $collection, $id (the document's key).
// Returns: collection, id, title, uri, source, source_type, folder, tags, identifiers,
// n_tokens, content_hash, modified (null when absent), n_pages (0 without pages),
// ocr_confidence (null unless OCR read it), language (ISO 639-1; 'en' for a document written
// before languages), chunks (list of maps by ordinal), links
// (list of {chunk_id, href, anchor_text, fragment, target_document, target_chunk, resolved}),
// entities (list of {id, name, type, count}); no row when the key is unknown.
MATCH (d:Document {id: $id})
WHERE d.collection = $collection
WITH d, size($collection) + 1 AS cut
CALL (d, cut) {
  MATCH (d)-[:HAS_CHUNK]->(c:Chunk)
  WITH c ORDER BY c.ordinal
  RETURN collect(c {
    id: substring(c.id, cut), .ordinal, .text, .start, .end, .n_tokens, .heading_slugs, .pages,
    .ocr_confidence
  }) AS chunks
}
CALL (d, cut) {
  MATCH (d)-[:HAS_CHUNK]->(c:Chunk)-[l:LINKS_TO]->(target)
  WITH c, l, target ORDER BY c.ordinal, l.href
  RETURN collect({
    chunk_id: substring(c.id, cut), href: l.href, anchor_text: l.anchor_text,
    fragment: l.fragment,
    target_document: substring(CASE
      WHEN target:Document THEN target.id
      WHEN target:Chunk THEN target.document_id
      ELSE target.key END, cut),
    target_chunk: CASE WHEN target:Chunk THEN substring(target.id, cut) ELSE null END,
    resolved: NOT target:Unresolved
  }) AS links
}
CALL (d, cut) {
  MATCH (d)-[:HAS_CHUNK]->(:Chunk)-[m:MENTIONS]->(e:Entity)
  WITH e, sum(m.count) AS count ORDER BY count DESC, e.id
  RETURN collect({id: substring(e.id, cut), name: e.name, type: e.type, count: count})
    AS entities
}
RETURN d.collection AS collection, substring(d.id, cut) AS id, d.title AS title, d.uri AS uri,
       d.source AS source, d.source_type AS source_type, d.folder AS folder, d.tags AS tags,
       d.identifiers AS identifiers, d.n_tokens AS n_tokens, d.content_hash AS content_hash,
       d.modified AS modified, coalesce(d.n_pages, 0) AS n_pages,
       d.ocr_confidence AS ocr_confidence, coalesce(d.language, 'en') AS language, chunks, links,
       entities;
