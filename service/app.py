"""The FastAPI app factory. The driver and the embedding model are created in the lifespan."""

from __future__ import annotations

import gc
import logging
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager

from fastapi import FastAPI

from service.api import documents, health, search
from service.api.deps import Resources
from service.api.errors import install_error_handlers
from service.embedding import Embedder, load_embedder
from service.graph.driver import connect
from service.graph.schema import apply_schema
from service.ingestion import load_extractor, make_ingestor
from service.retrieval.pipeline import SearchContext
from service.settings import Settings

log = logging.getLogger(__name__)

EmbedderFactory = Callable[[Settings], Embedder]


def default_embedder(settings: Settings) -> Embedder:
    return load_embedder(
        settings.embedding_model,
        device=settings.embedding_device,
        batch_size=settings.embedding_batch_size,
        threads=settings.embedding_threads,
        onnx_cache=settings.cache_dir if settings.embedding_onnx_queries else None,
    )


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


def create_app(
    settings: Settings | None = None, *, embedder_factory: EmbedderFactory = default_embedder
) -> FastAPI:
    """Build the API. Nothing connects or loads until the app starts (its lifespan).

    Args:
        settings: configuration; read from the environment when omitted.
        embedder_factory: how the model is loaded (tests may hand in a light one).
    """
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        driver = connect(settings)
        try:
            embedder = embedder_factory(settings)
            states = apply_schema(
                driver, settings.neo4j_database, embedder.dimension, settings.index_online_timeout_s
            )
            log.info("schema ready: %d indexes online", len(states))
            extractor = load_extractor(settings, settings.gazetteer)
            ingestor = make_ingestor(settings, driver, embedder, extractor)
            search = SearchContext(driver, embedder, extractor, settings.neo4j_database)
            app.state.resources = Resources(
                settings=settings,
                driver=driver,
                embedder=embedder,
                ingestor=ingestor,
                search=search,
            )
            try:
                with startup_objects_frozen():
                    yield
            finally:
                search.close()
        finally:
            driver.close()

    app = FastAPI(
        title="anchorgraph",
        version="0.1.0",
        summary="Hybrid retrieval on Neo4j with multi-signal scoring and hyperlink expansion.",
        lifespan=lifespan,
    )
    install_error_handlers(app)
    app.include_router(health.router)
    app.include_router(documents.router)
    app.include_router(search.router)
    return app
