"""anchorgraph: knowledge retrieval on Neo4j.

The public library API, for notebooks, scripts and the evaluation package. Names are imported
lazily so that ``import service`` stays instant: torch, spaCy and the driver load only when used.

* Opening: ``Settings``, ``open_runtime`` (everything a process needs, built once),
  ``open_search`` (read-only, a callable ``Searcher``), ``open_library`` (a ``Library``: a
  searcher that also ``add``s, ``ingest``s and ``delete``s documents; docs/library.md),
  ``create_app`` (the FastAPI app). Framework adapters are in ``service.adapters``.
* Searching: ``search`` over a ``SearchContext`` with ``SearchOptions``; the stages
  ``retrieve`` and ``rank_candidates`` (the fused ranking of the paths' candidates), and the
  pure functions the engine scores with (``normalise``, ``fuse``, ``multisignal_ranking``,
  ``rocchio``, ``fd_reranked``, ``rescale``), so that an offline replay ranks exactly as
  ``search`` does.
* Collections: ``DEFAULT_COLLECTION``, ``SAMPLE_COLLECTION``, ``CollectionInfo``, ``Access``
  (what a caller may read and write), ``scoped`` and ``local_id`` (an id within its collection
  and the key the graph stores it under), ``NotFound``.
* FD*: ``SourceAuthority``, ``authorities`` and ``set_authorities`` (a_source in the graph).
* Ingesting: ``read_all``, ``ingest_with_progress`` and the ``Ingestor`` of a runtime.
* Running Neo4j: ``LocalNeo4j`` (the project's own server), ``throwaway_settings``,
  ``free_port``; ``Query`` names every Cypher file and ``cypher`` gives a file's statement (for
  ``Graph.run``, the auto-commit statements a ``Graph.read`` or ``write`` cannot run).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from loaders.collections import CollectionInfo
    from loaders.fd_stats import SourceAuthority, authorities, set_authorities
    from loaders.ingest import IngestStats
    from loaders.model import SourceDocument
    from loaders.read import read_beir_corpus
    from loaders.title_links import LinkReport, link_corpus
    from service.app import create_app
    from service.embedding import Embedder, HashEmbedder
    from service.errors import AnchorgraphError, GraphUnavailable, InvalidInput, NotFound
    from service.factual_density import rescale
    from service.graph.local_server import LocalNeo4j, free_port, throwaway_settings
    from service.graph.queries import Query, cypher
    from service.graph.schema import SchemaMode
    from service.ingestion import ingest_with_progress, read_all, sample_corpus
    from service.library import Library, Searcher, open_library, open_search
    from service.retrieval.context import SearchContext
    from service.retrieval.density import fd_reranked
    from service.retrieval.feedback import rocchio
    from service.retrieval.fusion import Fusion, fuse
    from service.retrieval.lucene import escape_lucene
    from service.retrieval.normalise import Normalisation, normalise
    from service.retrieval.pipeline import search
    from service.retrieval.stages import (
        multisignal_pool,
        multisignal_ranking,
        rank_candidates,
        retrieve,
    )
    from service.retrieval.types import (
        CHUNK_PATH_WEIGHTS,
        DOCUMENT_PATH_WEIGHTS,
        AnalyzedQuery,
        Candidate,
        DetectedEntity,
        FdScore,
        Filters,
        Hit,
        Mode,
        PathName,
        Ranked,
        Ranking,
        SearchOptions,
        SearchResult,
        SignalWeightsIn,
    )
    from service.runtime import Runtime, default_embedder, open_runtime, startup_objects_frozen
    from service.scope import DEFAULT_COLLECTION, SAMPLE_COLLECTION, Access, local_id, scoped
    from service.settings import Settings
    from service.text.language import Language

_LAZY = {
    "CollectionInfo": "loaders.collections",
    "DEFAULT_COLLECTION": "service.scope",
    "SAMPLE_COLLECTION": "service.scope",
    "Access": "service.scope",
    "local_id": "service.scope",
    "scoped": "service.scope",
    "NotFound": "service.errors",
    "IngestStats": "loaders.ingest",
    "SourceAuthority": "loaders.fd_stats",
    "LinkReport": "loaders.title_links",
    "link_corpus": "loaders.title_links",
    "authorities": "loaders.fd_stats",
    "set_authorities": "loaders.fd_stats",
    "rescale": "service.factual_density",
    "fd_reranked": "service.retrieval.density",
    "FdScore": "service.retrieval.types",
    "Ranked": "service.retrieval.types",
    "SourceDocument": "loaders.model",
    "read_beir_corpus": "loaders.read",
    "create_app": "service.app",
    "Embedder": "service.embedding",
    "HashEmbedder": "service.embedding",
    "AnchorgraphError": "service.errors",
    "GraphUnavailable": "service.errors",
    "InvalidInput": "service.errors",
    "LocalNeo4j": "service.graph.local_server",
    "free_port": "service.graph.local_server",
    "throwaway_settings": "service.graph.local_server",
    "Query": "service.graph.queries",
    "cypher": "service.graph.queries",
    "SchemaMode": "service.graph.schema",
    "ingest_with_progress": "service.ingestion",
    "read_all": "service.ingestion",
    "sample_corpus": "service.ingestion",
    "Library": "service.library",
    "Searcher": "service.library",
    "open_library": "service.library",
    "open_search": "service.library",
    "SearchContext": "service.retrieval.context",
    "rocchio": "service.retrieval.feedback",
    "Fusion": "service.retrieval.fusion",
    "fuse": "service.retrieval.fusion",
    "escape_lucene": "service.retrieval.lucene",
    "Normalisation": "service.retrieval.normalise",
    "normalise": "service.retrieval.normalise",
    "search": "service.retrieval.pipeline",
    "multisignal_pool": "service.retrieval.stages",
    "multisignal_ranking": "service.retrieval.stages",
    "rank_candidates": "service.retrieval.stages",
    "retrieve": "service.retrieval.stages",
    "CHUNK_PATH_WEIGHTS": "service.retrieval.types",
    "DOCUMENT_PATH_WEIGHTS": "service.retrieval.types",
    "AnalyzedQuery": "service.retrieval.types",
    "Candidate": "service.retrieval.types",
    "DetectedEntity": "service.retrieval.types",
    "Filters": "service.retrieval.types",
    "Hit": "service.retrieval.types",
    "Mode": "service.retrieval.types",
    "PathName": "service.retrieval.types",
    "Ranking": "service.retrieval.types",
    "SearchOptions": "service.retrieval.types",
    "SearchResult": "service.retrieval.types",
    "SignalWeightsIn": "service.retrieval.types",
    "Runtime": "service.runtime",
    "Language": "service.text.language",
    "default_embedder": "service.runtime",
    "open_runtime": "service.runtime",
    "startup_objects_frozen": "service.runtime",
    "Settings": "service.settings",
}
__all__ = [
    "CHUNK_PATH_WEIGHTS",
    "DEFAULT_COLLECTION",
    "DOCUMENT_PATH_WEIGHTS",
    "SAMPLE_COLLECTION",
    "Access",
    "AnalyzedQuery",
    "AnchorgraphError",
    "Candidate",
    "CollectionInfo",
    "DetectedEntity",
    "Embedder",
    "FdScore",
    "Filters",
    "Fusion",
    "GraphUnavailable",
    "HashEmbedder",
    "Hit",
    "IngestStats",
    "InvalidInput",
    "Language",
    "Library",
    "LinkReport",
    "LocalNeo4j",
    "Mode",
    "Normalisation",
    "NotFound",
    "PathName",
    "Query",
    "Ranked",
    "Ranking",
    "Runtime",
    "SchemaMode",
    "SearchContext",
    "SearchOptions",
    "SearchResult",
    "Searcher",
    "Settings",
    "SignalWeightsIn",
    "SourceAuthority",
    "SourceDocument",
    "authorities",
    "create_app",
    "cypher",
    "default_embedder",
    "escape_lucene",
    "fd_reranked",
    "free_port",
    "fuse",
    "ingest_with_progress",
    "link_corpus",
    "local_id",
    "multisignal_pool",
    "multisignal_ranking",
    "normalise",
    "open_library",
    "open_runtime",
    "open_search",
    "rank_candidates",
    "read_all",
    "read_beir_corpus",
    "rescale",
    "retrieve",
    "rocchio",
    "sample_corpus",
    "scoped",
    "search",
    "set_authorities",
    "startup_objects_frozen",
    "throwaway_settings",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'service' has no attribute {name!r}")
