// Classic TF-IDF path over the graph's own inverted index, (:Chunk)-[:HAS_TERM {tf}]->(:Term):
// score(c) = Σ_t (1 + ln tf(t,c)) · (ln((1 + N) / (1 + df(t))) + 1), no length normalisation
// (sublinear tf, Salton & Buckley 1988; smoothed idf as in scikit-learn). N and df are counted
// live (count store and node degree), so the weights stay right as documents come and go.
// Parameters: $terms (distinct query terms), $k, $allowed (document ids, or null).
// Returns: chunk_id, document_id, score.
MATCH (every:Chunk)
WITH count(every) AS n
UNWIND $terms AS text
MATCH (t:Term {text: text})
WITH n, t, log((1.0 + n) / (1.0 + COUNT { (t)<-[:HAS_TERM]-() })) + 1.0 AS idf
MATCH (c:Chunk)-[h:HAS_TERM]->(t)
WHERE $allowed IS NULL OR c.document_id IN $allowed
WITH c, sum((1.0 + log(h.tf)) * idf) AS score
RETURN c.id AS chunk_id, c.document_id AS document_id, score
ORDER BY score DESC, chunk_id
LIMIT $k;
