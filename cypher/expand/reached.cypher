// The expansion's one read (service/retrieval/expansion.py): every hop reached from the given
// chunks within $depth hops, for the whole answer, of two kinds:
// - a link (kind 'link', with $links): a LINKS_TO out of the chunk. It lands on the chunk it
//   names (the heading's chunk for a fragment link) or, when it names a whole document, on that
//   document's chunk most similar to the anchor context (ties: the smaller id); its validation
//   is 2·cos − 1 of the landing chunk and the anchor context.
// - an entity bridge (kind 'entity', with $entities), out of those $sources none of whose level-1
//   links has a validation of at least $threshold, or out of every one with $beside_links (the
//   expansion follows a chunk's bridges only where none of its links is valid unless told
//   otherwise; reading them for the others was a third of the bridges read on MuSiQue dev,
//   docs/benchmarks.md "Entity bridges"): a BRIDGE the graph keeps (load/refresh_bridges.cypher)
//   for an entity the chunk mentions that at most $max_mentions chunks mention (a specific one:
//   common entities never bridge), to another document's chunk that mentions it too; its
//   validation, stored with it, is 2·cos − 1 of the landing chunk and the chunk the bridge
//   leaves (the context the entity was named in). Of a chunk's bridges with a validation of at
//   least $bridge_threshold, the $fanout closest to the query vector are kept (a chunk naming
//   several entities would otherwise reach dozens); where several entities join the same two
//   chunks, the one fewest chunks mention comes first.
// Level 1 is the links and bridges out of $sources; each next level, the links out of the chunks
// a link of the previous one landed on with a validation of at least $threshold (each chunk
// once, none of $sources).
// Why bridges leave the hits only, and a bridge's landing is a leaf: replayed on the tune parts
// of MuSiQue dev and HotpotQA dev500, neither a bridge out of a landing nor a link out of a
// bridge's landing was ever claimed (a hit's supporting chunks are full at the first level),
// and reading them tripled the statement's time.
// Why bridges are read from the graph rather than joined through the mentions here: that join,
// and the landing chunk's embedding read for each validation, were most of the statement's time
// (docs/benchmarks.md, "The expansion's cost"). Here a landing chunk's embedding is read once per
// answer, for its similarity to the query, and only where a bridge to it passes
// $bridge_threshold.
// Each hop carries its landing chunk's similarity to the query vector (its own similarity to
// the question).
// Why one statement: the levels are computed inside it (reduce over range(1, $depth), each level
// built from the previous one's landings), so the expansion costs one round trip whatever its
// depth and kinds; two reads (one per level) took 1.6 ms p50 against 1.2 ms for one on HotpotQA
// dev500. The hops may include some the registry will not use (a chunk two hits reach);
// service/retrieval/expansion.py decides which count; a link below $threshold is not sent (the
// expansion never follows it).
// Why it hydrates: the same read gives the chunks the search may return, the hits ($hits) and
// every landing of a hop it sends, as search/hydrate_chunks.cypher gives them (texts, titles,
// FD* inputs), so that the expansion costs the search no round trip of its own, and a hop's
// anchor node has its FD* inputs there (every chunk a hop leaves is a hit or a landing). Replayed
// with 60 HotpotQA dev500 answers' parameters: this read 3.9 ms client p50 against 3.0 ms for the
// hops alone plus 2.0 ms for hydrating the hits and their supporting chunks apart.
// Parameters: $sources (chunk ids), $hits (the ranking's chunk ids, $sources among them),
// $depth (1..3), $threshold and $bridge_threshold (validations, -1..1), $links and $entities
// (booleans: the hop kinds followed), $beside_links (boolean: bridges also out of chunks with a
// valid link), $max_mentions (integer, at most the bound bridges are kept under: graph/bounds.py
// BRIDGED_MENTIONS) and $fanout (integer), $vector (the query's embedding).
// Returns: one row. sources: a list with an entry per chunk a hop leaves, by its id (one list
// rather than a row per chunk: replayed with the 500 HotpotQA dev500 and 162 MuSiQue dev
// answers' parameters, the rows the same, the client's p50 fell by 0.24–0.36 ms of ~3.3, the
// driver's work per row): source_id; hops, each a map of kind, href (links; '' for bridges),
// anchor_text (the anchor text, or the entity's name), entity_id (bridges; null for links),
// mentions (chunks mentioning the entity; null for links), landing_id, landing_document_id,
// landing_tokens, validation and query_similarity ((1 + cos)/2 of the landing chunk and
// $vector, as vector.similarity.cosine gives it). Neither the entries nor a chunk's hops are in any
// order: service/retrieval/expansion.py orders a chunk's hops by a key that decides every tie, and
// sorting them here as well took 0.2 ms of a 2.5 ms client p50 (replayed with the 162 MuSiQue dev
// answers' parameters). chunks: an entry per chunk of $hits and per landing of the hops sent,
// found, as search/hydrate_chunks.cypher's chunks (chunk_id, document_id, collection, title,
// text, n_tokens, start, end, pages, ocr_confidence, source_type, a_source, a_max, chunk and
// document, the FD* input maps), in no order.
CALL () {
  OPTIONAL MATCH (top:SourceAuthority)
  RETURN CASE WHEN max(top.a_source) > 1.0 THEN max(top.a_source) ELSE 1.0 END AS a_max
}
WITH a_max, reduce(levels = [], depth IN range(1, $depth) |
  levels + [[edge IN reduce(edges = [], source_id IN
    CASE
      WHEN depth = 1 THEN CASE WHEN $links THEN $sources ELSE [] END
      ELSE reduce(ids = [], e IN last(levels) |
        CASE
          WHEN e.kind <> 'link' OR e.validation < $threshold
            OR e.landing.id IN ids OR e.landing.id IN $sources THEN ids
          ELSE ids + e.landing.id
        END)
    END |
    edges + [(s:Chunk {id: source_id})-[l:LINKS_TO]->(target)
      WHERE $links AND l.context_embedding IS NOT NULL AND (target:Chunk OR target:Document) |
      {kind: 'link', source: s, link: l, name: l.anchor_text, landing: CASE
        WHEN target:Chunk THEN target
        ELSE reduce(best = null, c IN [(target)-[:HAS_CHUNK]->(c:Chunk) | c] |
          CASE
            WHEN best IS NULL THEN c
            WHEN vector.similarity.cosine(c.embedding, l.context_embedding)
                 > vector.similarity.cosine(best.embedding, l.context_embedding) THEN c
            WHEN vector.similarity.cosine(c.embedding, l.context_embedding)
                 = vector.similarity.cosine(best.embedding, l.context_embedding)
                 AND c.id < best.id THEN c
            ELSE best
          END)
      END}]) WHERE edge.landing IS NOT NULL |
    edge {.*, validation:
      2 * vector.similarity.cosine(edge.landing.embedding, edge.link.context_embedding) - 1}]]
) AS levels
CALL (levels) {
  UNWIND CASE WHEN $entities THEN [source_id IN $sources WHERE $beside_links OR none(
    link IN levels[0] WHERE link.source.id = source_id AND link.validation >= $threshold)]
    ELSE [] END AS source_id
  MATCH (s:Chunk {id: source_id})-[b:BRIDGE]->(t:Chunk)
  WHERE b.mentions <= $max_mentions AND b.validation >= $bridge_threshold
  WITH t, collect({source: s, bridge: b}) AS reaches
  WITH t, reaches, vector.similarity.cosine(t.embedding, $vector) AS nearness
  UNWIND reaches AS reach
  WITH reach.source AS s, t, reach.bridge AS b, nearness
  ORDER BY s.id, nearness DESC, t.id, b.mentions, b.entity_id
  WITH s, collect({kind: 'entity', source: s, entity_id: b.entity_id, name: b.name,
                   mentions: b.mentions, landing: t, validation: b.validation,
                   nearness: nearness})[..$fanout] AS found
  RETURN reduce(all = [], edges IN collect(found) | all + edges) AS bridges
}
CALL (levels, bridges) {
  UNWIND levels + [bridges] AS level
  UNWIND level AS edge
  // A link below $threshold is never followed (the expansion skips it): it is not sent.
  WITH edge WHERE edge.kind = 'entity' OR edge.validation >= $threshold
  // One entry per chunk a hop leaves, its hops in a list: an answer's 30–35 hops at the median
  // leave its 10 source chunks (MuSiQue dev, HotpotQA dev500), and a row costs the driver and
  // the runtime more than a list entry.
  WITH edge.source AS s, collect(edge) AS edges
  RETURN collect({
    source_id: s.id,
    hops: [edge IN edges | {
      kind: edge.kind, href: coalesce(edge.link.href, ''),
      anchor_text: coalesce(edge.name, ''), entity_id: edge.entity_id,
      mentions: edge.mentions, landing_id: edge.landing.id,
      landing_document_id: edge.landing.document_id, landing_tokens: edge.landing.n_tokens,
      validation: edge.validation,
      query_similarity: coalesce(edge.nearness,
                                 vector.similarity.cosine(edge.landing.embedding, $vector))
    }]
  }) AS sources
}
// The chunks the search may return, hydrated as search/hydrate_chunks.cypher hydrates them (the
// same projection; tests/integration/test_expansion.py compares the two).
CALL (a_max, sources) {
  UNWIND $hits + reduce(ids = [], source IN sources | ids + [hop IN source.hops | hop.landing_id])
    AS id
  WITH DISTINCT id
  MATCH (d:Document)-[:HAS_CHUNK]->(c:Chunk {id: id})
  OPTIONAL MATCH (csb:FdStats {collection: c.collection, id: 'chunk:short'})
  OPTIONAL MATCH (cs:FdStats {collection: c.collection, id: 'chunk:' + CASE
      WHEN c.n_tokens <= csb.lower THEN 'short'
      WHEN c.n_tokens <= csb.upper THEN 'medium' ELSE 'long' END})
    WHERE c.n_tokens IS NOT NULL
  OPTIONAL MATCH (dsb:FdStats {collection: d.collection, id: 'document:short'})
  OPTIONAL MATCH (ds:FdStats {collection: d.collection, id: 'document:' + CASE
      WHEN d.n_tokens <= dsb.lower THEN 'short'
      WHEN d.n_tokens <= dsb.upper THEN 'medium' ELSE 'long' END})
    WHERE d.n_tokens IS NOT NULL
  OPTIONAL MATCH (a:SourceAuthority {source_type: d.source_type})
  RETURN collect({
    chunk_id: c.id, document_id: d.id, collection: d.collection,
    title: coalesce(d.title, ''), text: c.text, n_tokens: c.n_tokens, start: c.start, end: c.end,
    pages: coalesce(c.pages, []), ocr_confidence: c.ocr_confidence,
    source_type: coalesce(d.source_type, ''), a_source: coalesce(a.a_source, 1.0), a_max: a_max,
    chunk: {fd_raw: coalesce(c.fd_raw, 0.0), n_tokens: c.n_tokens,
            n_claims: coalesce(c.n_claims, 0),
            bin: cs.bin, n: cs.n, total: cs.total, total_sq: cs.total_sq},
    document: {fd_raw: coalesce(d.fd_raw, 0.0), n_tokens: d.n_tokens,
               n_claims: coalesce(d.n_claims, 0),
               bin: ds.bin, n: ds.n, total: ds.total, total_sq: ds.total_sq}
  }) AS chunks
}
RETURN sources, chunks;
