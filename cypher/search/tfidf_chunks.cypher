// Classic TF-IDF path over each collection's own inverted index, (:Chunk)-[:HAS_TERM {tf}]->
// (:Term {collection}): score(c) = Σ_t (1 + ln tf(t,c)) · (ln((1 + N) / (1 + df(t))) + 1), no
// length normalisation (sublinear tf, Salton & Buckley 1988; smoothed idf as in scikit-learn).
// N is the chunk's collection's size (kept by every write, load/count_collection.cypher) and df
// the term's degree there, so a collection's weights are its own and stay right as documents
// come and go.
// A posting without tf has tf 1 (create_chunks.cypher stores it only above 1).
// Which terms walk their posting lists ("finders"), rarest first: a term in more than
// $common_fraction · N chunks never does unless every query term is that common (Lucene's
// CommonTermsQuery), and a term finds only while the postings walked so far, its own included,
// stay within $max_postings, the rarest too: so the walk is bounded whatever the collection's
// size. A query whose rarest term alone is in more than $max_postings chunks finds nothing here
// (the BM25 path, whose Lucene index skips through long postings, still answers it). Without
// the budget on the rarest term, the queries of common words only (11 % of them) walk up to
// about 349,000 postings at a million generated chunks; 10,000 changes no query of the dev
// splits (benchmarks/tfidf_budget.py; docs/benchmarks.md, "Budgets of the paths"). The other terms
// ("boosters") only add their weight to the $boost_pool chunks the finders scored best; a
// booster's idf is the lowest, so it rarely lifts a chunk from further down into the top $k.
// Each collection searched does this on its own; their best chunks are then ranked together.
// A pool chunk's postings are walked once for all the boosters, not once per booster: asking
// for (c)-[:HAS_TERM]->(t) with both ends bound walks c's whole relationship chain each time
// (~60 relationships a chunk): on SciFact train 39,000 db hits at the median per statement
// against 9,600 walked once, a quarter of its p50 (docs/benchmarks.md, "Budgets of the paths").
// The booster terms are listed once per chunk, not once per relationship walked. The boosters'
// weights are added in the boosters' own order, so every score is the same to the last bit
// as a walk per booster gives.
// Parameters: $terms (distinct query terms), $common_fraction, $max_postings, $boost_pool
// (at least $k), $k, $collections (names, or null for every one), $allowed (document keys, or
// null).
// Returns: one row, candidates: a list of {chunk_id, document_id, score}, best first (one list
// rather than a row per candidate: the driver decodes it in a third of the CPU time).
MATCH (col:Collection)
WHERE $collections IS NULL OR col.name IN $collections
CALL (col) {
  UNWIND $terms AS text
  MATCH (t:Term {collection: col.name, text: text})
  WITH col.chunks AS n, t, COUNT { (t)<-[:HAS_TERM]-() } AS df
  ORDER BY df, t.text
  WITH n, collect({term: t, df: df, idf: log((1.0 + n) / (1.0 + df)) + 1.0}) AS weighted
  WITH n, weighted, none(w IN weighted WHERE w.df <= $common_fraction * n) AS only_common
  WITH weighted, [i IN range(0, size(weighted) - 1)
    WHERE (only_common OR weighted[i].df <= $common_fraction * n)
      AND reduce(walked = 0, w IN weighted[..i + 1] | walked + w.df) <= $max_postings]
    AS finding
  WITH [i IN finding | weighted[i]] AS finders,
       [i IN range(0, size(weighted) - 1) WHERE NOT i IN finding | weighted[i]] AS boosters
  UNWIND finders AS finder
  WITH boosters, finder.term AS t, finder.idf AS idf
  MATCH (c:Chunk)-[h:HAS_TERM]->(t)
  WHERE $allowed IS NULL OR c.document_id IN $allowed
  WITH boosters, c, sum((1.0 + log(coalesce(h.tf, 1))) * idf) AS found
  ORDER BY found DESC, c.id
  LIMIT $boost_pool
  CALL (c, boosters) {
    WITH c, boosters, [booster IN boosters | booster.term] AS terms WHERE terms <> []
    MATCH (c)-[h:HAS_TERM]->(t)
    WHERE t IN terms
    WITH boosters, collect([t, coalesce(h.tf, 1)]) AS postings
    UNWIND boosters AS booster
    WITH booster, [p IN postings WHERE p[0] = booster.term] AS posting
    WHERE posting <> []
    RETURN sum((1.0 + log(posting[0][1])) * booster.idf) AS boosted
  }
  RETURN c.id AS chunk_id, c.document_id AS document_id, found + boosted AS score
}
WITH chunk_id, document_id, score
ORDER BY score DESC, chunk_id
LIMIT $k
RETURN collect({chunk_id: chunk_id, document_id: document_id, score: score}) AS candidates;
