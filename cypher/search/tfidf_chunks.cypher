// Classic TF-IDF path over the graph's own inverted index, (:Chunk)-[:HAS_TERM {tf}]->(:Term):
// score(c) = Σ_t (1 + ln tf(t,c)) · (ln((1 + N) / (1 + df(t))) + 1), no length normalisation
// (sublinear tf, Salton & Buckley 1988; smoothed idf as in scikit-learn). N and df are counted
// live (count store and node degree), so the weights stay right as documents come and go.
// Common terms (df > $common_fraction · N) only add their weight to chunks that a rarer query
// term found, as Lucene's CommonTermsQuery does: the search never walks the posting list of a
// word a large share of the corpus uses. When every query term is common, all of them find.
// Parameters: $terms (distinct query terms), $common_fraction, $k, $allowed (document ids, or
// null). Returns: chunk_id, document_id, score.
MATCH (every:Chunk)
WITH count(every) AS n
UNWIND $terms AS text
MATCH (t:Term {text: text})
WITH n, t, COUNT { (t)<-[:HAS_TERM]-() } AS df
WITH n, collect({term: t, common: df > $common_fraction * n,
                 idf: log((1.0 + n) / (1.0 + df)) + 1.0}) AS weighted
WITH weighted, all(w IN weighted WHERE w.common) AS only_common
WITH [w IN weighted WHERE only_common OR NOT w.common] AS finders,
     [w IN weighted WHERE w.common AND NOT only_common] AS boosters
UNWIND finders AS finder
WITH boosters, finder.term AS t, finder.idf AS idf
MATCH (c:Chunk)-[h:HAS_TERM]->(t)
WHERE $allowed IS NULL OR c.document_id IN $allowed
WITH boosters, c, sum((1.0 + log(h.tf)) * idf) AS found
CALL (c, boosters) {
  UNWIND boosters AS booster
  WITH booster.term AS t, booster.idf AS idf
  MATCH (c)-[h:HAS_TERM]->(t)
  RETURN sum((1.0 + log(h.tf)) * idf) AS boosted
}
RETURN c.id AS chunk_id, c.document_id AS document_id, found + boosted AS score
ORDER BY score DESC, chunk_id
LIMIT $k;
