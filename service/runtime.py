"""The one place that builds what a process needs, once, from one ``Settings``.

The API's lifespan, ``open_search``, every CLI command, the evaluation and the benchmarks open a
``Runtime`` here; nothing else connects to Neo4j or loads the embedding model::

    with open_runtime(settings, schema=SchemaMode.VERIFY) as runtime:
        result = search(runtime.search, SearchOptions(query="..."))

Writers (the API, ``anchorgraph ingest``, ``db init``) apply the schema; read-only entry points
verify it and never run DDL, so a search process can run with a read-only account.

Short commands pay only for what they use: ``open_graph`` is the connection alone (no model, no
ingestion or retrieval code imported), a read-only runtime builds its entity extractor and
ingestor only if asked for them, ``query_embedder`` embeds queries without torch, and
``ModelWhenNeeded`` loads the model only once a text is to be embedded (an ingest of unchanged
files embeds none).
"""

from __future__ import annotations

import gc
import importlib
import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from anchorgraph.embedding import (
    Closeable,
    Embedder,
    Vectors,
    declared_dimension,
    load_embedder,
    load_query_embedder,
)
from anchorgraph.graph.driver import connect
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.schema import IndexState, SchemaMode, apply_schema, verify_schema
from anchorgraph.onnx_encoder import OnnxUnavailable
from anchorgraph.settings import Settings

if TYPE_CHECKING:  # imported by open_runtime and the properties that build them, not here
    from anchorgraph.embedding_remote import RemoteEmbedder
    from anchorgraph.loaders.entities import EntityExtractor
    from anchorgraph.loaders.ingest import Ingestor
    from anchorgraph.retrieval.context import SearchContext

log = logging.getLogger(__name__)

EmbedderFactory = Callable[[Settings], Embedder]


def default_embedder(settings: Settings) -> Embedder:
    """The configured embedder: the embedding server's model when ``embedding_url`` is set
    (``remote_embedder``), else the sentence-transformers model in this process (queries
    through ONNX Runtime if asked)."""
    if settings.embedding_url is not None:
        return remote_embedder(settings)
    with collector_paused():
        return load_embedder(
            settings.embedding_model,
            device=settings.embedding_device,
            batch_size=settings.embedding_batch_size,
            threads=settings.embedding_threads,
            onnx_cache=settings.cache_dir if settings.embedding_onnx_queries else None,
        )


def remote_embedder(settings: Settings) -> RemoteEmbedder:
    """The model of the embedding server at ``embedding_url`` (``anchorgraph.embedding_remote``),
    as the ``embedding_*`` settings say; nothing is asked of the server until something is
    embedded or the vectors' width is wanted."""
    from anchorgraph.embedding_remote import RemoteEmbedder, RemoteOptions, tokenizer_for

    assert settings.embedding_url is not None
    key = settings.embedding_api_key
    options = RemoteOptions(
        url=settings.embedding_url,
        model=settings.embedding_model,
        api_key=key.get_secret_value() if key is not None else None,
        dimensions=settings.embedding_dimensions,
        batch_size=settings.embedding_batch_size,
        concurrency=settings.embedding_concurrency,
        timeout_s=settings.embedding_timeout_s,
        retry_s=settings.embedding_retry_s,
    )
    return RemoteEmbedder(
        options, tokenizer_for(settings.embedding_model, settings.embedding_tokenizer)
    )


def query_embedder(settings: Settings, *, notice: Callable[[str], None] | None = None) -> Embedder:
    """The embedder of a process that embeds queries and nothing else (``anchorgraph
    search``), or a few documents (``ModelWhenNeeded``): the checked ONNX export of the
    configured model with its tokenizer, in a fraction of a second and without torch, giving
    the service's vectors (float32 agreement, ``anchorgraph.onnx_encoder``).

    Where there is no such export yet (the first run, a model changed since, or one that is not
    in a local folder), the full model is loaded instead, which checks and records the export
    for the next process; ``notice`` (default: a warning in the log) is told so and why. With
    ``embedding_onnx_queries`` off or a device other than the CPU, it is the full model as
    ``default_embedder`` gives it; with an embedding server (``embedding_url``), that server.
    """
    if (
        settings.embedding_url is not None
        or not settings.embedding_onnx_queries
        or settings.embedding_device != "cpu"
    ):
        return default_embedder(settings)
    try:
        return load_query_embedder(
            settings.embedding_model, settings.cache_dir, threads=settings.embedding_threads
        )
    except OnnxUnavailable as reason:
        (notice or log.warning)(
            f"{reason}: loading the full model {settings.embedding_model} (slow), which checks "
            "and records its ONNX export for the next runs"
        )
        return default_embedder(settings)


def load_for_writing(settings: Settings) -> Embedder:
    """The model, loaded now, and the spaCy library imported (its pipeline loads on the first
    extraction; importing the library is most of that): the seconds of start-up a process that
    writes spends in Python, for ``anchorgraph run`` to spend while Neo4j starts."""
    embedder = default_embedder(settings)
    if settings.spacy_model:
        with collector_paused():
            importlib.import_module("spacy")
    return embedder


class ModelWhenNeeded:
    """The configured model, loaded the first time a text is embedded or its tokens counted:
    an ingest or sync that finds every file unchanged, or a dry run, never loads it. Its name
    and its dimension (which the model's files declare) are known before; the content hashes
    and the schema need no more.

    It loads as ``query_embedder`` does: the model's checked ONNX export where one is recorded,
    which gives the vectors torch gives, to float32 precision, without importing torch and
    sentence-transformers (~6 CPU s of a command's start; an ingest of three notes took ~9 CPU
    s, docs/benchmarks.md "Start-up of the commands"), else the full model, which records the
    export for the next command."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._model: Embedder | None = None

    @property
    def name(self) -> str:
        return self.settings.embedding_model  # as the loaded model names itself

    @cached_property
    def dimension(self) -> int:
        # An embedding server's width is its answer's (embedding_dimensions may shorten it).
        remote = self.settings.embedding_url is not None
        declared = None if remote else declared_dimension(self.settings.embedding_model)
        return declared if declared is not None else self.model.dimension

    @property
    def model(self) -> Embedder:
        with self._lock:  # one load, whichever thread asks first
            if self._model is None:
                self._model = query_embedder(self.settings, notice=log.info)
            return self._model

    def embed(self, texts: Sequence[str]) -> Vectors:
        return self.model.embed(texts)

    def count_tokens(self, text: str) -> int:
        return self.model.count_tokens(text)

    def close(self) -> None:
        """Let go of the model's connections, when it was loaded and holds some (a server's)."""
        if isinstance(self._model, Closeable):
            self._model.close()


def embedding_dimension(settings: Settings) -> int:
    """The width of the configured model's vectors, which the vector indexes are made for: as
    the model's files declare it, without loading it (``declared_dimension``), else from the
    loaded model; with an embedding server, from its answer to a probe."""
    if settings.embedding_url is not None:
        embedder = remote_embedder(settings)
        try:
            return embedder.dimension
        finally:
            embedder.close()
    declared = declared_dimension(settings.embedding_model)
    return declared if declared is not None else default_embedder(settings).dimension


@dataclass(frozen=True)
class Runtime:
    """Everything a process uses, built once: close it by leaving ``open_runtime``.

    ``extractor`` and ``ingestor`` are built on first use (a writer's ``open_runtime`` builds
    them at once), so that a process that only searches never imports the ingestion code."""

    settings: Settings
    graph: Graph
    embedder: Embedder
    search: SearchContext
    indexes: list[IndexState]  # as found at start, every one ONLINE
    gazetteer: Path | None = None  # entities the extractor recognises besides spaCy's
    batch_size: int = 64  # documents per ingest transaction
    # How ``embedder`` was made: what another process (a Ray worker) makes its own with.
    embedder_factory: EmbedderFactory = default_embedder

    @cached_property
    def extractor(self) -> EntityExtractor:
        """The entity extractor of ingestion; spaCy loads on its first use, so readers never
        pay for it."""
        return load_extractor(self.settings, self.gazetteer)

    @cached_property
    def ingestor(self) -> Ingestor:
        """The ingestor, configured as the settings say; a write forgets the search's cached
        collection sizes."""
        from anchorgraph.loaders.ingest import Ingestor

        return Ingestor.configured(
            self.settings,
            self.graph,
            self.embedder,
            self.extractor,
            batch_size=self.batch_size,
            on_change=self.search.sizes.forget,
        )


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
            (a writer's) gazetteer cannot be read.
    """
    from anchorgraph.retrieval.context import SearchContext

    settings = settings or Settings()
    graph = connect(settings)
    try:
        embedder = embedder_factory(settings)
        try:
            writer = SchemaMode(schema) is SchemaMode.APPLY
            if writer:
                indexes = apply_schema(graph, embedder.dimension, settings.index_online_timeout_s)
            else:
                indexes = verify_schema(graph, embedder.dimension)
            context = SearchContext(graph, embedder)
            try:
                runtime = Runtime(
                    settings,
                    graph,
                    embedder,
                    context,
                    indexes,
                    gazetteer=gazetteer or settings.gazetteer,
                    batch_size=batch_size,
                    embedder_factory=embedder_factory,
                )
                if writer:  # a bad gazetteer fails the start, not the first write
                    runtime.ingestor  # noqa: B018
                yield runtime
            finally:
                context.close()
        finally:
            if isinstance(embedder, Closeable):  # an embedding server's client
                embedder.close()
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
    from anchorgraph.loaders.entities import EntityExtractor, GazetteerEntry, load_gazetteer

    entries: list[GazetteerEntry] = load_gazetteer(gazetteer) if gazetteer else []
    return EntityExtractor(
        settings.spacy_model or None, gazetteer=entries, casing_names=settings.casing_names
    )


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic garbage collection while the block runs: importing torch, transformers and
    spaCy makes hundreds of thousands of objects, and the collector's full passes over them
    (twenty while the model and spaCy load) cost ~0.5 of their ~8 CPU seconds here, for garbage
    that is none: what they make lives as long as the process."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


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
