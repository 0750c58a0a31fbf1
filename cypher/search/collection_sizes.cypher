// Every collection with its number of chunks (kept by every write, load/count_collection.cypher),
// its shard and the languages of its documents: which collections a search may read, their part of the graph and of their
// shards, by which the indexes that cannot filter inside themselves are chosen and asked for more
// hits (service/retrieval/paths.py), whether a query needs its language detected, and the
// collection's own fusion weights (anchorgraph tune), and whether it holds links and entity
// mentions, without which a search's expansion has nothing to read (retrieval/expansion.py), and
// the embedding model it records (load/lock_collection.cypher), which a query must be embedded
// with.
// Parameters: none. Returns: name, chunks, shard (null before the upgrade), languages (a list of
// [ISO 639-1 code, documents]; [] for a collection written before languages: English), ranking
// (its CollectionRanking as JSON, or null), has_links and has_mentions (true where not marked
// yet: upgrade/graph_marks.cypher marks them), model (null: none recorded); one row per
// collection, by name.
MATCH (c:Collection)
RETURN c.name AS name, coalesce(c.chunks, 0) AS chunks, c.shard AS shard,
       [key IN keys(c) WHERE key STARTS WITH 'documents_' AND c[key] > 0
        | [substring(key, 10), c[key]]] AS languages, c.ranking AS ranking,
       coalesce(c.has_links, true) AS has_links, coalesce(c.has_mentions, true) AS has_mentions,
       c.embedding_model AS model
ORDER BY name;
