"""The catalogue of named Cypher files in the ``anchorgraph.cypher`` resource package.

A ``Query`` attribute is a ``Statement``: the file it names (``Query.CONSTRAINTS`` →
``cypher/schema/constraints.cypher``) and the row it returns (``anchorgraph.graph.rows``), so a
typo in a name or in a column fails in mypy rather than at run time; unit tests check that
statements and files match one to one and that each header names its parameters and columns.
Text is read once and cached. Most files hold one statement; schema files hold several, each
ending with ``;`` at the end of a line, and ``statements()`` splits them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Generic, TypeVar

from anchorgraph.graph.rows import (
    AccentedEntityRow,
    AuditFdNodeRow,
    BrowserCollectionsRow,
    BrowserDocumentChunksRow,
    BrowserEntityMentionsRow,
    BrowserExpansionPathsRow,
    BrowserFolderFdRow,
    BrowserNeighbourhoodRow,
    BrowserOverviewRow,
    BusyRow,
    CandidatesRow,
    ChunkVectorRow,
    ClaimRow,
    CollectionRow,
    CollectionSizeRow,
    DeletedContentRow,
    DeletedRow,
    DeletedTitleLinksRow,
    DetectedEntityRow,
    DocumentCosineRow,
    DocumentLinksRow,
    DocumentPageRow,
    DocumentPriorRow,
    DocumentRow,
    DocumentSignalsRow,
    DocumentSourceTypeRow,
    DocumentTitleRow,
    DocumentVectorRow,
    EntityDocumentsRow,
    EntityNameRow,
    FdAuthorityRow,
    FdInputsRow,
    FdLengthRow,
    FdStatsRow,
    FeedbackVectorRow,
    FoundEntityRow,
    FoundRow,
    FreeShardRow,
    GraphCountsRow,
    GraphSummaryRow,
    HydratedChunksRow,
    IdentifiedDocumentRow,
    IdRow,
    IndexStateRow,
    JobRow,
    JobWrittenRow,
    JudgmentRow,
    LinkRow,
    LockRow,
    ModelRow,
    MovedRow,
    NameRow,
    NearestChunkRow,
    NeighbourhoodRow,
    NoRow,
    ReachedRow,
    RecordedJudgmentRow,
    ReembedTextsRow,
    ResolvedRow,
    SampleChunkRow,
    ServerInfoRow,
    StateRow,
    SyncedDocumentRow,
    TitlePassDocumentRow,
    UpgradePendingRow,
    WalkEdgeRow,
    WithoutEmbeddingRow,
    WrittenRow,
)

R = TypeVar("R", covariant=True)

_STATEMENT_END = re.compile(r";[ \t]*$", re.MULTILINE)


@dataclass(frozen=True)
class Statement(Generic[R]):
    """One ``.cypher`` file, by ``folder/stem`` under ``cypher/``, and the row it returns."""

    name: str
    row: type[R]

    def __str__(self) -> str:
        return self.name


class Query:
    """Every Cypher file: ``every_statement()`` lists them."""

    # schema: applied by `anchorgraph db init` and on service start
    CONSTRAINTS = Statement("schema/constraints", NoRow)
    RANGE_INDEXES = Statement("schema/range_indexes", NoRow)
    VECTOR_INDEXES = Statement("schema/vector_indexes", NoRow)
    SHARD_VECTOR_INDEXES = Statement("schema/shard_vector_indexes", NoRow)
    FULLTEXT_INDEXES = Statement("schema/fulltext_indexes", NoRow)
    INDEX_STATES = Statement("schema/index_states", IndexStateRow)
    AWAIT_INDEXES = Statement("schema/await_indexes", NoRow)
    # upgrade: graphs written by earlier versions, brought up to date in place (graph/schema.py)
    UPGRADE_DROP_GLOBAL_CONSTRAINTS = Statement("upgrade/drop_global_constraints", NoRow)
    UPGRADE_PENDING = Statement("upgrade/pending", UpgradePendingRow)
    UPGRADE_COLLECTIONS = Statement("upgrade/collections", NoRow)
    UPGRADE_SHARD_COLLECTION = Statement("upgrade/shard_collection", NoRow)
    UPGRADE_ACCENTED_ENTITIES = Statement("upgrade/accented_entities", AccentedEntityRow)
    UPGRADE_ADD_ALIAS_KEYS = Statement("upgrade/add_alias_keys", NoRow)
    UPGRADE_GRAPH_MARKS = Statement("upgrade/graph_marks", NoRow)
    UPGRADE_MARK_BRIDGED = Statement("upgrade/mark_bridged", NoRow)
    # load: ingestion writes (loaders/graph_writer.py)
    FREE_SHARD = Statement("load/free_shard", FreeShardRow)
    LOCK_COLLECTION = Statement("load/lock_collection", LockRow)
    COLLECTION_MODEL = Statement("load/collection_model", ModelRow)
    COUNT_COLLECTION = Statement("load/count_collection", NoRow)
    EXISTING_HASHES = Statement("load/existing_hashes", IdentifiedDocumentRow)
    DOCUMENTS_AT_URIS = Statement("load/documents_at_uris", IdentifiedDocumentRow)
    DETACH_INCOMING_LINKS = Statement("load/detach_incoming_links", MovedRow)
    DELETE_DOCUMENT_CONTENT = Statement("load/delete_document_content", DeletedContentRow)
    UPSERT_DOCUMENTS = Statement("load/upsert_documents", NoRow)
    FILE_DOCUMENTS = Statement("load/file_documents", NoRow)
    CREATE_CHUNKS = Statement("load/create_chunks", NoRow)
    CREATE_CLAIMS = Statement("load/create_claims", NoRow)
    EMBEDDED_ENTITIES = Statement("load/embedded_entities", IdRow)
    UPSERT_ENTITIES = Statement("load/upsert_entities", WithoutEmbeddingRow)
    CREATE_MENTIONS = Statement("load/create_mentions", NoRow)
    REFRESH_BRIDGES = Statement("load/refresh_bridges", NoRow)
    CREATE_TRIPLES = Statement("load/create_triples", NoRow)
    CREATE_LINKS = Statement("load/create_links", NoRow)
    RESOLVE_UNRESOLVED = Statement("load/resolve_unresolved", ResolvedRow)
    DELETE_ORPHAN_ENTITIES = Statement("load/delete_orphan_entities", DeletedRow)
    DELETE_ORPHAN_PLACEHOLDERS = Statement("load/delete_orphan_placeholders", DeletedRow)
    DELETE_ORPHAN_TERMS = Statement("load/delete_orphan_terms", DeletedRow)
    DELETE_DOCUMENTS = Statement("load/delete_documents", DeletedRow)
    # fd: FD* length bins, their statistics and source authority (loaders/fd_stats.py)
    FD_LOCK_COLLECTION = Statement("fd/lock_collection", FoundRow)
    FD_COUNT_DOCUMENTS = Statement("fd/count_documents", NoRow)
    FD_LENGTHS = Statement("fd/lengths", FdLengthRow)
    FD_RESET_STATS = Statement("fd/reset_stats", NoRow)
    FD_STATS = Statement("fd/stats", FdStatsRow)
    FD_DROP_STATS = Statement("fd/drop_stats", NoRow)
    FD_SET_AUTHORITY = Statement("fd/set_authority", NoRow)
    FD_AUTHORITIES = Statement("fd/authorities", FdAuthorityRow)
    FD_INPUTS = Statement("fd/fd_inputs", FdInputsRow)
    # audit: the FD* audits (service/audit)
    AUDIT_FD_NODES = Statement("audit/fd_nodes", AuditFdNodeRow)
    AUDIT_NEAREST_CHUNKS = Statement("audit/nearest_chunks", NearestChunkRow)
    AUDIT_CHUNK_IDS = Statement("audit/chunk_ids", IdRow)
    AUDIT_SAMPLE_CHUNKS = Statement("audit/sample_chunks", SampleChunkRow)
    AUDIT_DOCUMENT_COSINES = Statement("audit/document_cosines", DocumentCosineRow)
    # expand: the expansion along links and entity bridges (service/retrieval/expansion.py);
    # walk: the Personalized PageRank prior (service/retrieval/walk.py)
    EXPAND_REACHED = Statement("expand/reached", ReachedRow)
    WALK_NEIGHBOURHOOD = Statement("walk/neighbourhood", WalkEdgeRow)
    # links: the title-link pass over an existing graph (loaders/title_pass.py)
    TITLE_PASS_DOCUMENTS = Statement("links/title_pass_documents", TitlePassDocumentRow)
    DELETE_TITLE_LINKS = Statement("links/delete_title_links", DeletedTitleLinksRow)
    # search: query analysis, candidate paths, scoring (service/retrieval)
    DETECT_ENTITIES = Statement("search/detect_entities", DetectedEntityRow)
    FILTERED_DOCUMENTS = Statement("search/filtered_documents", IdRow)
    DENSE_CHUNKS = Statement("search/dense_chunks", CandidatesRow)
    DENSE_CHUNKS_EXACT = Statement("search/dense_chunks_exact", CandidatesRow)
    DENSE_DOCUMENTS = Statement("search/dense_documents", CandidatesRow)
    DENSE_DOCUMENTS_EXACT = Statement("search/dense_documents_exact", CandidatesRow)
    BM25_CHUNKS = Statement("search/bm25_chunks", CandidatesRow)
    BM25_DOCUMENTS = Statement("search/bm25_documents", CandidatesRow)
    TFIDF_CHUNKS = Statement("search/tfidf_chunks", CandidatesRow)
    METADATA_CHUNKS = Statement("search/metadata_chunks", CandidatesRow)
    ENTITY_CHUNKS = Statement("search/entity_chunks", CandidatesRow)
    FEEDBACK_VECTORS = Statement("search/feedback_vectors", FeedbackVectorRow)
    DOCUMENT_SIGNALS = Statement("search/document_signals", DocumentSignalsRow)
    HYDRATE_CHUNKS = Statement("search/hydrate_chunks", HydratedChunksRow)
    DOCUMENT_PRIORS = Statement("search/document_priors", DocumentPriorRow)
    FIND_ENTITIES = Statement("search/find_entities", FoundEntityRow)
    COLLECTION_SIZES = Statement("search/collection_sizes", CollectionSizeRow)
    # entities
    ENTITY_DOCUMENTS = Statement("entities/entity_documents", EntityDocumentsRow)
    # graph: the document link graph, PageRank, neighbourhoods (service/link_graph.py, api/graph)
    GRAPH_DOCUMENT_LINKS = Statement("graph/document_links", DocumentLinksRow)
    GRAPH_SET_PAGERANK = Statement("graph/set_pagerank", WrittenRow)
    GRAPH_NEIGHBOURHOOD = Statement("graph/neighbourhood", NeighbourhoodRow)
    # browser: the Neo4j Browser guide's queries (service/api/browser.py renders them)
    BROWSER_OVERVIEW = Statement("browser/overview", BrowserOverviewRow)
    BROWSER_COLLECTIONS = Statement("browser/collections", BrowserCollectionsRow)
    BROWSER_DOCUMENT_CHUNKS = Statement("browser/document_chunks", BrowserDocumentChunksRow)
    BROWSER_ENTITY_MENTIONS = Statement("browser/entity_mentions", BrowserEntityMentionsRow)
    BROWSER_EXPANSION_PATHS = Statement("browser/expansion_paths", BrowserExpansionPathsRow)
    BROWSER_FOLDER_FD = Statement("browser/folder_fd", BrowserFolderFdRow)
    BROWSER_NEIGHBOURHOOD = Statement("browser/neighbourhood", BrowserNeighbourhoodRow)
    # collections: listing and deleting whole collections (loaders/collections.py)
    LIST_COLLECTIONS = Statement("collections/list_collections", CollectionRow)
    DELETE_COLLECTION = Statement("collections/delete_collection", NoRow)
    COLLECTION_DOCUMENTS = Statement("collections/collection_documents", SyncedDocumentRow)
    SET_RANKING = Statement("collections/set_ranking", NameRow)
    # judgments: relevance judgments and the fit of a collection's weights (service/judgments.py)
    RECORD_JUDGMENT = Statement("judgments/record_judgment", RecordedJudgmentRow)
    COLLECTION_JUDGMENTS = Statement("judgments/collection_judgments", JudgmentRow)
    KNOWN_DOCUMENTS = Statement("judgments/known_documents", IdRow)
    # documents: REST reads
    GET_DOCUMENT = Statement("documents/get_document", DocumentRow)
    LIST_DOCUMENTS = Statement("documents/list_documents", DocumentPageRow)
    # admin
    DELETE_ALL = Statement("admin/delete_all", NoRow)
    GRAPH_SUMMARY = Statement("admin/graph_summary", GraphSummaryRow)
    ALL_LINKS = Statement("admin/all_links", LinkRow)
    CHUNK_VECTORS = Statement("admin/chunk_vectors", ChunkVectorRow)
    DOCUMENT_VECTORS = Statement("admin/document_vectors", DocumentVectorRow)
    # admin: re-embedding a collection with another model (loaders/reembed.py)
    REEMBED_TEXTS = Statement("admin/reembed_texts", ReembedTextsRow)
    SET_VECTORS = Statement("admin/set_vectors", NoRow)
    COLLECTION_ENTITIES = Statement("admin/collection_entities", EntityNameRow)
    SET_ENTITY_VECTORS = Statement("admin/set_entity_vectors", NoRow)
    SET_COLLECTION_MODEL = Statement("admin/set_collection_model", NoRow)
    # admin: the evaluation (evaluation/run.py, evaluation/tune.py)
    DOCUMENT_IDS = Statement("admin/document_ids", IdRow)
    DOCUMENT_SOURCE_TYPES = Statement("admin/document_source_types", DocumentSourceTypeRow)
    DOCUMENT_TITLES = Statement("admin/document_titles", DocumentTitleRow)
    GRAPH_COUNTS = Statement("admin/graph_counts", GraphCountsRow)
    DELETE_ALL_BATCHED = Statement("admin/delete_all_batched", NoRow)
    # jobs: ingest jobs of the API (service/jobs.py)
    CREATE_JOB = Statement("jobs/create_job", BusyRow)
    GET_JOB = Statement("jobs/get_job", JobRow)
    SET_JOB = Statement("jobs/set_job", JobWrittenRow)
    CANCEL_JOB = Statement("jobs/cancel_job", StateRow)
    UNOWNED_JOBS = Statement("jobs/unowned_jobs", IdRow)
    CLAIM_JOB = Statement("jobs/claim_job", ClaimRow)
    RENEW_CLAIMS = Statement("jobs/renew_claims", IdRow)
    # health
    SERVER_INFO = Statement("health/server_info", ServerInfoRow)


SCHEMA = (
    Query.CONSTRAINTS,
    Query.RANGE_INDEXES,
    Query.VECTOR_INDEXES,
    Query.SHARD_VECTOR_INDEXES,
    Query.FULLTEXT_INDEXES,
)


@cache
def text(query: Statement[Any]) -> str:
    """The whole file, header included."""
    folder, stem = query.name.split("/")
    return (
        resources.files("anchorgraph.cypher").joinpath(folder, f"{stem}.cypher").read_text("utf-8")
    )


@cache
def statements(query: Statement[Any]) -> tuple[str, ...]:
    """The file's statements without header comments or the trailing ``;``."""
    body = "\n".join(
        line for line in text(query).splitlines() if not line.lstrip().startswith("//")
    )
    parts = (part.strip() for part in _STATEMENT_END.split(body))
    return tuple(part for part in parts if part)


def cypher(query: Statement[Any]) -> str:
    """The single statement of a one-statement file (what the driver is given)."""
    (only,) = statements(query)
    return only


def every_statement() -> list[Statement[Any]]:
    """Every statement of the catalogue, in the order it lists them."""
    return [value for value in vars(Query).values() if isinstance(value, Statement)]


def all_files() -> list[str]:
    """``folder/stem`` of every ``.cypher`` file shipped, for the catalogue test."""
    root = resources.files("anchorgraph.cypher")
    return sorted(
        f"{folder.name}/{entry.name.removesuffix('.cypher')}"
        for folder in root.iterdir()
        if folder.is_dir() and not folder.name.startswith("__")
        for entry in folder.iterdir()
        if entry.name.endswith(".cypher")
    )


class _Listed(list[Any]):
    """A list whose ``repr`` is its length: what a query parameter should show in a log line."""

    def __repr__(self) -> str:
        return f"<list of {len(self)}>"


def as_parameters(values: Mapping[str, Any]) -> dict[str, Any]:
    """Query parameters with every list value logged as its length, the same values sent.

    The neo4j driver builds the text of its debug line for every RUN, logging on or off
    (``" ".join(map(repr, fields))`` in each Bolt version's ``run``), and ``repr`` of a batch of
    384-float embeddings costs more CPU than packing and sending it: for 1,000 vectors, 207 ms of
    a 238 ms round trip, against 10 ms of 39 ms with this; carrying them in
    benchmarks/write_floor.py takes 37 ms this way and 209 ms formatted. A list subclass packs to
    the same bytes (a unit test checks it with both of the driver's packers).
    """
    return {
        key: _Listed(value) if isinstance(value, list) else value for key, value in values.items()
    }
