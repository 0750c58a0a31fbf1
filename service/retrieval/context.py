"""What a search runs with: the long-lived ``SearchContext``, one search's ``SearchRun`` and
``Trace``, and the protocol every ranking stage follows."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from anchorgraph.embedding import Embedder
from anchorgraph.graph.gateway import GraphReader
from anchorgraph.graph.queries import Statement
from anchorgraph.retrieval.collections import CollectionSizes
from anchorgraph.retrieval.options import SearchOptions
from anchorgraph.retrieval.results import StageTiming
from anchorgraph.retrieval.values import Ranking, Scope

R = TypeVar("R")


class RankingStage(Protocol):
    """A step between fusion and hydration that takes a ranking and gives one back."""

    @property
    def name(self) -> str:
        """Its timing entry."""
        ...

    def wanted(self, options: SearchOptions) -> bool:
        """Whether this search runs the stage."""
        ...

    def __call__(self, run: SearchRun, ranking: Ranking) -> Ranking: ...


@dataclass
class SearchContext:
    """What every search needs, built once (by ``anchorgraph.runtime``)."""

    graph: GraphReader
    embedder: Embedder
    # The ranking stages in order; None: ``pipeline.DEFAULT_STAGES``. FD* rerank and hyperlink
    # expansion join here.
    stages: tuple[RankingStage, ...] | None = None
    # The paths run concurrently: each is one round trip, and Neo4j serves them in parallel.
    executor: ThreadPoolExecutor = field(
        default_factory=lambda: ThreadPoolExecutor(max_workers=8, thread_name_prefix="path")
    )
    # The graph's collections and their sizes, shared by the searches of a few seconds.
    sizes: CollectionSizes = field(default_factory=CollectionSizes)

    def close(self) -> None:
        self.executor.shutdown(wait=False)


class Trace:
    """Stage timings and database round trips of one search; its ``read`` is every path's."""

    def __init__(self, graph: GraphReader) -> None:
        self._graph = graph
        self._lock = threading.Lock()
        self.round_trips = 0
        self.timings: list[StageTiming] = []

    def read(self, query: Statement[R], parameters: Mapping[str, Any]) -> Sequence[R]:
        """One read through the graph gateway, counted."""
        with self._lock:
            self.round_trips += 1
        return self._graph.read(query, parameters)

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.record(name, started)

    def record(self, stage: str, started: float) -> None:
        """Time ``stage`` from ``started`` (a ``time.perf_counter()``) to now."""
        elapsed = (time.perf_counter() - started) * 1000
        with self._lock:
            self.timings.append(StageTiming(stage=stage, ms=round(elapsed, 3)))


@dataclass(frozen=True)
class SearchRun:
    """One search under way: what it runs with, what it was asked, and its trace."""

    context: SearchContext
    options: SearchOptions
    trace: Trace
    scope: Scope  # the collections it reads, and the documents its filters allow
