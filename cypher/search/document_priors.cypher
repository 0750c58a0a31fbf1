// Query-independent document priors that fusion may use: PageRank over the document link graph
// (`anchorgraph graph pagerank` writes it; 0.0 where it has not run).
// Parameters: $document_ids. Returns: document_id, pagerank.
UNWIND $document_ids AS id
MATCH (d:Document {id: id})
RETURN d.id AS document_id, coalesce(d.pagerank, 0.0) AS pagerank;
