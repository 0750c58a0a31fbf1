"""The FastAPI app factory. The runtime (driver, model, search, ingestor) opens in the lifespan."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from service.api import audit, documents, graph, health, search
from service.api.errors import install_error_handlers
from service.graph.schema import SchemaMode
from service.runtime import EmbedderFactory, default_embedder, open_runtime, startup_objects_frozen
from service.settings import Settings

log = logging.getLogger(__name__)


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
        # The API writes (POST /documents), so it applies the schema like every writer.
        with open_runtime(
            settings, schema=SchemaMode.APPLY, embedder_factory=embedder_factory
        ) as runtime:
            log.info("schema ready: %d indexes online", len(runtime.indexes))
            app.state.runtime = runtime
            with startup_objects_frozen():
                yield

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
    app.include_router(audit.router)
    app.include_router(graph.router)
    return app
