// Remove the FD* statistics of levels that have no nodes left (the refit of an emptied corpus).
// Parameters: $collection, $levels (list of 'chunk' | 'document'). Returns: nothing.
MATCH (s:FdStats {collection: $collection})
WHERE s.level IN $levels
DELETE s;
