// Record one relevance judgment: a person (or a qrels file) says whether a document answers a
// query. One judgment per (collection, query, document): judging again replaces the relevance.
// The judgment hangs from the document it judges, so Browser shows what was judged relevant.
// Parameters: $collection, $query (the query's text, as searched), $document (the document's
// key, service/scope.py), $relevance (0: not relevant; 1 or more: relevant, graded).
// Returns: document_id (within the collection), relevance, created, updated; no row when the
// collection has no such document.
MATCH (d:Document {id: $document})
MERGE (j:Judgment {collection: $collection, query: $query, document: $document})
ON CREATE SET j.created = datetime()
SET j.relevance = $relevance, j.updated = datetime()
MERGE (j)-[:JUDGES]->(d)
RETURN substring(d.id, size($collection) + 1) AS document_id, j.relevance AS relevance,
       j.created AS created, j.updated AS updated;
