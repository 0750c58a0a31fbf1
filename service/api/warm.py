"""Warm start: the first search and the first write a person makes should be as fast as the
hundredth.

A search pays once for everything it touches first: in the API process, the model's first
inferences and the first run of each code path; in Neo4j, the plan of each search statement
(the query cache starts empty with the server) and the first reads of the indexes' files. A
write pays the same for its own statements, and for spaCy's and the model's first batch. So
the API rehearses one write (``WARM_DOCUMENT``, in a transaction rolled back: nothing stays)
while it runs the search the search page sends (``FIRST_SEARCHES``), and serves once that
search is warm, the rehearsal's last statements still being planned (the write took ~1 s longer
than the search, and a write sent at once waits for them: 0.39-0.48 s); then, while it serves,
one throwaway search of each other kind (``WARM_SEARCHES``: every path, both levels, the
ranking stages). Measured with ``benchmarks/warm_start.py`` (medians of two runs, the sample
corpus): warming all of it before serving makes start-up ~10 s longer; all of it in the
background leaves a search made at once waiting 3.8 s for the plans the warm-up is making; the
write and the page's search first, side by side, add ~4.5 s to an 8 s start-up; with the
background giving way (below), a search made at once takes ~160 ms and a write ~0.4 s (0.84 s
without giving way).
The background part gives way to the requests it warms for: before each of its searches it waits
until no request has been in flight for ``QUIET_S`` (``Requests.quiet``, at most ``YIELD_S``), so
that a person's first search shares the two cores with at most one warm search, not a queue of
them.
It warms again whenever Neo4j comes back after an outage. The graph gateway notices failures
request by request but not a recovery, so a watcher thread asks Neo4j for its version every
``interval_s`` (the query of ``GET /health``); the first answer after a failure warms again.
Figures: ``docs/benchmarks.md`` ("Warm start", and "Server settings" for the ways compared).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from anchorgraph.errors import AnchorgraphError
from anchorgraph.graph.queries import Query
from anchorgraph.loaders.model import SourceDocument
from anchorgraph.loaders.read import read_bytes
from anchorgraph.retrieval.options import SearchOptions
from anchorgraph.retrieval.pipeline import search
from anchorgraph.runtime import Runtime
from anchorgraph.scope import DEFAULT_COLLECTION

log = logging.getLogger(__name__)

# Neo4j caches a plan per statement and per parameter types, and an empty list, a list of
# strings and null are three types: the metadata path planned again for a query without
# identifiers (1.0 s) after a warm-up with one. So each search runs twice, for plain words and
# for words with an identifier-shaped code and an acronym (which may name entities).
WARM_QUERIES = (
    "warm start: humidity and light in the storerooms",
    "warm start: the AG-2048 sensors of the MAC",
)
# What the search page sends (hybrid, chunk level, explained): warmed, with a write, before the
# API serves.
FIRST_SEARCHES: tuple[dict[str, Any], ...] = ({"explain": True},)
# Then one search of each other kind, together running every candidate path and ranking stage:
# the single paths, chunk-level hybrid with expansion and the FD* rerank, document-level hybrid
# with its document paths, feedback and priors, and multisignal scoring.
WARM_SEARCHES: tuple[dict[str, Any], ...] = (
    {"mode": "dense"},
    {"mode": "bm25"},
    {"mode": "tfidf"},
    {"explain": True, "expand": True, "fd_rerank": True},
    {"level": "document", "explain": True, "fd_weight": 0.1, "pagerank_weight": 0.1},
    {"mode": "multisignal", "explain": True},
)
WATCH_INTERVAL_S = 5.0
# A background warm search waits for this long a pause in the requests, and no longer than
# YIELD_S: under steady traffic the requests warm their own plans, and the warm-up still ends.
QUIET_S = 0.2
YIELD_S = 1.0


# A small document of each part a write writes: a heading, an identifier, a link, a sentence
# with a claim and names for the entity extractor.
WARM_DOCUMENT_ID = "anchorgraph-warm-start.md"
WARM_DOCUMENT = (
    "# Warm start\n\nThe AG-2048 sensor in Gallery 3 of the Museu de Arte Contemporânea "
    "recorded 61 % humidity in 1987, as [the report](report.md) says.\n"
)


def warm_document() -> SourceDocument:
    data = WARM_DOCUMENT.encode("utf-8")
    return read_bytes(data, doc_id=WARM_DOCUMENT_ID, fmt="markdown", max_bytes=len(data))


@dataclass(frozen=True)
class WarmUp:
    """What one warm-up did: how many searches and rehearsed writes ran, how long they took,
    and why it stopped early (None: all ran)."""

    searches: int
    ms: float
    failed: str | None = None
    writes: int = 0


# A search in named collections filters the paths on them (a list where the searches above pass
# null): its plans are planned apart, so the first such search is warmed too.
IN_COLLECTION_SEARCHES: tuple[dict[str, Any], ...] = ({}, {"level": "document"})


def warm_up(
    runtime: Runtime,
    serving: Callable[[], None] = lambda: None,
    give_way: Callable[[], object] = lambda: None,
    stopping: Callable[[], bool] = lambda: False,
) -> WarmUp:
    """Rehearse writing ``WARM_DOCUMENT`` into the graph's first collection (or the default
    one; rolled back) while running ``FIRST_SEARCHES``, and call ``serving`` once they ran,
    whether or not the rehearsal has ended; once it has, run
    ``WARM_SEARCHES`` and ``IN_COLLECTION_SEARCHES`` in that collection, calling ``give_way``
    before each. Each search runs for each of ``WARM_QUERIES`` and its answer is thrown away.
    It stops at the first that fails (calling ``serving`` if it has not), and before the next
    search once ``stopping`` says so (the API is stopping: Ctrl-C waits for no warm-up)."""
    started = time.perf_counter()
    done = writes = 0
    try:
        collections = sorted(runtime.search.sizes.get(runtime.graph.read))[:1]
        collection = collections[0] if collections else DEFAULT_COLLECTION
        # The write beside the searches: the model and spaCy work in Python while Neo4j plans.
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="warm-write") as pool:
            rehearsing = runtime.ingestor.rehearsing()
            write = pool.submit(rehearsing.ingest, [warm_document()], collection=collection)
            for options in FIRST_SEARCHES:
                done += _run_searches(runtime, options)
            serving()  # the rehearsal's last statements may still be planned: a write waits
            write.result()
            writes += 1
        in_collection = [{**o, "collections": collections} for o in IN_COLLECTION_SEARCHES]
        for options in [*WARM_SEARCHES, *(in_collection if collections else [])]:
            give_way()
            if stopping():
                return WarmUp(done, _ms_since(started), "the API stopped", writes)
            done += _run_searches(runtime, options)
    except AnchorgraphError as error:  # Neo4j went away meanwhile: the watcher tries again
        serving()
        return WarmUp(done, _ms_since(started), f"{type(error).__name__}: {error}", writes)
    return WarmUp(done, _ms_since(started), writes=writes)


def _run_searches(runtime: Runtime, options: dict[str, Any]) -> int:
    for query in WARM_QUERIES:
        search(runtime.search, SearchOptions.model_validate({"query": query, **options}))
    return len(WARM_QUERIES)


def _ms_since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)


class Requests:
    """How many requests are in flight (``RequestsMiddleware`` counts them), for a background
    task that should run between them."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._in_flight = 0
        self._last_ended = float("-inf")

    def opened(self) -> None:
        """The API begins to serve (again): a pause counts from now, so that a request sent the
        moment it serves finds no background work ahead of it."""
        with self._changed:
            self._last_ended = max(self._last_ended, time.monotonic())

    @contextmanager
    def serving(self) -> Iterator[None]:
        """Count one request in flight for the block."""
        with self._changed:
            self._in_flight += 1
        try:
            yield
        finally:
            with self._changed:
                self._in_flight -= 1
                self._last_ended = time.monotonic()
                self._changed.notify_all()

    def quiet(self, quiet_s: float = QUIET_S, limit_s: float = YIELD_S) -> bool:
        """Wait until no request has been in flight for ``quiet_s``, at most ``limit_s``;
        returns whether it was quiet."""
        give_up = time.monotonic() + limit_s
        with self._changed:
            while True:
                now = time.monotonic()
                still = quiet_s - (now - self._last_ended) if self._in_flight == 0 else quiet_s
                if self._in_flight == 0 and still <= 0:
                    return True
                if now >= give_up:
                    return False
                self._changed.wait(min(still, give_up - now))


class RequestsMiddleware:
    """Counts each HTTP request in ``requests`` while the app handles it."""

    def __init__(self, app: ASGIApp, requests: Requests) -> None:
        self.app, self.requests = app, requests

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        with self.requests.serving():
            await self.app(scope, receive, send)


class Warmer:
    """Warms at start, then watches: ``ping`` raising an ``AnchorgraphError`` is an outage, and
    the first ping that passes after one warms again. ``warm`` calls the callable it is given
    once what must be warm before the API serves is (``warm_up``)."""

    def __init__(
        self,
        ping: Callable[[], object],
        warm: Callable[[Callable[[], None]], WarmUp],
        interval_s: float = WATCH_INTERVAL_S,
    ) -> None:
        self._ping, self._warm, self._interval_s = ping, warm, interval_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.warmups: list[WarmUp] = []  # every warm-up so far, the one at start first
        self.serving = threading.Event()  # set when the API may serve (the first part is warm)
        self.ready = threading.Event()  # set when the warm-up at start has ended

    def warm(self) -> WarmUp:
        done = self._warm(self.serving.set)
        self.warmups.append(done)
        log.info(
            "warm start: %d writes rehearsed, %d searches in %.0f ms",
            done.writes,
            done.searches,
            done.ms,
        )
        if done.failed:
            log.warning("warm start stopped early: %s", done.failed)
        return done

    @contextmanager
    def running(self) -> Iterator[Warmer]:
        """Warm in a thread of its own: the block runs once the first part is warm
        (``serving``), while the rest warms (``ready`` says when it is done); then watch until
        the block ends."""
        self._thread = threading.Thread(target=self._watch, name="warm-start", daemon=True)
        self._thread.start()
        self.serving.wait()
        try:
            yield self
        finally:
            self._stop.set()
            self._thread.join()

    def _watch(self) -> None:
        try:
            down = self.warm().failed is not None
        except Exception:  # a thread that dies says nothing: say it, then watch
            log.exception("warm start failed")
            down = True
        finally:
            self.serving.set()
            self.ready.set()
        while not self._stop.wait(self._interval_s):
            try:
                self._ping()
            except AnchorgraphError:
                down = True
                continue
            except Exception:  # not an outage the gateway knows: say so, and count it as one
                log.exception("warm start: the ping failed")
                down = True
                continue
            if down:
                down = False
                log.info("Neo4j is back: warming the search again")
                try:
                    down = self.warm().failed is not None
                except Exception:  # a thread that dies says nothing: say it, keep watching
                    log.exception("warm start failed")


@contextmanager
def keep_warm(
    runtime: Runtime, requests: Requests | None = None, interval_s: float = WATCH_INTERVAL_S
) -> Iterator[Warmer]:
    """The API's warm start over ``runtime``: its first part warmed on entry, the rest in the
    background between ``requests``, watched until exit."""
    counted = requests or Requests()
    stopping = threading.Event()

    def warm(serving: Callable[[], None]) -> WarmUp:
        def open_doors() -> None:
            counted.opened()  # the first request may be on its way: a pause counts from here
            serving()

        return warm_up(runtime, open_doors, counted.quiet, stopping.is_set)

    warmer = Warmer(
        ping=lambda: runtime.graph.read(Query.SERVER_INFO), warm=warm, interval_s=interval_s
    )
    with warmer.running():
        try:
            yield warmer
        finally:
            stopping.set()  # before the warm-up's thread is waited for
