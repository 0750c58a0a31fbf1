// Remove the FD* statistics of levels that have no nodes left (the refit of an emptied corpus).
// Parameters: $levels (list of 'chunk' | 'document'). Returns: nothing.
MATCH (s:FdStats)
WHERE s.level IN $levels
DELETE s;
