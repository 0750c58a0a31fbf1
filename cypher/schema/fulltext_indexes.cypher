// Lucene full-text indexes: chunk text and whole document text (the BM25 paths), document
// titles, entity names and aliases.
// Parameters: none. Returns: nothing. Idempotent (IF NOT EXISTS); statements end with ';'.
// 'english' stems and drops stop words, which suits prose search over chunk text; names keep
// every token ('standard-no-stop-words') so short acronyms and codes stay findable. The English
// indexes hold every chunk and document; those in Portuguese and Italian are also in indexes of
// their language's analyzer, over their language's labels (service/text/language.py), which a
// query in that language reads.
CREATE FULLTEXT INDEX chunk_text IF NOT EXISTS FOR (c:Chunk) ON EACH [c.text]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}};
CREATE FULLTEXT INDEX document_text IF NOT EXISTS FOR (d:Document) ON EACH [d.text]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}};
CREATE FULLTEXT INDEX document_title IF NOT EXISTS FOR (d:Document) ON EACH [d.title]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-no-stop-words'}};
CREATE FULLTEXT INDEX entity_name IF NOT EXISTS FOR (e:Entity) ON EACH [e.name, e.alias_text]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-no-stop-words'}};
CREATE FULLTEXT INDEX chunk_text_portuguese IF NOT EXISTS FOR (c:PortugueseChunk) ON EACH [c.text]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'portuguese'}};
CREATE FULLTEXT INDEX document_text_portuguese IF NOT EXISTS
FOR (d:PortugueseDocument) ON EACH [d.text]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'portuguese'}};
CREATE FULLTEXT INDEX chunk_text_italian IF NOT EXISTS FOR (c:ItalianChunk) ON EACH [c.text]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'italian'}};
CREATE FULLTEXT INDEX document_text_italian IF NOT EXISTS FOR (d:ItalianDocument) ON EACH [d.text]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'italian'}};
