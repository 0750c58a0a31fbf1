// Write the FD* statistics of a refit: one (:FdStats) per level and bin with the level's bounds,
// the bin's n, total and total_sq of fd_raw, and the size of the corpus it was fitted to
// (fitted_n: refit_if_drifted compares changes since then against it); changes start at 0.
// Parameters: $collection, $bins (list of {level: 'chunk' | 'document', bin, lower, upper, n, total, total_sq,
// fitted_n}). Returns: nothing.
UNWIND $bins AS row
MERGE (s:FdStats {collection: $collection, id: row.level + ':' + row.bin})
SET s.level = row.level, s.bin = row.bin, s.lower = row.lower, s.upper = row.upper,
    s.n = row.n, s.total = row.total, s.total_sq = row.total_sq, s.fitted_n = row.fitted_n,
    s.changes = 0;
