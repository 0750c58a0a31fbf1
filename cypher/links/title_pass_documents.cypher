// The title-link pass over an existing collection (loaders/title_pass.py): every document of it
// with its chunks and the links its own text wrote. A chunk's text is its document's text between
// start and end, so the pass rebuilds the text from them; title links (href ending with $mark)
// are left out, since the pass makes them again.
// Parameters: $collection, $mark (anchorgraph.loaders.title_links.TITLE_LINK_MARK).
// Returns: id (key), title ('' when none), chunks (list of {id (key), start, end, text}, in
// reading order), written (list of {chunk_id (key), anchor_text, target: the linked document's
// key, or the placeholder's}); one row per document, by id.
MATCH (d:Document)
WHERE d.collection = $collection
CALL (d) {
  MATCH (d)-[:HAS_CHUNK]->(c:Chunk)
  WITH c
  ORDER BY c.ordinal
  RETURN collect({id: c.id, start: c.start, end: c.end, text: c.text}) AS chunks
}
CALL (d) {
  MATCH (d)-[:HAS_CHUNK]->(c:Chunk)-[l:LINKS_TO]->(t)
  WHERE NOT l.href ENDS WITH $mark
  RETURN collect({
    chunk_id: c.id, anchor_text: coalesce(l.anchor_text, ''),
    target: CASE WHEN t:Chunk THEN t.document_id WHEN t:Document THEN t.id ELSE t.key END
  }) AS written
}
RETURN d.id AS id, coalesce(d.title, '') AS title, chunks, written
ORDER BY id;
