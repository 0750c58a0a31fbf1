// Remove the given index terms of a collection when no chunk uses them any more (the chunks that
// did were replaced or deleted). Only the terms of the removed chunks can have been emptied, so
// only those are checked; document frequencies (term degrees) are unaffected.
// Parameters: $collection, $texts (list of term texts, from delete_document_content.cypher).
// Returns: deleted (count).
UNWIND $texts AS text
MATCH (t:Term {collection: $collection, text: text})
WHERE NOT EXISTS { (t)<-[:HAS_TERM]-() }
DELETE t
RETURN count(*) AS deleted;
