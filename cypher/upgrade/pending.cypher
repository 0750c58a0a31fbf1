// What an earlier version left to upgrade, in one read: every writer reads it as it starts, when
// a server just started takes up to 0.5 s to plan each statement it has not seen.
// - collections_needed: some node that belongs to a collection has none yet, written before
//   collections (upgrade/collections.cypher gives them all one);
// - unsharded: collections written before shards (service/graph/shards.py), whose chunks and
//   documents have no shard label (upgrade/shard_collection.cypher gives each one);
// - unkeyed: collections written before entities had keys without accents
//   (service/text/identifiers.py, entity_keys; upgrade/accented_entities.cypher and
//   add_alias_keys.cypher add them; a collection created since is marked at creation,
//   load/lock_collection.cypher);
// - unmarked: some collection is not yet marked as holding links or mentions or not
//   (upgrade/graph_marks.cypher marks them);
// - unbridged: collections whose entity bridges were never built, or built under another bound
//   than $bound (graph/bridges.py bridge_collection builds them; upgrade/mark_bridged.cypher).
// Parameters: $bound (integer: graph/bounds.py BRIDGED_MENTIONS). Returns: collections_needed
// (boolean), unsharded (list of names, sorted), unkeyed (list of names, sorted), unmarked
// (boolean), unbridged (list of names, sorted); one row.
RETURN EXISTS { MATCH (d:Document) WHERE d.collection IS NULL }
    OR EXISTS { MATCH (c:Chunk) WHERE c.collection IS NULL }
    OR EXISTS { MATCH (e:Entity) WHERE e.collection IS NULL }
    OR EXISTS { MATCH (f:Folder) WHERE f.collection IS NULL }
    OR EXISTS { MATCH (t:Term) WHERE t.collection IS NULL }
    OR EXISTS { MATCH (s:FdStats) WHERE s.collection IS NULL } AS collections_needed,
  COLLECT { MATCH (c:Collection) WHERE c.shard IS NULL RETURN c.name ORDER BY c.name }
    AS unsharded,
  COLLECT { MATCH (c:Collection) WHERE c.accent_keys IS NULL RETURN c.name ORDER BY c.name }
    AS unkeyed,
  EXISTS { MATCH (c:Collection) WHERE c.has_links IS NULL OR c.has_mentions IS NULL }
    AS unmarked,
  COLLECT { MATCH (c:Collection) WHERE coalesce(c.bridge_bound, -1) <> $bound
            RETURN c.name ORDER BY c.name } AS unbridged;
