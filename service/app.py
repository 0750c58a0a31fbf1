"""The FastAPI app factory. The runtime (driver, model, search, ingestor) opens in the lifespan."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI

from anchorgraph.api import (
    audit,
    browser,
    collections,
    documents,
    graph,
    health,
    judgments,
    search,
    web,
)
from anchorgraph.api import jobs as jobs_api
from anchorgraph.api.deadline import install_deadline
from anchorgraph.api.deps import json_bodies_only
from anchorgraph.api.docs import install_docs
from anchorgraph.api.errors import install_error_handlers
from anchorgraph.api.metrics import install_metrics
from anchorgraph.api.security import install_security
from anchorgraph.api.warm import Requests, RequestsMiddleware, keep_warm
from anchorgraph.graph.schema import SchemaMode
from anchorgraph.jobs import JobRunner
from anchorgraph.runtime import (
    EmbedderFactory,
    default_embedder,
    open_runtime,
    startup_objects_frozen,
)
from anchorgraph.settings import Settings

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
    requests = Requests()  # in flight, counted by the middleware; the warm-up gives way to them

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # The API writes (POST /documents), so it applies the schema like every writer.
        with open_runtime(
            settings, schema=SchemaMode.APPLY, embedder_factory=embedder_factory
        ) as runtime:
            log.info("schema ready: %d indexes online", len(runtime.indexes))
            app.state.runtime = runtime
            # Ingest jobs the last API left unfinished go on (service/jobs.py).
            app.state.jobs = jobs = JobRunner(runtime)
            resumed = jobs.resume()
            if resumed:
                log.info("resumed %d ingest jobs", len(resumed))
            # Warmed before the freeze, so what the first searches load is frozen too.
            with keep_warm(runtime, requests) as warmer, startup_objects_frozen():
                app.state.warm_start = warmer
                try:
                    yield
                finally:
                    jobs.stop()  # each after its batch under way; resumed at the next start

    app = FastAPI(
        title="anchorgraph",
        # 0.2: a search request's options grouped by stage (docs/api.md, "Versions").
        version="0.2.0",
        summary="Hybrid retrieval on Neo4j with multi-signal scoring and hyperlink expansion.",
        lifespan=lifespan,
        # Served by install_docs, from the package's files rather than a CDN.
        docs_url=None,
        redoc_url=None,
        dependencies=[Depends(json_bodies_only)],
    )
    install_docs(app)
    install_error_handlers(app)
    app.include_router(health.router)
    app.include_router(collections.router)
    app.include_router(documents.router)
    app.include_router(jobs_api.router)
    app.include_router(search.router)
    app.include_router(judgments.router)
    app.include_router(audit.router)
    app.include_router(graph.router)
    app.include_router(web.router)
    app.include_router(browser.router)
    # Security first, metrics last: the metrics middleware is then the outermost and counts
    # what the security middleware refuses too.
    # Neo4j Browser fetches /browser/* with no key and answers their CORS itself; the search
    # page's files and options are public too (its searches still send the key).
    install_security(app, settings, public=("/browser", "/static", "/ui"), own_cors=("/browser",))
    # Inside the metrics middleware, so a request's time counts its wait for the deadline.
    install_deadline(app, settings.request_deadline_s)
    app.add_middleware(RequestsMiddleware, requests=requests)
    install_metrics(app)
    return app
