// A collection's FD* length-bin statistics, as Browser shows them: MATCH (s:FdStats) RETURN s.
// Parameters: $collection. Returns: collection, level, bin, lower, upper, n, total, total_sq,
// changes, fitted_n (one row per level and bin; none on a collection never fitted).
MATCH (s:FdStats {collection: $collection})
RETURN s.collection AS collection, s.level AS level, s.bin AS bin, s.lower AS lower,
       s.upper AS upper, s.n AS n, s.total AS total, s.total_sq AS total_sq,
       s.changes AS changes, s.fitted_n AS fitted_n
ORDER BY level, CASE s.bin WHEN 'short' THEN 0 WHEN 'medium' THEN 1 ELSE 2 END;
