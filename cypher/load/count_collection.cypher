// Last statement of every write into a collection: add what it changed to the collection's
// document and chunk counts (what TF-IDF's N and GET /collections read) and the languages it
// wrote to those it holds (whether a query needs its language detected: service/text/language.py;
// a deletion leaves them, which costs at most a detection), and release the mark
// lock_collection.cypher set (the lock itself ends with the transaction).
// Parameters: $collection, $documents, $chunks (changes, negative for removals), $languages
// (ISO 639-1 codes of the documents written, [] for a removal). Returns: nothing.
MATCH (c:Collection {name: $collection})
SET c.documents = c.documents + $documents, c.chunks = c.chunks + $chunks,
    c.languages = COLLECT {
      UNWIND coalesce(c.languages, []) + $languages AS language
      RETURN DISTINCT language ORDER BY language
    }
REMOVE c.writing;
