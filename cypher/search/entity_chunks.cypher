// Entity boosting: chunks that mention entities the query names join the pool whatever their
// vector score (docs/design.md §2); a chunk scores the sum of its entities' detection scores.
// Which entities walk their mentions ("finders"), rarest first: an entity finds only while the
// mentions walked so far, its own included, stay within $max_mentions, the rarest too, as the
// TF-IDF path's terms do (search/tfidf_chunks.cypher), so the walk is bounded whatever the
// graph's size. The others ("boosters") only add their score to the $boost_pool chunks the
// finders scored best; a query whose rarest entity alone is past the budget finds nothing here.
// On the dev splits no query comes near it (at most 1,540 mentions walked, on SciFact train), so
// their candidates are those every entity's walk gives; at a million generated chunks, entities
// that 15,000–39,000 chunks mention would be walked whole, for a server p95 of 41–43 ms against
// 16–22 ms (docs/benchmarks.md, "Budgets of the paths"). The finders add their scores in the
// order of $entities, as a walk of every entity would, so every sum is the same to the last bit.
// Parameters: $entities (list of {id, score}), $max_mentions, $boost_pool (at least $k), $k,
// $allowed (document ids, or null).
// Returns: one row, candidates: a list of {chunk_id, document_id, score}, best first (one list
// rather than a row per candidate: the driver decodes it in a third of the CPU time).
UNWIND range(0, size($entities) - 1) AS position
MATCH (e:Entity {id: $entities[position].id})
WITH position, e, $entities[position].score AS score, COUNT { (e)<-[:MENTIONS]-() } AS mentions
ORDER BY mentions, e.id, position
WITH collect({position: position, entity: e, score: score, mentions: mentions}) AS rarest_first
WITH rarest_first, [i IN range(0, size(rarest_first) - 1)
    WHERE reduce(walked = 0, r IN rarest_first[..i + 1] | walked + r.mentions) <= $max_mentions
    | rarest_first[i].position] AS finding
WITH [r IN rarest_first WHERE NOT r.position IN finding] AS boosters,
     [p IN range(0, size($entities) - 1) WHERE p IN finding
       | [r IN rarest_first WHERE r.position = p][0]] AS finders
UNWIND finders AS finder
WITH boosters, finder.entity AS e, finder.score AS score
MATCH (e)<-[:MENTIONS]-(c:Chunk)
WHERE $allowed IS NULL OR c.document_id IN $allowed
WITH boosters, c, sum(score) AS found
ORDER BY found DESC, c.id
LIMIT $boost_pool
WITH c, found + CASE WHEN boosters = [] THEN 0.0 ELSE reduce(boosted = 0.0, booster IN boosters |
    boosted + CASE WHEN EXISTS { (c)-[:MENTIONS]->(e) WHERE e = booster.entity }
      THEN booster.score ELSE 0.0 END) END AS score
WITH c.id AS chunk_id, c.document_id AS document_id, score
ORDER BY score DESC, chunk_id
LIMIT $k
RETURN collect({chunk_id: chunk_id, document_id: document_id, score: score}) AS candidates;
