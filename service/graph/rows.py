"""The row of every Cypher statement that returns rows: one ``TypedDict`` each, its keys the
statement's columns (``RETURN … AS key``), its values what Python reads out of them.

``anchorgraph.graph.queries`` binds each statement to its row, so ``graph.read(Query.X)`` is a
list of ``X``'s rows to mypy and a renamed column fails type checking where it is read. Two tests
keep the rows true: tests/unit/test_queries.py (each key is named by the file's ``Returns:``
header) and tests/integration/test_cypher_explain.py (the keys are the columns the server plans,
in order). A ``neo4j.Record`` reads like these dicts (by key, ``get``, ``keys``, ``items``), and is
handed out as one without a copy; unit tests give recorded plain dicts.

Nested maps are typed where Python reads them; maps the API hands on whole, or that only Neo4j
Browser shows, are ``dict[str, Any]``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, TypedDict

# Only as annotations: the statements' catalogue (and so a search's types, which a search through
# the API prints) must not import the driver (tests/integration/test_cli_speed.py).
if TYPE_CHECKING:
    from neo4j.graph import Node, Path
    from neo4j.time import DateTime

FdLevelName = Literal["chunk", "document"]


class NoRow(TypedDict):
    """A statement that returns no rows (a write, a schema change): ``Returns: nothing``."""


# --- shared shapes ----------------------------------------------------------------------------
class IdRow(TypedDict):
    id: str


class NameRow(TypedDict):
    name: str


class DeletedRow(TypedDict):
    deleted: int


class ListedCandidate(TypedDict):
    """One candidate of a path: its chunk (a document path gives the document's first chunk)."""

    chunk_id: str
    document_id: str
    score: float


class CandidatesRow(TypedDict):
    """The one row of a candidate path: the candidates in one list, best first."""

    candidates: list[ListedCandidate]


class FdInputs(TypedDict):
    """What a node's FD* is computed from (cypher/fd/fd_inputs.cypher's maps); a bin's
    statistics are null before the collection's bins are fitted."""

    fd_raw: float | None
    n_tokens: int | None
    n_claims: int | None
    bin: str | None
    n: int | None
    total: float | None
    total_sq: float | None


class IdentifiedDocumentRow(TypedDict):
    """A document's key with its content hash and location, to compare with what is read."""

    id: str
    content_hash: str
    uri: str


class SyncedDocumentRow(IdentifiedDocumentRow):
    """A document of a collection as a sync compares it: also its file's revision."""

    revision: str


# --- schema and upgrade -------------------------------------------------------------------------
class IndexStateRow(TypedDict):
    name: str
    type: str
    state: str
    populationPercent: float
    id: int
    dimensions: int | None


class UpgradePendingRow(TypedDict):
    collections_needed: bool
    unsharded: list[str]
    unkeyed: list[str]
    unmarked: bool
    unbridged: list[str]


class AccentedEntityRow(TypedDict):
    id: str
    aliases: list[str]


# --- load ------------------------------------------------------------------------------------
class FreeShardRow(TypedDict):
    shard: int


class ModelRow(TypedDict):
    """The embedding model a collection records; null: none."""

    model: str | None


class LockRow(TypedDict):
    """A collection locked for a write: its shard (null for one written before shards, not
    upgraded yet) and the embedding model it records (null: none)."""

    shard: int | None
    model: str | None


class MovedRow(TypedDict):
    moved: int


class DeletedContentRow(TypedDict):
    documents: int
    chunks: int
    languages: list[str]
    entity_ids: list[str]
    placeholder_keys: list[str]
    term_texts: list[str]


class WithoutEmbeddingRow(TypedDict):
    without_embedding: list[str]


class ResolvedRow(TypedDict):
    resolved: int


# --- fd ----------------------------------------------------------------------------------------
class FoundRow(TypedDict):
    found: int


class FdLengthRow(TypedDict):
    level: FdLevelName
    n_tokens: int
    fd_raw: float


class FdStatsRow(TypedDict):
    collection: str
    level: FdLevelName
    bin: str
    lower: float
    upper: float
    n: int
    total: float
    total_sq: float
    changes: int
    fitted_n: int


class FdAuthorityRow(TypedDict):
    source_type: str
    a_source: float
    reason: str | None


class FdInputsRow(TypedDict):
    chunk_id: str
    document_id: str
    source_type: str
    a_source: float
    a_max: float
    chunk: FdInputs
    document: FdInputs


# --- audit -------------------------------------------------------------------------------------
class AuditFdNodeRow(TypedDict):
    level: FdLevelName
    id: str
    source_type: str
    n_tokens: int
    fd_raw: float
    length_bin: str | None
    a_source: float
    n: int | None
    total: float | None
    total_sq: float | None


class NearestChunkRow(TypedDict):
    claim: int
    chunk_id: str
    cosine: float
    text: str | None


class SampleChunkRow(TypedDict):
    id: str
    text: str
    embedding: list[float]


class DocumentCosineRow(TypedDict):
    document_id: str
    cosine: float


# --- expand and walk ---------------------------------------------------------------------------
class ReachedHop(TypedDict):
    """One hop out of a chunk: along a link, or through an entity (a bridge)."""

    kind: Literal["link", "entity"]
    href: str | None
    anchor_text: str | None
    entity_id: str | None
    mentions: int | None
    landing_id: str
    landing_document_id: str
    landing_tokens: int | None
    validation: float
    query_similarity: float | None


class ReachedSource(TypedDict):
    """A chunk hops leave, and its hops."""

    source_id: str
    hops: list[ReachedHop]


class ReachedRow(TypedDict):
    """The hops, and the hits and the chunks the hops land on, hydrated."""

    sources: list[ReachedSource]
    chunks: list[HydratedChunk]


class WalkEdgeRow(TypedDict):
    source: str
    target: str
    kind: Literal["mentions", "link"]


# --- links -------------------------------------------------------------------------------------
class TitlePassDocumentRow(TypedDict):
    id: str
    title: str
    chunks: list[dict[str, Any]]
    written: list[dict[str, Any]]


class DeletedTitleLinksRow(TypedDict):
    deleted: int
    keys: list[str]


# --- search ------------------------------------------------------------------------------------
class DetectedEntityRow(TypedDict):
    id: str
    collection: str
    name: str
    type: str
    how: Literal["exact", "semantic", "triple"]
    score: float
    keys: list[str]


class FeedbackVectorRow(TypedDict):
    document_id: str
    embedding: list[float]


class DocumentSignalsRow(TypedDict):
    document_id: str
    s_doc: float
    best_chunk_id: str | None
    s_segment: float | None
    matched_entities: list[str]
    s_triple: float


class HydratedChunk(TypedDict):
    """A chunk a search returns, with its document's title and its FD* inputs."""

    chunk_id: str
    document_id: str
    collection: str
    title: str
    text: str
    n_tokens: int
    start: int | None
    end: int | None
    pages: list[int]
    ocr_confidence: float | None
    source_type: str
    a_source: float
    a_max: float
    chunk: FdInputs
    document: FdInputs


class HydratedChunksRow(TypedDict):
    chunks: list[HydratedChunk]


class DocumentPriorRow(TypedDict):
    document_id: str
    pagerank: float


class FoundEntityRow(TypedDict):
    id: str
    collection: str
    name: str | None
    type: str | None
    aliases: list[str] | None
    exact: bool
    score: float
    mentions: int
    documents: int


class CollectionSizeRow(TypedDict):
    name: str
    chunks: int
    shard: int | None
    languages: list[list[Any]]
    ranking: str | None
    has_links: bool
    has_mentions: bool
    model: str | None


class EntityDocumentsRow(TypedDict):
    entity_id: str
    documents: list[str]


# --- graph -------------------------------------------------------------------------------------
class DocumentLinksRow(TypedDict):
    id: str
    title: str
    links: list[dict[str, Any]]


class WrittenRow(TypedDict):
    written: int


class NeighbourhoodRow(TypedDict):
    center: str
    nodes: list[dict[str, Any]]
    relationships: list[dict[str, Any]]
    truncated: bool


# --- browser: rows Neo4j Browser draws, never read in Python ------------------------------------
class BrowserOverviewRow(TypedDict):
    label: str
    nodes: int


class BrowserCollectionsRow(TypedDict):
    collection: Node
    tree: list[Path]


class BrowserDocumentChunksRow(TypedDict):
    chunks: Path
    reading: Path | None
    links: Path | None
    owners: Path | None


class BrowserEntityMentionsRow(TypedDict):
    mentions: Path


class BrowserExpansionPathsRow(TypedDict):
    hop: int
    link: Path
    landing: Path | None
    anchor_text: str
    landing_id: str
    validation: float
    kept: bool


class BrowserFolderFdRow(TypedDict):
    document: str
    title: str
    source_type: str
    n_tokens: int
    n_claims: int
    length_bin: str | None
    fd_raw: float
    bin_mean: float | None
    bin_sd: float | None
    z: float | None
    a_source: float
    fd_star: float | None


class BrowserNeighbourhoodRow(TypedDict):
    centre: Node
    around: list[Path]


# --- collections, judgments, documents -----------------------------------------------------------
class CollectionRow(TypedDict):
    name: str
    documents: int
    chunks: int
    entities: int
    created: DateTime | None
    ranking: str | None


class RecordedJudgmentRow(TypedDict):
    document_id: str
    relevance: int
    created: DateTime
    updated: DateTime


class JudgmentRow(TypedDict):
    query: str
    document_id: str
    relevance: int


class DocumentRow(TypedDict):
    collection: str
    id: str
    title: str | None
    uri: str | None
    source: str | None
    source_type: str | None
    folder: str | None
    tags: list[str] | None
    identifiers: list[str] | None
    n_tokens: int | None
    content_hash: str | None
    modified: DateTime | None
    n_pages: int
    ocr_confidence: float | None
    language: str
    chunks: list[dict[str, Any]]
    links: list[dict[str, Any]]
    entities: list[dict[str, Any]]


class DocumentPageRow(TypedDict):
    collection: str
    total: int
    offset: int
    limit: int
    items: list[dict[str, Any]]


# --- admin and health --------------------------------------------------------------------------
class GraphSummaryRow(TypedDict):
    kind: Literal["node", "relationship"]
    name: str
    count: int


class LinkRow(TypedDict):
    source: str
    target_label: str
    target: str
    fragment: str | None
    href: str


class ChunkVectorRow(TypedDict):
    id: str
    document_id: str
    embedding: list[float]


class DocumentVectorRow(TypedDict):
    id: str
    embedding: list[float]


class EmbeddedText(TypedDict):
    """What one vector was embedded from: the node's key, or the relationship's elementId."""

    id: str
    text: str


class ReembedTextsRow(TypedDict):
    """A document's texts that vectors were embedded from, by kind (admin/reembed_texts)."""

    id: str
    chunks: list[EmbeddedText]
    triples: list[EmbeddedText]
    links: list[EmbeddedText]
    entity_ids: list[str]


class EntityNameRow(TypedDict):
    id: str
    name: str


class DocumentSourceTypeRow(TypedDict):
    id: str
    source_type: str


class DocumentTitleRow(TypedDict):
    id: str
    title: str


class GraphCountsRow(TypedDict):
    documents: int
    chunks: int
    entities: int
    triples: int


class ServerInfoRow(TypedDict):
    name: str
    version: str
    edition: str


# --- ingest jobs (service/jobs.py) ------------------------------------------------------------
class BusyRow(TypedDict):
    """The job already writing into a collection; null: the new one was created."""

    busy: str | None


class JobProgressRow(TypedDict):
    """What an ingest job did so far, as its node stores it (service/jobs.py's ``Progress``):
    Neo4j keeps no map in a list, so each refusal is the JSON of a ``JobRefusal``."""

    listed: int
    read: int
    written: int
    unchanged: int
    refused: int
    skipped: int
    chunks: int
    seconds: float
    refusals: list[str]
    skips: list[str]


class JobRow(JobProgressRow):
    """An ingest job as stored (service/jobs.py reads it into ``Job``)."""

    id: str
    collection: str
    source: str
    files: list[str]
    replace: bool
    state: str
    error: str
    created: DateTime
    updated: DateTime


class JobWrittenRow(TypedDict):
    """Whether the runner still owned the job (and so wrote it), and whether a cancel was
    asked."""

    owned: bool
    cancel: bool


class ClaimRow(TypedDict):
    """Whether the runner claimed the job; how long the owner it took over from had been silent
    (null: there was none)."""

    claimed: bool
    silent_s: float | None


class StateRow(TypedDict):
    state: str
