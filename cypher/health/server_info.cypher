// Server name, version and edition, for GET /health.
// Parameters: none. Returns: name, version, edition (one row).
CALL dbms.components() YIELD name, versions, edition
RETURN name, versions[0] AS version, edition
LIMIT 1;
