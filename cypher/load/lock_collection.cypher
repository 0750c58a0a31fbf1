// First statement of every write into a collection: create the (:Collection) when it is new, in
// the shard given (free_shard.cypher), and take its write lock (SET on the node) for the rest of
// the transaction. Writes into one collection therefore commit one after the other, so its
// document and chunk counts and its FD* bin statistics, which they add to
// (count_collection.cypher, fd/count_documents.cypher), never lose an update; writes into other
// collections do not wait. A new collection is marked as having its entities' keys without
// accents, which ingestion writes (never unkeyed for upgrade/pending.cypher), and as holding no
// link or mention yet (create_links.cypher and create_mentions.cypher mark the
// first; a search's expansion reads neither where there are none, retrieval/expansion.py), and
// as bridged under $bridge_bound (its entity bridges are kept current from its first write on,
// load/refresh_bridges.cypher; never pending for upgrade/mark_bridged.cypher).
// The collection records the model its vectors come from (embedding_model), on its first write
// with a model named; the caller refuses a write with another (loaders/graph_writer.py), which
// rolls this back.
// Parameters: $collection (a valid name, service/scope.py), $shard (for a new collection),
// $model (the writer's embedding model; null: record none), $bridge_bound (integer:
// graph/bounds.py BRIDGED_MENTIONS).
// Returns: shard (the collection's; null for one written before shards, not upgraded yet),
// model (the model it records now; null: none recorded).
MERGE (c:Collection {name: $collection})
ON CREATE SET c.created = datetime(), c.documents = 0, c.chunks = 0, c.shard = $shard,
              c.accent_keys = true, c.has_links = false, c.has_mentions = false,
              c.bridge_bound = $bridge_bound
SET c.writing = true, c.embedding_model = coalesce(c.embedding_model, $model)
RETURN c.shard AS shard, c.embedding_model AS model;
