// Store PageRank over a collection's document link graph as a query-independent document prior
// (`anchorgraph graph pagerank`, service/link_graph.py); fusion may read it
// (search/document_priors.cypher). One batch of a run; the caller sends every document.
// Parameters: $collection, $scores (list of {id (within the collection), pagerank: float, rank:
// int, 1 = highest}). Returns: written (documents updated by this batch).
UNWIND $scores AS row
MATCH (d:Document {id: $collection + '/' + row.id})
SET d.pagerank = row.pagerank, d.pagerank_rank = row.rank
RETURN count(d) AS written;
