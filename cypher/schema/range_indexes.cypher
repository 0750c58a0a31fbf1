// Range indexes behind filters, link resolution, deletes and the collection a node belongs to.
// Parameters: none. Returns: nothing. Idempotent (IF NOT EXISTS); statements end with ';'.
CREATE INDEX document_collection IF NOT EXISTS FOR (d:Document) ON (d.collection);
CREATE INDEX document_uri IF NOT EXISTS FOR (d:Document) ON (d.uri);
CREATE INDEX document_source IF NOT EXISTS FOR (d:Document) ON (d.source);
CREATE INDEX document_source_type IF NOT EXISTS FOR (d:Document) ON (d.source_type);
CREATE INDEX document_folder IF NOT EXISTS FOR (d:Document) ON (d.folder);
CREATE INDEX chunk_collection IF NOT EXISTS FOR (c:Chunk) ON (c.collection);
CREATE INDEX chunk_document IF NOT EXISTS FOR (c:Chunk) ON (c.document_id);
CREATE INDEX entity_collection IF NOT EXISTS FOR (e:Entity) ON (e.collection);
CREATE INDEX relates_chunk IF NOT EXISTS FOR ()-[r:RELATES]-() ON (r.chunk_id);
CREATE INDEX relates_document IF NOT EXISTS FOR ()-[r:RELATES]-() ON (r.document_id);
