// Whether the graph was written before collections: some node that belongs to a collection has
// none yet (the upgrade, cypher/upgrade/collections.cypher, gives them all one).
// Parameters: none. Returns: needed (boolean, one row).
RETURN EXISTS { MATCH (d:Document) WHERE d.collection IS NULL }
    OR EXISTS { MATCH (c:Chunk) WHERE c.collection IS NULL }
    OR EXISTS { MATCH (e:Entity) WHERE e.collection IS NULL }
    OR EXISTS { MATCH (f:Folder) WHERE f.collection IS NULL }
    OR EXISTS { MATCH (t:Term) WHERE t.collection IS NULL }
    OR EXISTS { MATCH (s:FdStats) WHERE s.collection IS NULL } AS needed;
