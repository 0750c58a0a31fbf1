// Set a_source, the authority FD* multiplies a source type's z-scores by, with why it was chosen.
// Parameters: $authorities (list of {source_type, a_source, reason}). Returns: nothing.
UNWIND $authorities AS row
MERGE (a:SourceAuthority {source_type: row.source_type})
SET a.a_source = row.a_source, a.reason = row.reason;
