"""What a search answers: ``SearchResult``, its hits best first, each carrying the scores that
made it (per path, the multi-signal breakdown, FD*), its evidence and the chunks an expansion
reached from it.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from anchorgraph.factual_density import LengthBin
from anchorgraph.retrieval.defaults import DEFAULT_RANKING
from anchorgraph.retrieval.evidence import Evidence
from anchorgraph.retrieval.options import Mode
from anchorgraph.retrieval.scoring import SignalBreakdown
from anchorgraph.retrieval.values import DetectedEntity


class PathScore(BaseModel):
    """What one path said about a hit."""

    model_config = ConfigDict(frozen=True)

    raw: float
    normalised: float
    rank: int
    contribution: float


class FdScore(BaseModel):
    """A hit's factual density (``anchorgraph.factual_density``): its chunk's at chunk level, its
    document's at document level, with what FD* was computed from and what it added."""

    model_config = ConfigDict(frozen=True)

    level: Literal["chunk", "document"]
    fd_raw: float = Field(description="Σ prob_fact of the claims / n_tokens.")
    n_claims: int
    n_tokens: int
    length_bin: LengthBin | None = Field(description="None: the graph's bins are not fitted.")
    bin_mean: float | None = Field(description="μ of FD_raw in the length bin.")
    bin_sd: float | None = Field(description="σ of FD_raw in the length bin.")
    source_type: str
    a_source: float = Field(description="The source type's authority (1.0 unless set).")
    a_max: float = Field(1.0, description="The largest authority in the graph (at least 1).")
    z: float | None = Field(None, description="(fd_raw − μ) / σ in the bin; None: no bin.")
    fd_star: float | None = Field(description="FD* = z × a_source; None: no bin.")
    rescaled: float = Field(
        description="FD*_rescaled = Φ(z) × a_source / a_max in [0, 1] (Φ(z) = 0.5 without a bin)."
    )
    contribution: float = Field(
        0.0,
        description="What FD* added to the hit's score: fd_lambda × rescaled in the rerank, "
        "its fused share with fd_weight, its weighted S_fd in multisignal; 0 when unused.",
    )
    reranked_from: float | None = Field(
        None,
        description="The score before the FD* rerank: score = (1 − λ) × this + contribution.",
    )


class LinkHop(BaseModel):
    """One link an expansion followed: from which chunk, its anchor text and where it landed."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["link"] = "link"
    from_chunk_id: str
    anchor_text: str
    href: str
    to_chunk_id: str
    validation: float = Field(description="2·cos − 1 of the landing chunk and the anchor context.")
    anchor_fd: float = Field(description="FD*_rescaled of the chunk the link leaves.")

    def described(self) -> str:
        """The hop in a few words: “anchor text”."""
        return f"“{self.anchor_text or self.href}”"


class EntityHop(BaseModel):
    """One entity bridge an expansion crossed: from a chunk, through an entity it mentions that
    few chunks mention, to another document's chunk mentioning it."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["entity"] = "entity"
    from_chunk_id: str
    entity_id: str = Field(description="The entity's id within its collection.")
    entity: str = Field(description="The entity's name.")
    mentions: int = Field(description="Chunks of the collection that mention the entity.")
    to_chunk_id: str
    validation: float = Field(
        description="2·cos − 1 of the landing chunk and the chunk the bridge leaves."
    )
    anchor_fd: float = Field(description="FD*_rescaled of the chunk the bridge leaves.")

    def described(self) -> str:
        """The hop in a few words: via entity Walter Zanini."""
        return f"via entity {self.entity}"


Hop = Annotated[LinkHop | EntityHop, Field(discriminator="kind")]


class Supporting(BaseModel):
    """A chunk an expansion reached from a hit, with the path (links and entity bridges) and
    its score (``expansion.supporting_score``)."""

    model_config = ConfigDict(frozen=True)

    chunk_id: str
    document_id: str
    title: str = ""
    text: str = ""
    n_tokens: int
    start: int | None = Field(None, description="As a hit's: where its text begins.")
    end: int | None = Field(None, description="As a hit's: where its text ends.")
    pages: list[int] = Field(default_factory=list, description="As a hit's: its pages.")
    document_tokens: int = Field(
        0, description="The whole length of the document it belongs to (set by the hydration)."
    )
    hop: int
    score: float = Field(
        description="parent score × (1 − expand_fd_weight + expand_fd_weight·anchor FD*) × "
        "expand_decay × bridge weight (1 for a link, (1 − ln m / ln N)² for a bridge through an "
        "entity m of the N chunks name) × (1 − expand_query_weight + expand_query_weight·(1 + "
        "cos with the query)/2)"
    )
    parent_score: float
    path: list[Hop]


class TokenAccount(BaseModel):
    """Tokens an answer returns, against the alternatives (the expansion: links, bridges)."""

    model_config = ConfigDict(frozen=True)

    returned: int = Field(description="The hits' chunks and their supporting chunks.")
    without_expansion: int = Field(description="The hits' chunks alone.")
    parent_windows: int = Field(
        description="The hits' chunks and the whole text of every document the expansion "
        "reached (the naive strategy expansion replaces)."
    )


class Signals(BaseModel):
    """Multi-signal document scoring, every signal and its weighted contribution."""

    model_config = ConfigDict(frozen=True)

    s_doc: float
    s_segment: float
    s_entity: float
    s_triple: float
    s_text: float
    s_fd: float
    segment_fallback: bool
    contributions: dict[str, float]
    matched_entities: list[str]

    @classmethod
    def from_breakdown(cls, breakdown: SignalBreakdown, matched_entities: list[str]) -> Signals:
        return cls(
            **{name: getattr(breakdown, name) for name in _SIGNAL_FIELDS},
            contributions=dict(breakdown.contributions),
            matched_entities=matched_entities,
        )


_SIGNAL_FIELDS = (
    "s_doc",
    "s_segment",
    "s_entity",
    "s_triple",
    "s_text",
    "s_fd",
    "segment_fallback",
)


class Hit(BaseModel):
    """One result: a chunk, or a document with its best chunk."""

    model_config = ConfigDict(frozen=True)

    rank: int
    score: float
    collection: str = Field(description="The collection the hit's document belongs to.")
    document_id: str = Field(description="The document's id within its collection.")
    chunk_id: str
    title: str
    text: str
    n_tokens: int
    start: int | None = Field(
        None,
        description="Where the chunk's text begins in its document's normalised text (the "
        "text `GET /documents/{id}` rebuilds from its chunks), a character offset; None for a "
        "chunk written without one.",
    )
    end: int | None = Field(
        None, description="Where the chunk's text ends (exclusive): `text` is [start, end)."
    )
    pages: list[int] = Field(
        default_factory=list,
        description="The pages of its document the chunk's text stands on (PDF, scans, Word "
        "files with page breaks), to cite as `document, page N`: one page, or two where a "
        "sentence runs across a page break; empty for formats without pages.",
    )
    ocr_confidence: float | None = Field(
        None, description="How sure OCR was of the text, in [0, 1]; None: it was not scanned."
    )
    paths: dict[str, PathScore] = Field(
        description="Per path: raw and normalised score, rank, and share of the fused score."
    )
    signals: Signals | None = Field(None, description="Multi-signal breakdown (multisignal).")
    fd: FdScore | None = Field(
        None, description="Factual density FD* and what it added (None: the graph has no FD*)."
    )
    supporting: list[Supporting] = Field(
        default_factory=list, description="Chunks reached along its hyperlinks (expand)."
    )
    priors: dict[str, float] = Field(
        default_factory=dict,
        description="What each prior fused with the paths (fd, pagerank) added to the score; "
        "with the paths' contributions (explain) they add up to it. A chunk the expansion "
        "placed by the score it inherited along a link or bridge (expand.rank) has that score "
        "as its one part, expansion.",
    )
    evidence: Evidence | None = Field(
        None,
        description="What speaks for the hit beside its nearness to the query, and whether "
        "that is enough (`matched`); every search's hits have it (anchorgraph.retrieval.evidence).",
    )

    def citation(self) -> str:
        """Where the text stands: ``reports/1978.pdf, page 2, characters 812–1034`` (``pages
        2–3``), without the page for formats without pages and without the characters for a
        chunk written without its span."""
        where = [self.document_id]
        if self.pages:
            first, last = min(self.pages), max(self.pages)
            where.append(f"page {first}" if first == last else f"pages {first}–{last}")
        if self.start is not None and self.end is not None:
            where.append(f"characters {self.start}–{self.end}")
        return ", ".join(where)


class StageTiming(BaseModel):
    model_config = ConfigDict(frozen=True)

    stage: str
    ms: float


class SearchResult(BaseModel):
    """The answer to a search."""

    model_config = ConfigDict(frozen=True)

    query: str
    mode: Mode
    level: Literal["chunk", "document"]
    collections: list[str] = Field(default_factory=list, description="The collections searched.")
    hits: list[Hit]
    matched: bool = Field(
        description="Whether any hit has evidence (`evidence.matched`): false when nothing "
        "the collections hold matches the query, and the hits are only the texts nearest to "
        "it (or there are none)."
    )
    entities: list[DetectedEntity]
    identifiers: list[str]
    identifiers_as_written: dict[str, str] = Field(
        default_factory=dict,
        description="Each of `identifiers` as the query wrote it, for showing: the entity's id "
        '→ the query\'s text ("aerograph ag-2048" → "AG-2048", named through an alias).',
    )
    ranking: str = Field(
        DEFAULT_RANKING,
        description=f'The fusion used: "{DEFAULT_RANKING}" (the defaults), the searched '
        'collection\'s own weights ("<collection>/tuned-<date>", anchorgraph tune), or "custom" '
        "(the request's own `weights`, `normalisation`, `fusion` or `confidence_exponent`).",
    )
    lexical_scale: float = Field(
        1.0,
        description="The factor the lexical paths' weights were multiplied by, from the dense "
        "path's confidence (`confidence_exponent`); 1.0 where it does not apply.",
    )
    candidates: dict[str, int] = Field(description="Candidates each path returned.")
    feedback_documents: list[str] = Field(
        default_factory=list,
        description="Documents (ids within their collections) whose embeddings moved the query "
        "vector (pseudo-relevance feedback); the dense paths' scores are against the moved "
        "vector.",
    )
    tokens: TokenAccount | None = Field(
        None, description="With expand.links or expand.bridges: tokens returned."
    )
    cut_short: list[str] = Field(
        default_factory=list,
        description="Stages left out so that the search answers by its deadline "
        '(ANCHORGRAPH_REQUEST_DEADLINE_S): "expand" when the expansion would have overrun it, '
        "the hits then unexpanded.",
    )
    timings: list[StageTiming]
    round_trips: int
    total_ms: float

    def _repr_html_(self) -> str:
        """Jupyter shows a result as a compact table (``anchorgraph.retrieval.html``)."""
        from anchorgraph.retrieval.html import result_html  # it imports this module

        return result_html(self)
