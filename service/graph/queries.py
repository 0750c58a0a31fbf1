"""The catalogue of named Cypher files in the ``anchorgraph.cypher`` resource package.

A ``Query`` member names a file (``Query.CONSTRAINTS`` → ``cypher/schema/constraints.cypher``), so a
typo fails in mypy rather than at run time; a unit test checks that members and files match one to
one. Text is read once and cached. Most files hold one statement; schema files hold several, each
ending with ``;`` at the end of a line, and ``statements()`` splits them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from enum import StrEnum
from functools import cache
from importlib import resources
from typing import Any

_STATEMENT_END = re.compile(r";[ \t]*$", re.MULTILINE)


class Query(StrEnum):
    """Every Cypher file, named by ``folder/stem`` under ``cypher/``."""

    # schema: applied by `anchorgraph db init` and on service start
    CONSTRAINTS = "schema/constraints"
    RANGE_INDEXES = "schema/range_indexes"
    VECTOR_INDEXES = "schema/vector_indexes"
    SHARD_VECTOR_INDEXES = "schema/shard_vector_indexes"
    FULLTEXT_INDEXES = "schema/fulltext_indexes"
    INDEX_STATES = "schema/index_states"
    VECTOR_INDEX_DIMENSIONS = "schema/vector_index_dimensions"
    AWAIT_INDEXES = "schema/await_indexes"
    # upgrade: graphs written by earlier versions, brought up to date in place (graph/schema.py)
    UPGRADE_DROP_GLOBAL_CONSTRAINTS = "upgrade/drop_global_constraints"
    UPGRADE_COLLECTIONS_NEEDED = "upgrade/collections_needed"
    UPGRADE_COLLECTIONS = "upgrade/collections"
    UPGRADE_UNSHARDED_COLLECTIONS = "upgrade/unsharded_collections"
    UPGRADE_SHARD_COLLECTION = "upgrade/shard_collection"
    UPGRADE_UNKEYED_COLLECTIONS = "upgrade/unkeyed_collections"
    UPGRADE_ACCENTED_ENTITIES = "upgrade/accented_entities"
    UPGRADE_ADD_ALIAS_KEYS = "upgrade/add_alias_keys"
    # load: ingestion writes (loaders/graph_writer.py)
    FREE_SHARD = "load/free_shard"
    LOCK_COLLECTION = "load/lock_collection"
    COUNT_COLLECTION = "load/count_collection"
    EXISTING_HASHES = "load/existing_hashes"
    DETACH_INCOMING_LINKS = "load/detach_incoming_links"
    DELETE_DOCUMENT_CONTENT = "load/delete_document_content"
    UPSERT_DOCUMENTS = "load/upsert_documents"
    FILE_DOCUMENTS = "load/file_documents"
    CREATE_CHUNKS = "load/create_chunks"
    CREATE_CLAIMS = "load/create_claims"
    EMBEDDED_ENTITIES = "load/embedded_entities"
    UPSERT_ENTITIES = "load/upsert_entities"
    CREATE_MENTIONS = "load/create_mentions"
    CREATE_TRIPLES = "load/create_triples"
    CREATE_LINKS = "load/create_links"
    RESOLVE_UNRESOLVED = "load/resolve_unresolved"
    DELETE_ORPHAN_ENTITIES = "load/delete_orphan_entities"
    DELETE_ORPHAN_PLACEHOLDERS = "load/delete_orphan_placeholders"
    DELETE_ORPHAN_TERMS = "load/delete_orphan_terms"
    DELETE_DOCUMENTS = "load/delete_documents"
    # fd: FD* length bins, their statistics and source authority (loaders/fd_stats.py)
    FD_LOCK_COLLECTION = "fd/lock_collection"
    FD_COUNT_DOCUMENTS = "fd/count_documents"
    FD_LENGTHS = "fd/lengths"
    FD_RESET_STATS = "fd/reset_stats"
    FD_STATS = "fd/stats"
    FD_DROP_STATS = "fd/drop_stats"
    FD_SET_AUTHORITY = "fd/set_authority"
    FD_AUTHORITIES = "fd/authorities"
    FD_INPUTS = "fd/fd_inputs"
    # audit: the FD* audits (service/audit)
    AUDIT_FD_NODES = "audit/fd_nodes"
    AUDIT_NEAREST_CHUNKS = "audit/nearest_chunks"
    AUDIT_CHUNK_IDS = "audit/chunk_ids"
    AUDIT_SAMPLE_CHUNKS = "audit/sample_chunks"
    AUDIT_DOCUMENT_COSINES = "audit/document_cosines"
    # expand: the expansion along links and entity bridges (service/retrieval/expansion.py);
    # walk: the Personalized PageRank prior (service/retrieval/walk.py)
    EXPAND_REACHED = "expand/reached"
    WALK_NEIGHBOURHOOD = "walk/neighbourhood"
    # links: the title-link pass over an existing graph (loaders/title_pass.py)
    TITLE_PASS_DOCUMENTS = "links/title_pass_documents"
    DELETE_TITLE_LINKS = "links/delete_title_links"
    # search: query analysis, candidate paths, scoring (service/retrieval)
    DETECT_ENTITIES = "search/detect_entities"
    FILTERED_DOCUMENTS = "search/filtered_documents"
    DENSE_CHUNKS = "search/dense_chunks"
    DENSE_CHUNKS_EXACT = "search/dense_chunks_exact"
    DENSE_DOCUMENTS = "search/dense_documents"
    DENSE_DOCUMENTS_EXACT = "search/dense_documents_exact"
    BM25_CHUNKS = "search/bm25_chunks"
    BM25_DOCUMENTS = "search/bm25_documents"
    TFIDF_CHUNKS = "search/tfidf_chunks"
    METADATA_CHUNKS = "search/metadata_chunks"
    ENTITY_CHUNKS = "search/entity_chunks"
    FEEDBACK_VECTORS = "search/feedback_vectors"
    DOCUMENT_SIGNALS = "search/document_signals"
    HYDRATE_CHUNKS = "search/hydrate_chunks"
    DOCUMENT_PRIORS = "search/document_priors"
    FIND_ENTITIES = "search/find_entities"
    COLLECTION_SIZES = "search/collection_sizes"
    # entities
    ENTITY_DOCUMENTS = "entities/entity_documents"
    # graph: the document link graph, PageRank, neighbourhoods (service/link_graph.py, api/graph)
    GRAPH_DOCUMENT_LINKS = "graph/document_links"
    GRAPH_SET_PAGERANK = "graph/set_pagerank"
    GRAPH_NEIGHBOURHOOD = "graph/neighbourhood"
    # browser: the Neo4j Browser guide's queries (service/api/browser.py renders them)
    BROWSER_OVERVIEW = "browser/overview"
    BROWSER_COLLECTIONS = "browser/collections"
    BROWSER_DOCUMENT_CHUNKS = "browser/document_chunks"
    BROWSER_ENTITY_MENTIONS = "browser/entity_mentions"
    BROWSER_EXPANSION_PATHS = "browser/expansion_paths"
    BROWSER_FOLDER_FD = "browser/folder_fd"
    BROWSER_NEIGHBOURHOOD = "browser/neighbourhood"
    # collections: listing and deleting whole collections (loaders/collections.py)
    LIST_COLLECTIONS = "collections/list_collections"
    DELETE_COLLECTION = "collections/delete_collection"
    COLLECTION_DOCUMENTS = "collections/collection_documents"
    SET_RANKING = "collections/set_ranking"
    # judgments: relevance judgments and the fit of a collection's weights (service/judgments.py)
    RECORD_JUDGMENT = "judgments/record_judgment"
    COLLECTION_JUDGMENTS = "judgments/collection_judgments"
    KNOWN_DOCUMENTS = "judgments/known_documents"
    # documents: REST reads
    GET_DOCUMENT = "documents/get_document"
    LIST_DOCUMENTS = "documents/list_documents"
    # admin
    DELETE_ALL = "admin/delete_all"
    GRAPH_SUMMARY = "admin/graph_summary"
    ALL_LINKS = "admin/all_links"
    CHUNK_VECTORS = "admin/chunk_vectors"
    DOCUMENT_VECTORS = "admin/document_vectors"
    # admin: the evaluation (evaluation/run.py, evaluation/tune.py)
    DOCUMENT_IDS = "admin/document_ids"
    DOCUMENT_SOURCE_TYPES = "admin/document_source_types"
    DOCUMENT_TITLES = "admin/document_titles"
    GRAPH_COUNTS = "admin/graph_counts"
    DELETE_ALL_BATCHED = "admin/delete_all_batched"
    # health
    SERVER_INFO = "health/server_info"


SCHEMA = (
    Query.CONSTRAINTS,
    Query.RANGE_INDEXES,
    Query.VECTOR_INDEXES,
    Query.SHARD_VECTOR_INDEXES,
    Query.FULLTEXT_INDEXES,
)


@cache
def text(query: Query) -> str:
    """The whole file, header included."""
    folder, stem = query.value.split("/")
    return (
        resources.files("anchorgraph.cypher").joinpath(folder, f"{stem}.cypher").read_text("utf-8")
    )


@cache
def statements(query: Query) -> tuple[str, ...]:
    """The file's statements without header comments or the trailing ``;``."""
    body = "\n".join(
        line for line in text(query).splitlines() if not line.lstrip().startswith("//")
    )
    parts = (part.strip() for part in _STATEMENT_END.split(body))
    return tuple(part for part in parts if part)


def cypher(query: Query) -> str:
    """The single statement of a one-statement file (what the driver is given)."""
    (only,) = statements(query)
    return only


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
    a 238 ms round trip, against 10 ms of 39 ms with this (2026-11-30); carrying them in
    benchmarks/write_floor.py went from 209 to 37 ms. A list subclass packs to the same bytes (a
    unit test checks it with both of the driver's packers).
    """
    return {
        key: _Listed(value) if isinstance(value, list) else value for key, value in values.items()
    }
