// Uniqueness constraints on every stable id (each also gives the lookup index MERGE needs).
// Documents, chunks, entities, claims, alias keys and link placeholders are stored under keys
// that start with their collection ('wiki/README.md', service/scope.py), so one property is
// unique; folders, tags, index terms and FD* statistics keep their readable names and are
// unique per collection (composite uniqueness, which Community Edition has).
// Parameters: none. Returns: nothing. Idempotent (IF NOT EXISTS); statements end with ';'.
CREATE CONSTRAINT collection_name IF NOT EXISTS FOR (c:Collection) REQUIRE c.name IS UNIQUE;
CREATE CONSTRAINT document_id IF NOT EXISTS FOR (d:Document) REQUIRE d.id IS UNIQUE;
CREATE CONSTRAINT chunk_id IF NOT EXISTS FOR (c:Chunk) REQUIRE c.id IS UNIQUE;
CREATE CONSTRAINT entity_id IF NOT EXISTS FOR (e:Entity) REQUIRE e.id IS UNIQUE;
CREATE CONSTRAINT alias_key IF NOT EXISTS FOR (a:Alias) REQUIRE a.key IS UNIQUE;
CREATE CONSTRAINT claim_id IF NOT EXISTS FOR (c:Claim) REQUIRE c.id IS UNIQUE;
CREATE CONSTRAINT unresolved_key IF NOT EXISTS FOR (u:Unresolved) REQUIRE u.key IS UNIQUE;
CREATE CONSTRAINT folder_in_collection IF NOT EXISTS FOR (f:Folder) REQUIRE (f.collection, f.path) IS UNIQUE;
CREATE CONSTRAINT tag_in_collection IF NOT EXISTS FOR (t:Tag) REQUIRE (t.collection, t.name) IS UNIQUE;
CREATE CONSTRAINT term_in_collection IF NOT EXISTS FOR (t:Term) REQUIRE (t.collection, t.text) IS UNIQUE;
CREATE CONSTRAINT fd_stats_in_collection IF NOT EXISTS FOR (s:FdStats) REQUIRE (s.collection, s.id) IS UNIQUE;
CREATE CONSTRAINT judgment_in_collection IF NOT EXISTS FOR (j:Judgment) REQUIRE (j.collection, j.query, j.document) IS UNIQUE;
CREATE CONSTRAINT source_authority_type IF NOT EXISTS FOR (a:SourceAuthority) REQUIRE a.source_type IS UNIQUE;
