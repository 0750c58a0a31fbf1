// The uniqueness constraints of graphs written before collections that would forbid two
// collections the same folder, tag, index term or FD* statistics: constraints.cypher makes them
// unique per collection instead. Run before the schema is applied.
// Parameters: none. Returns: nothing. Idempotent (IF EXISTS); statements end with ';'.
DROP CONSTRAINT folder_path IF EXISTS;
DROP CONSTRAINT tag_name IF EXISTS;
DROP CONSTRAINT term_text IF EXISTS;
DROP CONSTRAINT fd_stats_id IF EXISTS;
