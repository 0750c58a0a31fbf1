// Uniqueness constraints on every stable id (each also gives the lookup index MERGE needs).
// Parameters: none. Returns: nothing. Idempotent (IF NOT EXISTS); statements end with ';'.
CREATE CONSTRAINT document_id IF NOT EXISTS FOR (d:Document) REQUIRE d.id IS UNIQUE;
CREATE CONSTRAINT chunk_id IF NOT EXISTS FOR (c:Chunk) REQUIRE c.id IS UNIQUE;
CREATE CONSTRAINT entity_id IF NOT EXISTS FOR (e:Entity) REQUIRE e.id IS UNIQUE;
CREATE CONSTRAINT alias_key IF NOT EXISTS FOR (a:Alias) REQUIRE a.key IS UNIQUE;
CREATE CONSTRAINT claim_id IF NOT EXISTS FOR (c:Claim) REQUIRE c.id IS UNIQUE;
CREATE CONSTRAINT folder_path IF NOT EXISTS FOR (f:Folder) REQUIRE f.path IS UNIQUE;
CREATE CONSTRAINT tag_name IF NOT EXISTS FOR (t:Tag) REQUIRE t.name IS UNIQUE;
CREATE CONSTRAINT term_text IF NOT EXISTS FOR (t:Term) REQUIRE t.text IS UNIQUE;
CREATE CONSTRAINT unresolved_key IF NOT EXISTS FOR (u:Unresolved) REQUIRE u.key IS UNIQUE;
CREATE CONSTRAINT fd_stats_id IF NOT EXISTS FOR (s:FdStats) REQUIRE s.id IS UNIQUE;
CREATE CONSTRAINT source_authority_type IF NOT EXISTS FOR (a:SourceAuthority) REQUIRE a.source_type IS UNIQUE;
