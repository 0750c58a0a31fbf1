// Every source type's a_source (types without a (:SourceAuthority) count 1.0).
// Parameters: none. Returns: source_type, a_source, reason.
MATCH (a:SourceAuthority)
RETURN a.source_type AS source_type, a.a_source AS a_source, coalesce(a.reason, '') AS reason
ORDER BY source_type;
