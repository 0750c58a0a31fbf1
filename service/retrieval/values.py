"""The values a search passes between its stages: where it looks (``Scope``), the query as each
path needs it, the candidates the paths find (``Retrieved``), and the ranking each ranking stage
passes on (``Ranking`` of ``Ranked`` hits, hydrated at the end into the answer's hits,
``anchorgraph.retrieval.results``).

Keys: every id a search passes between its stages (chunk, document and entity ids) is the key
the graph stores it under, collection first (anchorgraph.scope); the answer shows the ids within
their collection (hydrate).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from anchorgraph.text.language import Language

if TYPE_CHECKING:  # the paths import this module, and the results read it
    from anchorgraph.graph.rows import HydratedChunk
    from anchorgraph.retrieval.paths.base import PathName
    from anchorgraph.retrieval.results import FdScore, PathScore, Signals, Supporting
    from anchorgraph.retrieval.tuning import CollectionRanking


@dataclass(frozen=True)
class CollectionSize:
    """What a search needs to know of a collection: its chunks and its shard (None until the
    upgrade gives it one, ``anchorgraph.graph.schema.upgrade``)."""

    chunks: int
    shard: int | None = None
    languages: frozenset[Language] = frozenset({Language.ENGLISH})  # of its documents
    ranking: CollectionRanking | None = None  # its own weights (anchorgraph tune)
    # Whether it holds links an expansion can follow, and entity mentions a bridge can cross.
    links: bool = True
    mentions: bool = True
    model: str | None = None  # the embedding model it records; None: the configured one


@dataclass(frozen=True)
class Scope:
    """Where one search looks: the collections it reads, and the documents its filters allow.

    ``every`` says the collections are all the graph has, so the paths need not filter on
    them; their ``share`` of the graph's chunks says how many more hits to ask of an index that
    cannot filter inside itself, or whether to score every chunk exactly (``paths``)."""

    collections: tuple[str, ...]
    every: bool = True
    chunks: int = 0  # in the collections searched
    total_chunks: int = 0  # in the graph
    documents: frozenset[str] | None = None  # keys the filters allow; None: no filter
    # The shards the collections are in (service/graph/shards.py; None: one has none yet) and
    # the chunks of every collection in those shards.
    shards: tuple[int, ...] | None = None
    shard_chunks: int = 0
    # The languages of the collections' documents (service/text/language.py).
    languages: frozenset[Language] = frozenset({Language.ENGLISH})
    # The weights of the one collection searched, when it has its own (anchorgraph tune).
    ranking: CollectionRanking | None = None
    # Whether any of the collections holds links, or entity mentions: where none does, the
    # expansion has nothing to read along them (retrieval/expansion.py, ``graph_parts``).
    links: bool = True
    mentions: bool = True

    @property
    def share(self) -> float:
        """The collections' part of the graph's chunks (1.0 when they are all of it)."""
        if self.every or self.total_chunks <= 0:
            return 1.0
        return min(1.0, self.chunks / self.total_chunks)

    @property
    def shard_share(self) -> float:
        """The collections' part of their shards' chunks (1.0 when they are all of them)."""
        if self.shard_chunks <= 0:
            return 1.0
        return min(1.0, self.chunks / self.shard_chunks)

    @property
    def collection_filter(self) -> list[str] | None:
        """The ``$collections`` parameter: None when every collection is searched."""
        return None if self.every else list(self.collections)

    @property
    def empty(self) -> bool:
        """Nothing to search: no collection the caller may read, or filters that allow no
        document."""
        return (not self.every and not self.collections) or self.documents == frozenset()

    def parameters(self) -> dict[str, list[str] | None]:
        """``$collections`` and ``$allowed`` of the path statements."""
        allowed = None if self.documents is None else sorted(self.documents)
        return {"collections": self.collection_filter, "allowed": allowed}


EVERYWHERE = Scope(collections=(), every=True)
"""A scope with no restriction at all, for unit tests of plumbing over recorded rows."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """A chunk one path found, with that path's raw score."""

    chunk_id: str
    document_id: str
    score: float


class DetectedEntity(BaseModel):
    """An entity the query names: exactly, by meaning, or through a matching relation."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(description="The entity's id within its collection.")
    collection: str = ""
    name: str
    type: str
    how: Literal["exact", "semantic", "triple"]
    score: float


@dataclass(frozen=True)
class LexicalQuery:
    """The query as the lexical paths need it: known before the model or the database is
    asked anything."""

    text: str
    fulltext: str | None  # escaped Lucene query; None when nothing is searchable
    terms: list[str]  # TF-IDF index terms
    identifier_candidates: list[str]  # entity ids of the codes, serials, acronyms it contains
    entity_candidates: list[str]  # entity ids its n-grams would resolve to
    language: Language  # whose analyzer the BM25 paths read it with (anchorgraph.text.language)


@dataclass(frozen=True)
class EmbeddedQuery(LexicalQuery):
    """The query with its one embedding: what the dense paths need."""

    vector: list[float]


@dataclass(frozen=True)
class AnalyzedQuery(EmbeddedQuery):
    """The query, prepared once for every path."""

    identifiers: list[str]  # identifier candidates that are entities of the graph
    entities: list[DetectedEntity]
    # Each of `identifiers` → the text of the query that named it ("AG-2048" named the entity
    # "aerograph ag-2048" through an alias).
    identifiers_as_written: dict[str, str] = field(default_factory=dict)

    @property
    def exact_entity_ids(self) -> list[str]:
        return [e.id for e in self.entities if e.how == "exact"]


@dataclass(frozen=True)
class Retrieved:
    """What the candidate paths found for the analysed query."""

    query: AnalyzedQuery
    found: dict[PathName, list[Candidate]]
    scope: Scope


@dataclass(frozen=True)
class Ranked:
    """A hit before hydration: its ids, score and explanation (``paths`` only with explain;
    ``fd`` once a stage read it, else at hydration)."""

    chunk_id: str
    document_id: str
    score: float
    paths: dict[str, PathScore]
    signals: Signals | None = None
    fd: FdScore | None = None
    # What lists other than the paths added to the fused score (the priors: priors.FusedPriors).
    signal_contributions: dict[str, float] = field(default_factory=dict)
    supporting: list[Supporting] = field(default_factory=list)  # expansion.Expand


@dataclass(frozen=True)
class Ranking:
    """The hits, best first, with what they were ranked from; each ranking stage gives a new
    one."""

    query: AnalyzedQuery
    found: dict[PathName, list[Candidate]]
    hits: list[Ranked]
    feedback_documents: list[str] = field(default_factory=list)
    lexical_scale: float = 1.0  # the lexical paths' weights were times this (query_weights)
    cut_short: tuple[str, ...] = ()  # stages left out to answer by the request's deadline
    # Chunks a stage already read as the hydration reads them (by key): the expansion's read
    # hydrates what it reaches, so the hydration reads only the others.
    hydrated: dict[str, HydratedChunk] = field(default_factory=dict)
