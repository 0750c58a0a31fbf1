// Guide: The paths a hyperlink expansion follows
// From one chunk (a search hit), the links an expansion follows, two hops deep, as
// service/retrieval/expansion.py does: a link to a chunk lands on it, a link to a whole
// document on that document's chunk closest to the anchor context; a landing is kept when its
// validation cosine with the anchor context reaches $threshold (expand_threshold), and only a
// kept landing is followed further. Links without an anchor context embedding are skipped.
// Parameters: $chunk_id (the key of the chunk it starts from), $threshold (least validation
// cosine).
// Returns: hop (1 or 2), link (path from the chunk holding the link to its target),
// landing (path target document → landing chunk; null for a chunk target), anchor_text,
// landing_id, validation (cosine, −1..1), kept; first hop first, then by validation.
// Example: {"chunk_id": "sample/climate/incident-2022.md#0", "threshold": 0.3}
MATCH (start:Chunk {id: $chunk_id})
CALL (start) {
  MATCH link = (start)-[l:LINKS_TO]->(target)
  WHERE l.context_embedding IS NOT NULL AND (target:Chunk OR target:Document)
  CALL (l, target) {
    WITH l, target
    WHERE target:Chunk
    RETURN target AS landed, null AS landing
    UNION
    WITH l, target
    MATCH landing = (target:Document)-[:HAS_CHUNK]->(c:Chunk)
    WITH c, landing, vector.similarity.cosine(c.embedding, l.context_embedding) AS similarity
    ORDER BY similarity DESC, c.id
    LIMIT 1
    RETURN c AS landed, landing
  }
  RETURN 1 AS hop, link, l, landing, landed,
         2 * vector.similarity.cosine(landed.embedding, l.context_embedding) - 1 AS validation
}
WITH collect({hop: hop, link: link, l: l, landing: landing, landed: landed,
              validation: validation}) AS first
CALL (first) {
  UNWIND first AS step
  WITH step
  WHERE step.validation >= $threshold
  WITH step.landed AS source
  MATCH link = (source)-[l:LINKS_TO]->(target)
  WHERE l.context_embedding IS NOT NULL AND (target:Chunk OR target:Document)
  CALL (l, target) {
    WITH l, target
    WHERE target:Chunk
    RETURN target AS landed, null AS landing
    UNION
    WITH l, target
    MATCH landing = (target:Document)-[:HAS_CHUNK]->(c:Chunk)
    WITH c, landing, vector.similarity.cosine(c.embedding, l.context_embedding) AS similarity
    ORDER BY similarity DESC, c.id
    LIMIT 1
    RETURN c AS landed, landing
  }
  RETURN collect({hop: 2, link: link, l: l, landing: landing, landed: landed,
                  validation: 2 * vector.similarity.cosine(landed.embedding,
                                                           l.context_embedding) - 1}) AS second
}
UNWIND first + second AS step
RETURN step.hop AS hop, step.link AS link, step.landing AS landing,
       step.l.anchor_text AS anchor_text, step.landed.id AS landing_id,
       step.validation AS validation, step.validation >= $threshold AS kept
ORDER BY hop, validation DESC, landing_id;
