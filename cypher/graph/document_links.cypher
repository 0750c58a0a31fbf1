// The document link graph of a collection (service/link_graph.py): every document, with the
// documents its chunks link to (links never leave their collection). A link to a chunk counts
// for that chunk's document; links to Unresolved placeholders (not ingested, or outside the
// corpus) and links within a document are left out, so isolated documents are rows with no links.
// Parameters: $collection.
// Returns: id (within the collection), title ('' when none), links (list of {target: document
// id, links: how many LINKS_TO lead there}, by target); one row per document, by id.
MATCH (d:Document)
WHERE d.collection = $collection
WITH d, size($collection) + 1 AS cut
CALL (d, cut) {
  OPTIONAL MATCH (d)-[:HAS_CHUNK]->(:Chunk)-[:LINKS_TO]->(t)
  WHERE t:Document OR t:Chunk
  WITH d, CASE WHEN t:Chunk THEN t.document_id ELSE t.id END AS target
  WHERE target IS NOT NULL AND target <> d.id
  WITH target, count(*) AS links
  ORDER BY target
  RETURN collect({target: substring(target, cut), links: links}) AS links
}
RETURN substring(d.id, cut) AS id, coalesce(d.title, '') AS title, links
ORDER BY id;
