"""The one place that builds what a process needs, once, from one ``Settings``.

The API's lifespan, ``open_search``, every CLI command, the evaluation and the benchmarks open a
``Runtime`` here; nothing else connects to Neo4j or loads the embedding model::

    with open_runtime(settings, schema=SchemaMode.VERIFY) as runtime:
        result = search(runtime.search, SearchOptions(query="..."))

Writers (the API, ``anchorgraph ingest``, ``db init``) apply the schema; read-only entry points
verify it and never run DDL, so a search process can run with a read-only account.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from loaders.entities import EntityExtractor, GazetteerEntry, load_gazetteer
from loaders.ingest import Ingestor
from service.embedding import Embedder, load_embedder
from service.graph.driver import connect
from service.graph.gateway import Graph
from service.graph.schema import IndexState, SchemaMode, apply_schema, verify_schema
from service.retrieval.context import SearchContext
from service.settings import Settings

EmbedderFactory = Callable[[Settings], Embedder]


def default_embedder(settings: Settings) -> Embedder:
    """The configured sentence-transformers model (queries through ONNX Runtime if asked)."""
    return load_embedder(
        settings.embedding_model,
        device=settings.embedding_device,
        batch_size=settings.embedding_batch_size,
        threads=settings.embedding_threads,
        onnx_cache=settings.cache_dir if settings.embedding_onnx_queries else None,
    )


@dataclass(frozen=True)
class Runtime:
    """Everything a process uses, built once: close it by leaving ``open_runtime``."""

    settings: Settings
    graph: Graph
    embedder: Embedder
    extractor: EntityExtractor  # spaCy loads on its first use, so readers never pay for it
    search: SearchContext
    ingestor: Ingestor
    indexes: list[IndexState]  # as found at start, every one ONLINE


@contextmanager
def open_runtime(
    settings: Settings | None = None,
    *,
    schema: SchemaMode | str = SchemaMode.VERIFY,
    embedder_factory: EmbedderFactory = default_embedder,
    gazetteer: Path | None = None,
    batch_size: int = 64,
) -> Iterator[Runtime]:
    """Connect, load the model, check or apply the schema, and build the search context and the
    ingestor; close them all on exit.

    Args:
        settings: configuration; read from the environment when omitted.
        schema: ``apply`` (create what is missing, wait until ONLINE) for writers, ``verify``
            (check only) for read-only processes.
        embedder_factory: how the model is loaded (plumbing tests hand in a fake one).
        gazetteer: entities to recognise at ingest; default: ``settings.gazetteer``.
        batch_size: documents per ingest transaction.

    Raises:
        GraphUnavailable: Neo4j cannot be reached or refused the credentials.
        SchemaMissing: ``verify`` found no schema (run ``anchorgraph db init``).
        IndexNotReady: an index is not ONLINE (in time).
        InvalidInput: the graph's vector indexes were built for another model's dimension, or
            the gazetteer cannot be read.
    """
    settings = settings or Settings()
    graph = connect(settings)
    try:
        embedder = embedder_factory(settings)
        if SchemaMode(schema) is SchemaMode.APPLY:
            indexes = apply_schema(graph, embedder.dimension, settings.index_online_timeout_s)
        else:
            indexes = verify_schema(graph, embedder.dimension)
        extractor = load_extractor(settings, gazetteer or settings.gazetteer)
        context = SearchContext(graph, embedder)
        ingestor = Ingestor.configured(
            settings,
            graph,
            embedder,
            extractor,
            batch_size=batch_size,
            on_change=context.sizes.forget,
        )
        try:
            yield Runtime(settings, graph, embedder, extractor, context, ingestor, indexes)
        finally:
            context.close()
    finally:
        graph.close()


@contextmanager
def open_graph(settings: Settings | None = None) -> Iterator[Graph]:
    """The graph alone, for maintenance that needs no model (``anchorgraph fd``): connect, and
    close on exit; the schema is neither applied nor checked."""
    graph = connect(settings or Settings())
    try:
        yield graph
    finally:
        graph.close()


def load_extractor(settings: Settings, gazetteer: Path | None = None) -> EntityExtractor:
    entries: list[GazetteerEntry] = load_gazetteer(gazetteer) if gazetteer else []
    return EntityExtractor(settings.spacy_model or None, gazetteer=entries)


@contextmanager
def startup_objects_frozen() -> Iterator[None]:
    """Exempt everything loaded so far (torch, transformers, spaCy, the driver: ~520,000
    objects) from the cyclic garbage collector while the block runs. Its occasional full pass
    walks every tracked object, 250 ms here, and whichever search it lands in waits for it;
    ``gc.freeze`` is CPython's answer for long-lived start-up state
    (docs.python.org/3/library/gc.html). Unfrozen at the end, so that they are freed at exit
    (nanobind extensions report frozen objects as leaks)."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
