// Collections written before they were marked as holding links or mentions (has_links,
// has_mentions: load/lock_collection.cypher, load/create_links.cypher,
// load/create_mentions.cypher): marked from what they hold, once. A search's expansion reads
// links and bridges only in collections marked so (service/retrieval/expansion.py); an unmarked
// one is read as holding both until this has run.
// Parameters: none. Returns: nothing.
MATCH (c:Collection)
WHERE c.has_links IS NULL OR c.has_mentions IS NULL
SET c.has_links = EXISTS {
      MATCH (:Chunk {collection: c.name})-[l:LINKS_TO]->()
      WHERE l.context_embedding IS NOT NULL
    },
    c.has_mentions = EXISTS { MATCH (:Chunk {collection: c.name})-[:MENTIONS]->() };
