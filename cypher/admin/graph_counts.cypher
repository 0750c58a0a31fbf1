// The size of the graph in the evaluation's terms, from the count store (no scan): recorded in
// an evaluation's setup, and checked by the tuning cache against the corpus.
// Parameters: none. Returns: documents, chunks, entities, triples (one row).
RETURN COUNT { (:Document) } AS documents, COUNT { (:Chunk) } AS chunks,
       COUNT { (:Entity) } AS entities, COUNT { ()-[:RELATES]->() } AS triples;
