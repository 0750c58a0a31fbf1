// Guide: A document's chunks and links
// A document with its chunks in reading order (HAS_CHUNK, NEXT) and where each chunk's links
// go (LINKS_TO, captioned with the anchor text): another document, a chunk its fragment names,
// or an (:Unresolved) placeholder for a target not ingested yet. A link to a chunk shows that
// chunk's document too.
// Parameters: $document_id (a document's key: its collection, '/', its id).
// Returns: chunks (paths document → chunk), reading (chunk → next chunk), links (chunk → link
// target), owners (target chunk's document → target chunk); null where a chunk has none.
// Example: {"document_id": "sample/timeline.md"}
MATCH chunks = (d:Document {id: $document_id})-[:HAS_CHUNK]->(c:Chunk)
OPTIONAL MATCH reading = (c)-[:NEXT]->(:Chunk)
OPTIONAL MATCH links = (c)-[:LINKS_TO]->(target)
OPTIONAL MATCH owners = (:Document)-[:HAS_CHUNK]->(target:Chunk)
RETURN chunks, reading, links, owners
ORDER BY c.ordinal;
