"""Warm start: the first search a person makes should be as fast as the hundredth.

A search pays once for everything it touches first: in the API process, the model's first
inferences and the first run of each code path; in Neo4j, the plan of each search statement
(the query cache starts empty with the server) and the first reads of the indexes' files. So the
API runs one throwaway search of each kind (``WARM_SEARCHES``: every path, both levels, the
ranking stages) at start-up, before it serves, and again whenever Neo4j comes back after an
outage. The graph gateway notices failures request by request but not a recovery, so a watcher
thread asks Neo4j for its version every ``interval_s`` (the query of ``GET /health``); the first
answer after a failure warms again. Figures: ``docs/benchmarks.md`` (warm start).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from service.errors import AnchorgraphError
from service.graph.queries import Query
from service.retrieval.pipeline import search
from service.retrieval.types import SearchOptions
from service.runtime import Runtime

log = logging.getLogger(__name__)

# Neo4j caches a plan per statement and per parameter types, and an empty list, a list of
# strings and null are three types: the metadata path planned again for a query without
# identifiers (1.0 s) after a warm-up with one. So each search runs twice, for plain words and
# for words with an identifier-shaped code and an acronym (which may name entities).
WARM_QUERIES = (
    "warm start: humidity and light in the storerooms",
    "warm start: the AG-2048 sensors of the MAC",
)
# One search of each kind, together running every candidate path and ranking stage: the single
# paths, chunk-level hybrid with expansion and the FD* rerank, document-level hybrid with its
# document paths, feedback and priors, and multisignal scoring.
WARM_SEARCHES: tuple[dict[str, Any], ...] = (
    {"mode": "dense"},
    {"mode": "bm25"},
    {"mode": "tfidf"},
    {"explain": True, "expand": True, "fd_rerank": True},
    {"level": "document", "explain": True, "fd_weight": 0.1, "pagerank_weight": 0.1},
    {"mode": "multisignal", "explain": True},
)
WATCH_INTERVAL_S = 5.0


@dataclass(frozen=True)
class WarmUp:
    """What one warm-up did: how many searches ran, how long they took, and why it stopped
    early (None: all ran)."""

    searches: int
    ms: float
    failed: str | None = None


# A search in named collections filters the paths on them (a list where the searches above pass
# null): its plans are planned apart, so the first such search is warmed too.
IN_COLLECTION_SEARCHES: tuple[dict[str, Any], ...] = ({}, {"level": "document"})


def warm_searches(runtime: Runtime) -> WarmUp:
    """Run each of ``WARM_SEARCHES`` for each of ``WARM_QUERIES``, and each of
    ``IN_COLLECTION_SEARCHES`` in one collection of the graph, and throw the answers away; stop
    at the first that fails."""
    started = time.perf_counter()
    done = 0
    try:
        collections = sorted(runtime.search.sizes.get(runtime.graph.read))[:1]
    except AnchorgraphError as error:
        return WarmUp(done, _ms_since(started), f"{type(error).__name__}: {error}")
    searches = [
        *WARM_SEARCHES,
        *({**options, "collections": collections} for options in IN_COLLECTION_SEARCHES),
    ]
    for options in searches if collections else WARM_SEARCHES:
        for query in WARM_QUERIES:
            try:
                search(runtime.search, SearchOptions.model_validate({"query": query, **options}))
            except AnchorgraphError as error:  # Neo4j went away meanwhile: the watcher retries
                return WarmUp(done, _ms_since(started), f"{type(error).__name__}: {error}")
            done += 1
    return WarmUp(done, _ms_since(started))


def _ms_since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)


class Warmer:
    """Warms at start, then watches: ``ping`` raising an ``AnchorgraphError`` is an outage, and
    the first ping that passes after one warms again."""

    def __init__(
        self,
        ping: Callable[[], object],
        warm: Callable[[], WarmUp],
        interval_s: float = WATCH_INTERVAL_S,
    ) -> None:
        self._ping, self._warm, self._interval_s = ping, warm, interval_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.warmups: list[WarmUp] = []  # every warm-up so far, the one at start first

    def warm(self) -> WarmUp:
        done = self._warm()
        self.warmups.append(done)
        log.info("warm start: %d searches in %.0f ms", done.searches, done.ms)
        if done.failed:
            log.warning("warm start stopped early: %s", done.failed)
        return done

    @contextmanager
    def running(self) -> Iterator[Warmer]:
        """Warm now, watch until the block ends."""
        self.warm()
        self._thread = threading.Thread(target=self._watch, name="warm-start", daemon=True)
        self._thread.start()
        try:
            yield self
        finally:
            self._stop.set()
            self._thread.join()

    def _watch(self) -> None:
        down = False
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
def keep_warm(runtime: Runtime, interval_s: float = WATCH_INTERVAL_S) -> Iterator[Warmer]:
    """The API's warm start over ``runtime``: warmed on entry, watched until exit."""
    warmer = Warmer(
        ping=lambda: runtime.graph.read(Query.SERVER_INFO),
        warm=lambda: warm_searches(runtime),
        interval_s=interval_s,
    )
    with warmer.running():
        yield warmer
