// Last statement of every write into a collection: add what it changed to the collection's
// document and chunk counts (what TF-IDF's N and GET /collections read) and to its documents per
// language (documents_en, documents_pt, ...: which languages a query there may be in,
// service/text/language.py), and release the mark lock_collection.cypher set (the lock itself
// ends with the transaction).
// Parameters: $collection, $documents, $chunks (changes, negative for removals),
// $language_changes (list of {language: ISO 639-1 code, change}). Returns: nothing.
MATCH (c:Collection {name: $collection})
SET c.documents = c.documents + $documents, c.chunks = c.chunks + $chunks
WITH c
CALL (c) {
  UNWIND $language_changes AS row
  WITH c, 'documents_' + row.language AS key, row.change AS change
  SET c[key] = coalesce(c[key], 0) + change
}
REMOVE c.writing;
