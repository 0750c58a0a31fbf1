"""``tfidf``: classic TF-IDF, ``(1 + ln tf) · idf`` without length normalisation, over each
collection's ``(:Term)`` index in the graph (``search/tfidf_chunks.cypher``)."""

from __future__ import annotations

from anchorgraph.graph.queries import Query
from anchorgraph.retrieval.paths.base import (
    BOOST_POOL,
    Level,
    LexicalSearchPath,
    PathName,
    Reader,
    Weights,
    candidates,
)
from anchorgraph.retrieval.values import Candidate, LexicalQuery, Scope

# A query term in more than this share of all chunks is "common" for the TF-IDF path: it only adds
# its (small) weight to chunks a rarer term found (see cypher/search/tfidf_chunks.cypher). One
# percent is the upper end of Elasticsearch's documented cutoff_frequency examples (0.001–0.01).
TFIDF_COMMON_FRACTION = 0.01
# Postings the TF-IDF path walks at most, rarest terms first, the rarest too (a query whose rarest
# term is in more chunks finds nothing by TF-IDF): the work stays bounded as a collection grows.
# On 100,000 generated chunks the path's server time grew by ~6.4 ms per 10,000 postings; at a
# million, with 20,000 and the rarest term free, queries of common words walked up to ~349,000.
# 10,000 changes no query's walking terms on any dev split (benchmarks/tfidf_budget.py) and
# took the statement's p50 / p95 at a million chunks from 24 / 118 to 15 / 34 ms
# (docs/benchmarks.md, "A million chunks against 100,000").
TFIDF_MAX_POSTINGS = 10_000


class TfidfPath:
    """Classic TF-IDF (no length normalisation) over each collection's (:Term) index. Terms in
    more than ``common_fraction`` of a collection's chunks, and terms past ``max_postings``
    walked rarest first, only add to the best chunks the other terms found
    (``tfidf_chunks.cypher``)."""

    name = PathName.TFIDF

    def __init__(
        self,
        common_fraction: float = TFIDF_COMMON_FRACTION,
        max_postings: int = TFIDF_MAX_POSTINGS,
    ) -> None:
        self.common_fraction = common_fraction
        self.max_postings = max_postings

    def retrieve(self, read: Reader, query: LexicalQuery, k: int, scope: Scope) -> list[Candidate]:
        if not query.terms:
            return []
        parameters = {
            "terms": query.terms,
            "common_fraction": self.common_fraction,
            "max_postings": self.max_postings,
            "boost_pool": k * BOOST_POOL,
            "k": k,
            **scope.parameters(),
        }
        return candidates(read(Query.TFIDF_CHUNKS, parameters))


# A lexical path (it reads the query's words, and its weight follows the dense path's
# confidence with BM25's), tuned with the small paths: it brings rare exact terms in.
PATH = LexicalSearchPath(
    level=Level.CHUNK,
    weights=Weights(chunk=0.05, document=0.1),
    finder=TfidfPath(),
    small=True,
)
