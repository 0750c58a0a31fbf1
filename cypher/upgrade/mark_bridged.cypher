// Mark a collection as bridged: every entity bridge its entities give under $bound is in the graph
// (graph/bridges.py bridge_collection, once it has refreshed them all). upgrade/pending.cypher
// lists the collections not marked with the bound in force; a collection created since is marked
// at creation (load/lock_collection.cypher), and each write keeps its bridges current.
// Parameters: $collection, $bound (integer). Returns: nothing.
MATCH (c:Collection {name: $collection})
SET c.bridge_bound = $bound;
