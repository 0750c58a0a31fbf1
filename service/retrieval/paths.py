"""The candidate paths: one small protocol, one thin class per kind of path, Cypher files each.

Every path over-fetches ``k`` candidates (``k_over`` of the request) within the search's
``Scope``: the collections it reads and the documents its filters allow, so both combine with
every mode. Chunk paths find chunks; the document paths (``doc_dense``, ``doc_bm25``) find whole
documents, each represented by its first chunk.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from anchorgraph.graph.queries import Query, Statement
from anchorgraph.graph.rows import CandidatesRow
from anchorgraph.graph.shards import CHUNKS, DOCUMENTS, VectorIndexFamily
from anchorgraph.retrieval.types import (
    AnalyzedQuery,
    Candidate,
    EmbeddedQuery,
    LexicalQuery,
    PathName,
    Scope,
)

# With a filter, an index (vector or full-text) is asked for this many times more hits than are
# kept, since it cannot filter inside itself on Neo4j 5.26.
FILTER_OVERFETCH = 10
# Below this many allowed documents the dense path scores every chunk exactly instead.
EXACT_DENSE_MAX_DOCUMENTS = 2_000
# A search in some collections asks the index for k / share × this many hits (share: their part
# of the graph's chunks), and at most MAX_OVERFETCH × k.
COLLECTION_OVERFETCH_MARGIN = 2.0
MAX_OVERFETCH = 50
# A query term in more than this share of all chunks is "common" for the TF-IDF path: it only adds
# its (small) weight to chunks a rarer term found (see cypher/search/tfidf_chunks.cypher). One
# percent is the upper end of Elasticsearch's documented cutoff_frequency examples (0.001–0.01).
TFIDF_COMMON_FRACTION = 0.01
# Postings the TF-IDF path walks at most, rarest terms first, the rarest too (a query whose rarest
# term is in more chunks finds nothing by TF-IDF): the work stays bounded as a collection grows.
# On 100,000 generated chunks the path's server time grows by ~6.4 ms per 10,000 postings; at a
# million, with the rarest term free, queries of common words walk up to ~349,000.
# 10,000 changes no query's walking terms on any dev split (benchmarks/tfidf_budget.py) and
# holds the statement's p50 / p95 at a million chunks to 15 / 34 ms against 24 / 118 unbounded
# (docs/benchmarks.md, "Budgets of the paths").
TFIDF_MAX_POSTINGS = 10_000
# Mentions the entity path walks at most, rarest entities first, the rarest too, as the TF-IDF
# path's postings (entity_chunks.cypher): at a million generated chunks, entities that 15,000 to
# 39,000 chunks mention make the path's server p95 41–43 ms unbounded. On the dev splits a
# query walks at most 1,540 mentions, so their candidates are those of every entity walked.
ENTITY_MAX_MENTIONS = 10_000
# Chunks, as a multiple of k, that the terms or entities left out of a walk may add to.
BOOST_POOL = 5


R = TypeVar("R")


class Reader(Protocol):
    """Runs one read query; counts round trips (``anchorgraph.retrieval.context.Trace``)."""

    def __call__(self, query: Statement[R], parameters: Mapping[str, Any]) -> Sequence[R]: ...


Q_contra = TypeVar("Q_contra", LexicalQuery, EmbeddedQuery, AnalyzedQuery, contravariant=True)


class CandidatePath(Protocol[Q_contra]):
    """A way of finding candidate chunks for a query; ``Q_contra`` is as much of the analysed
    query as the path needs (text only, text and embedding, or everything)."""

    name: PathName

    def retrieve(self, read: Reader, query: Q_contra, k: int, scope: Scope) -> list[Candidate]:
        """Up to ``k`` candidates, best first, only from ``scope``."""
        ...


def _candidates(records: Sequence[CandidatesRow]) -> list[Candidate]:
    """The one row of a path statement: its ``candidates`` list, best first."""
    return [
        Candidate(c["chunk_id"], c["document_id"], float(c["score"]))
        for c in records[0]["candidates"]
    ]


def index_depth(k: int, scope: Scope) -> int:
    """Hits to ask of an index that cannot filter inside itself: ``k`` over the whole graph,
    ``FILTER_OVERFETCH × k`` under a filter, and in some collections
    ``min(MAX_OVERFETCH, COLLECTION_OVERFETCH_MARGIN / share) × k``."""
    if scope.documents is not None:
        return k * FILTER_OVERFETCH
    if scope.every:
        return k
    factor = min(MAX_OVERFETCH, COLLECTION_OVERFETCH_MARGIN / max(scope.share, 1e-9))
    return max(k, math.ceil(k * factor))


@dataclass(frozen=True)
class VectorIndexPlan:
    """The vector indexes a dense path asks, and for how many hits each."""

    indexes: tuple[str, ...]
    depth: int


def vector_index_plan(k: int, scope: Scope, family: VectorIndexFamily) -> VectorIndexPlan:
    """The graph-wide index of ``family``, asked for ``index_depth`` hits; or the indexes of the
    searched collections' shards (``anchorgraph.graph.shards``), each asked for ``k`` when those
    collections are all their shards hold, else ``FILTER_OVERFETCH × k`` under a filter and
    ``min(MAX_OVERFETCH, COLLECTION_OVERFETCH_MARGIN / shard_share) × k`` otherwise; whichever
    asks for fewer hits in all (shards × depth against the graph-wide depth; a tie goes to the
    shards, whose indexes are smaller)."""
    everywhere = VectorIndexPlan((family.everywhere,), index_depth(k, scope))
    if scope.every or not scope.shards:
        return everywhere
    if scope.documents is not None:
        depth = k * FILTER_OVERFETCH
    elif scope.shard_share >= 1.0:
        depth = k
    else:
        factor = min(MAX_OVERFETCH, COLLECTION_OVERFETCH_MARGIN / max(scope.shard_share, 1e-9))
        depth = max(k, math.ceil(k * factor))
    sharded = VectorIndexPlan(tuple(family.shard_index(s) for s in scope.shards), depth)
    return sharded if len(sharded.indexes) * depth <= everywhere.depth else everywhere


class DensePath:
    """Cosine similarity of embeddings (of chunks, or of whole documents): HNSW indexes (the
    graph-wide one or the shards', ``vector_index_plan``), or exact scoring under a narrow
    filter."""

    def __init__(
        self,
        name: PathName,
        family: VectorIndexFamily,
        approximate: Statement[CandidatesRow],
        exact: Statement[CandidatesRow],
    ) -> None:
        self.name, self._family = name, family
        self._approximate, self._exact = approximate, exact

    def retrieve(self, read: Reader, query: EmbeddedQuery, k: int, scope: Scope) -> list[Candidate]:
        allowed = scope.documents
        if allowed is not None and len(allowed) <= EXACT_DENSE_MAX_DOCUMENTS:
            parameters = {"vector": query.vector, "allowed": sorted(allowed), "k": k}
            return _candidates(read(self._exact, parameters))
        plan = vector_index_plan(k, scope, self._family)
        parameters = {
            "vector": query.vector,
            "indexes": list(plan.indexes),
            "k_index": plan.depth,
            "k": k,
            **scope.parameters(),
        }
        return _candidates(read(self._approximate, parameters))


class Bm25Path:
    """Lucene BM25 through a Neo4j full-text index (over chunk text, or whole documents): the
    index of the query's language, whose analyzer reads the query and the documents in it
    (``anchorgraph.text.language``)."""

    def __init__(
        self, name: PathName, statement: Statement[CandidatesRow], of_documents: bool
    ) -> None:
        self.name, self._statement, self._of_documents = name, statement, of_documents

    def retrieve(self, read: Reader, query: LexicalQuery, k: int, scope: Scope) -> list[Candidate]:
        if query.fulltext is None:
            return []
        parameters = {
            "index": query.language.fulltext_indexes[self._of_documents],
            "query": query.fulltext,
            "k_index": index_depth(k, scope),
            "k": k,
            **scope.parameters(),
        }
        return _candidates(read(self._statement, parameters))


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
        return _candidates(read(Query.TFIDF_CHUNKS, parameters))


class MetadataPath:
    """Exact identifiers, tags named in the query, and same-folder clustering around the
    documents of identifiers mentioned in at most ``k`` chunks."""

    name = PathName.METADATA

    def retrieve(self, read: Reader, query: AnalyzedQuery, k: int, scope: Scope) -> list[Candidate]:
        if not query.identifiers and not query.terms:
            return []
        parameters = {
            "identifier_ids": query.identifiers,
            "terms": query.terms,
            # An identifier in more than k chunks fills the path by itself, and the folders of
            # a code in 853 of 100,000 generated chunks took the path from ~3 ms to ~95 ms.
            "max_cluster_mentions": k,
            # A folder or tag of more than k documents ties them all: the path could only keep k
            # of them by id (metadata_chunks.cypher).
            "max_folder_entries": k,
            "max_tagged_documents": k,
            "k": k,
            **scope.parameters(),
        }
        return _candidates(read(Query.METADATA_CHUNKS, parameters))


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
        return _candidates(read(Query.ENTITY_CHUNKS, parameters))


_BM25 = Bm25Path(PathName.BM25, Query.BM25_CHUNKS, of_documents=False)
_DOC_BM25 = Bm25Path(PathName.DOC_BM25, Query.BM25_DOCUMENTS, of_documents=True)
_TFIDF = TfidfPath()
_DENSE = DensePath(PathName.DENSE, CHUNKS, Query.DENSE_CHUNKS, Query.DENSE_CHUNKS_EXACT)
_DOC_DENSE = DensePath(
    PathName.DOC_DENSE, DOCUMENTS, Query.DENSE_DOCUMENTS, Query.DENSE_DOCUMENTS_EXACT
)

# Grouped by what they need, so that a search can start each group as early as it can.
LEXICAL_PATHS: dict[PathName, CandidatePath[LexicalQuery]] = {
    p.name: p for p in (_BM25, _TFIDF, _DOC_BM25)
}
DENSE_PATHS: dict[PathName, CandidatePath[EmbeddedQuery]] = {
    p.name: p for p in (_DENSE, _DOC_DENSE)
}
PATHS: dict[PathName, CandidatePath[AnalyzedQuery]] = {
    **LEXICAL_PATHS,
    **DENSE_PATHS,
    **{p.name: p for p in (MetadataPath(), EntityPath())},
}
