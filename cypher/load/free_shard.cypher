// The shard a new collection gets: the one the fewest collections use, the lowest of those
// (service/graph/shards.py). Read in the writing transaction just before lock_collection.cypher;
// two collections created at the same moment may get the same shard, which only makes them share.
// Parameters: $shards (how many there are). Returns: shard (one row).
UNWIND range(0, $shards - 1) AS shard
WITH shard, COUNT { MATCH (c:Collection) WHERE c.shard = shard } AS used
RETURN shard
ORDER BY used, shard
LIMIT 1;
