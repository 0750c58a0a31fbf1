"""``entity``: entity boosting, the chunks that mention the query's entities whatever their
vector score (``search/entity_chunks.cypher``)."""

from __future__ import annotations

from anchorgraph.graph.queries import Query
from anchorgraph.retrieval.paths.base import (
    BOOST_POOL,
    Level,
    PathName,
    Reader,
    SearchPath,
    Weights,
    candidates,
)
from anchorgraph.retrieval.values import AnalyzedQuery, Candidate, Scope

# Mentions the entity path walks at most, rarest entities first, the rarest too, as the TF-IDF
# path's postings (entity_chunks.cypher): at a million generated chunks, entities that 15,000 to
# 39,000 chunks mention made the path's server p95 41–43 ms. On the dev splits a query walks at
# most 1,540 mentions, so their candidates are those of every entity walked.
ENTITY_MAX_MENTIONS = 10_000


class EntityPath:
    """Entity boosting: chunks mentioning the query's entities, whatever their vector score.
    Entities past ``max_mentions`` walked rarest first only add to the best chunks the others
    found (``entity_chunks.cypher``)."""

    name = PathName.ENTITY

    def __init__(self, max_mentions: int = ENTITY_MAX_MENTIONS) -> None:
        self.max_mentions = max_mentions

    def retrieve(self, read: Reader, query: AnalyzedQuery, k: int, scope: Scope) -> list[Candidate]:
        if not query.entities:
            return []
        parameters = {
            "entities": [{"id": e.id, "score": e.score} for e in query.entities],
            "max_mentions": self.max_mentions,
            "boost_pool": k * BOOST_POOL,
            "k": k,
            "allowed": scope.parameters()["allowed"],
        }
        return candidates(read(Query.ENTITY_CHUNKS, parameters))


PATH = SearchPath(
    level=Level.CHUNK,
    weights=Weights(chunk=0.05, document=0.1),
    finder=EntityPath(),
    small=True,
)
