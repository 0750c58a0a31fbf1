// Which of the given document keys a collection holds (judgments from a qrels file may name
// documents that were never ingested).
// Parameters: $documents (document keys, service/scope.py). Returns: id (the key), one row per
// document found.
MATCH (d:Document)
WHERE d.id IN $documents
RETURN d.id AS id;
