// Guide: What the graph holds
// How many nodes of each label the graph holds, largest first: documents and their chunks,
// the entities the chunks mention, the claims behind FD*, the folders and tags documents are
// filed under, and the terms of the TF-IDF index.
// Parameters: none.
// Returns: label, nodes (a row per label, the most frequent first).
MATCH (n)
UNWIND labels(n) AS label
RETURN label, count(*) AS nodes
ORDER BY nodes DESC, label;
