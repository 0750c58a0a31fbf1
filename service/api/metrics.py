"""``GET /metrics`` in the Prometheus text format (prometheus_client), and what feeds it.

* Requests: a count per method, route template (``/documents/{document_id:path}``, never the
  raw path, so the number of series stays bounded) and status, and a latency histogram per
  method and route, from an ASGI middleware that sees every answer, the security middleware's
  refusals included (as route ``unrouted``: they are answered before routing).
* Searches: the duration of each stage a search reports (``SearchResult.timings``: filter,
  analyse, ``path:<name>``, fuse, the ranking stages, hydrate) and of the whole search.
* Neo4j errors: every request that failed because of the graph (``GraphUnavailable``,
  ``IndexNotReady``, or a driver error nothing mapped), by error class.

Under ``anchorgraph serve --workers N`` each worker is a process of its own; the command points
``PROMETHEUS_MULTIPROC_DIR`` at a fresh folder, and ``/metrics`` then adds up every worker's
series (prometheus_client's multiprocess mode), whichever worker answers the scrape.
"""

from __future__ import annotations

import inspect
import os
import time
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, FastAPI, Request, Response
from neo4j.exceptions import DriverError, Neo4jError
from prometheus_client import REGISTRY, CollectorRegistry, Counter, Histogram
from prometheus_client.exposition import choose_encoder
from prometheus_client.multiprocess import MultiProcessCollector
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from anchorgraph.errors import AnchorgraphError, GraphUnavailable, IndexNotReady
from anchorgraph.retrieval.results import SearchResult

# Seconds; a search's stages take from tens of microseconds (fuse) to seconds (a cold path).
_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})

REQUESTS = Counter(
    "anchorgraph_http_requests",
    "HTTP requests answered, by method, route template and status.",
    ["method", "route", "status"],
)
REQUEST_SECONDS = Histogram(
    "anchorgraph_http_request_duration_seconds",
    "Time to answer an HTTP request, by method and route template.",
    ["method", "route"],
    buckets=_BUCKETS,
)
SEARCH_STAGE_SECONDS = Histogram(
    "anchorgraph_search_stage_duration_seconds",
    "Time of each stage of a search (SearchResult.timings).",
    ["stage"],
    buckets=_BUCKETS,
)
SEARCH_SECONDS = Histogram(
    "anchorgraph_search_duration_seconds",
    "Time of a whole search (SearchResult.total_ms), by mode and level.",
    ["mode", "level"],
    buckets=_BUCKETS,
)
NEO4J_ERRORS = Counter(
    "anchorgraph_neo4j_errors",
    "Requests that failed because of Neo4j, by error class.",
    ["error"],
)

router = APIRouter(tags=["operations"])


@router.get("/metrics", include_in_schema=False)
def metrics(request: Request) -> Response:
    """Every series above (and the process's own), in the format the scraper accepts."""
    registry: CollectorRegistry = REGISTRY
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    encoder, content_type = choose_encoder(request.headers.get("accept", ""))
    return Response(encoder(registry), headers={"Content-Type": content_type})


def observe_search(result: SearchResult) -> None:
    """Record a search's stage timings and total time."""
    for timing in result.timings:
        SEARCH_STAGE_SECONDS.labels(timing.stage).observe(timing.ms / 1000)
    SEARCH_SECONDS.labels(str(result.mode), result.level).observe(result.total_ms / 1000)


def install_metrics(app: FastAPI) -> None:
    """Serve ``/metrics``, time every request, and count Neo4j failures. Call it after the
    error handlers are installed: their handlers of graph errors are wrapped to count them."""
    app.include_router(router)
    app.add_middleware(MetricsMiddleware)
    for kind, handler in list(app.exception_handlers.items()):
        if isinstance(kind, type) and issubclass(kind, AnchorgraphError):
            app.exception_handlers[kind] = _counting(handler)


Handler = Callable[[Request, Any], Response | Awaitable[Response]]


def _counting(handler: Handler) -> Handler:
    async def counted(request: Request, error: Exception) -> Response:
        if isinstance(error, GraphUnavailable | IndexNotReady):
            NEO4J_ERRORS.labels(type(error).__name__).inc()
        answer = handler(request, error)
        return await answer if inspect.isawaitable(answer) else answer

    return counted


class MetricsMiddleware:
    """Counts and times every HTTP request by its route template."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500  # what the server answers when the app fails before it answered

        async def watched_send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, watched_send)
        except (Neo4jError, DriverError) as error:
            NEO4J_ERRORS.labels(type(error).__name__).inc()
            raise
        finally:
            method = scope["method"] if scope["method"] in _METHODS else "other"
            route = self._template(scope)
            REQUESTS.labels(method, route, str(status)).inc()
            REQUEST_SECONDS.labels(method, route).observe(time.perf_counter() - started)

    @staticmethod
    def _template(scope: Scope) -> str:
        """The path template of the route the router matched (it leaves the route in the
        scope); ``unrouted`` for what was answered before or without one: a missing key, a
        body too large, a CORS preflight, an unknown path."""
        path = getattr(scope.get("route"), "path", None)
        return path if isinstance(path, str) else "unrouted"
