// Lucene full-text indexes: chunk text and whole document text (the BM25 paths), document
// titles, entity names and aliases.
// Parameters: none. Returns: nothing. Idempotent (IF NOT EXISTS); statements end with ';'.
// 'english' stems and drops stop words, which suits prose search over chunk text; names keep
// every token ('standard-no-stop-words') so short acronyms and codes stay findable.
CREATE FULLTEXT INDEX chunk_text IF NOT EXISTS FOR (c:Chunk) ON EACH [c.text]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}};
CREATE FULLTEXT INDEX document_text IF NOT EXISTS FOR (d:Document) ON EACH [d.text]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}};
CREATE FULLTEXT INDEX document_title IF NOT EXISTS FOR (d:Document) ON EACH [d.title]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-no-stop-words'}};
CREATE FULLTEXT INDEX entity_name IF NOT EXISTS FOR (e:Entity) ON EACH [e.name, e.alias_text]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-no-stop-words'}};
