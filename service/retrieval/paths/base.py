"""What every candidate path is: its name, what it ranks, its family, its default weights and
the thin class that runs its statement (``SearchPath``); the protocol that class follows; and
how deep a path asks an index that cannot filter inside itself.

Every path over-fetches ``k`` candidates (``k_over`` of the request) within the search's
``Scope``: the collections it reads and the documents its filters allow, so both combine with
every mode.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, Protocol, TypeVar

from anchorgraph.graph.queries import Statement
from anchorgraph.graph.rows import CandidatesRow
from anchorgraph.graph.shards import VectorIndexFamily
from anchorgraph.retrieval.values import (
    AnalyzedQuery,
    Candidate,
    EmbeddedQuery,
    LexicalQuery,
    Scope,
)


# Each name has its module in this package, registered in ``anchorgraph.retrieval.paths``
# (a unit test checks that every name is).
class PathName(StrEnum):
    """The candidate paths of a hybrid search."""

    DENSE = "dense"
    BM25 = "bm25"
    TFIDF = "tfidf"
    METADATA = "metadata"
    ENTITY = "entity"
    DOC_DENSE = "doc_dense"
    DOC_BM25 = "doc_bm25"


class Level(StrEnum):
    """What a path ranks: chunks (every search can fuse it), or whole documents (only a
    document-level search can: a chunk ranking has no place for a document's score)."""

    CHUNK = "chunk"
    DOCUMENT = "document"


class Family(StrEnum):
    """What a path reads of the query, which is when it can start and how its weight follows
    the query (``anchorgraph.retrieval.query_weights``)."""

    # The query's words (``LexicalQuery``): it starts before the model embeds the query, and
    # its weight follows the dense path's confidence.
    LEXICAL = "lexical"
    # The query's embedding (``EmbeddedQuery``): its weight shrinks by the share of the query
    # that is a code.
    DENSE = "dense"
    # The identifiers, tags and entities the query names, looked up in the graph
    # (``AnalyzedQuery``).
    LOOKUP = "lookup"


@dataclass(frozen=True)
class Weights:
    """A path's default weight in a fusion of chunks and of documents; None: not fused there."""

    chunk: float | None
    document: float | None


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


@dataclass(frozen=True, kw_only=True)
class SearchPath:
    """One candidate path as the search, the tuning, the page and the evaluation know it: what
    it ranks, its default weights, the finder that runs its statement, and (by its class, which
    says what of the query the finder reads) its family.

    ``small``: it brings candidates in at a small weight (rare exact terms, identifiers, named
    entities) rather than ranking on its own; ``anchorgraph tune`` scales the small paths'
    weights together (``anchorgraph.retrieval.tuning``)."""

    level: Level
    weights: Weights
    finder: CandidatePath[AnalyzedQuery]
    small: bool = False
    family: ClassVar[Family] = Family.LOOKUP

    @property
    def name(self) -> PathName:
        return self.finder.name


@dataclass(frozen=True, kw_only=True)
class LexicalSearchPath(SearchPath):
    """A path of the lexical family: its finder reads the query's words alone."""

    finder: CandidatePath[LexicalQuery]
    family: ClassVar[Family] = Family.LEXICAL


@dataclass(frozen=True, kw_only=True)
class DenseSearchPath(SearchPath):
    """A path of the dense family: its finder reads the query's embedding."""

    finder: CandidatePath[EmbeddedQuery]
    family: ClassVar[Family] = Family.DENSE


def candidates(records: Sequence[CandidatesRow]) -> list[Candidate]:
    """The one row of a path statement: its ``candidates`` list, best first."""
    return [
        Candidate(c["chunk_id"], c["document_id"], float(c["score"]))
        for c in records[0]["candidates"]
    ]


# With a filter, an index (vector or full-text) is asked for this many times more hits than are
# kept, since it cannot filter inside itself on Neo4j 5.26.
FILTER_OVERFETCH = 10
# A search in some collections asks the index for k / share × this many hits (share: their part
# of the graph's chunks), and at most MAX_OVERFETCH × k.
COLLECTION_OVERFETCH_MARGIN = 2.0
MAX_OVERFETCH = 50
# Chunks, as a multiple of k, that the terms or entities left out of a walk may add to
# (tfidf.py, entity.py).
BOOST_POOL = 5


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
