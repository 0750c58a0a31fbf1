"""What the search benchmark measures a search with: the query embedding's time, and the server
and client time (and, on demand, the PROFILE) of every statement a search sends."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import neo4j

from anchorgraph.embedding import Embedder, Vectors
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.queries import Statement, as_parameters, cypher

R = TypeVar("R")


class TimedEmbedder:
    """An ``Embedder`` that remembers how long its last ``embed`` call took."""

    def __init__(self, inner: Embedder) -> None:
        self._inner = inner
        self.last_ms = 0.0

    @property
    def name(self) -> str:
        return self._inner.name

    @property
    def dimension(self) -> int:
        return self._inner.dimension

    @property
    def runtime(self) -> str:
        """What embeds one query: "onnx" or "torch" (``SentenceTransformerEmbedder.runtime``)."""
        return str(getattr(self._inner, "runtime", "torch"))

    def embed(self, texts: Sequence[str]) -> Vectors:
        started = time.perf_counter()
        try:
            return self._inner.embed(texts)
        finally:
            self.last_ms = (time.perf_counter() - started) * 1000

    def count_tokens(self, text: str) -> int:
        return self._inner.count_tokens(text)


@dataclass(frozen=True)
class Call:
    """One statement a search sent: its Query name, server and client milliseconds, profile."""

    query: str
    server_ms: float  # result_available_after + result_consumed_after
    client_ms: float  # session, round trip and records, as seen here
    profile: dict[str, Any] | None


class RecordingGraph:
    """A ``GraphReader`` for a ``SearchContext``: reads as ``Graph.read`` does (one auto-commit
    read per statement, in a session of its own), and records each statement's summary, which
    ``Graph.read`` drops. With ``profile`` set, statements run under PROFILE."""

    def __init__(self, graph: Graph) -> None:
        self._graph = graph
        self._lock = threading.Lock()
        self.calls: list[Call] = []
        self.profile = False

    def read(self, query: Statement[R], parameters: Mapping[str, Any] | None = None) -> list[R]:
        text = "PROFILE " + cypher(query) if self.profile else cypher(query)
        started = time.perf_counter()
        with self._graph.driver.session(
            database=self._graph.database, default_access_mode=neo4j.READ_ACCESS
        ) as session:
            result = session.run(text, as_parameters(parameters or {}))
            records = list(result)
            summary = result.consume()
        client_ms = (time.perf_counter() - started) * 1000
        server_ms = float(
            (summary.result_available_after or 0) + (summary.result_consumed_after or 0)
        )
        call = Call(query.name, server_ms, client_ms, summary.profile if self.profile else None)
        with self._lock:
            self.calls.append(call)
        return cast(list[R], records)

    def take(self) -> list[Call]:
        """The calls recorded since the last ``take``."""
        with self._lock:
            calls, self.calls = self.calls, []
        return calls


def profile_figures(profile: dict[str, Any]) -> dict[str, Any]:
    """Of one PROFILE plan: db hits, rows, page-cache misses, and the operator with most hits."""
    operators: list[tuple[str, int]] = []
    misses = 0

    def walk(node: dict[str, Any]) -> None:
        nonlocal misses
        name = node.get("operatorType", "?").split("@")[0]
        details = str((node.get("args") or {}).get("Details", ""))[:60]
        operators.append((f"{name} {details}".strip(), int(node.get("dbHits", 0))))
        misses += int(node.get("pageCacheMisses", 0))
        for child in node.get("children", []):
            walk(child)

    walk(profile)
    total = sum(hits for _, hits in operators)
    top, top_hits = max(operators, key=lambda item: item[1])
    return {
        "db_hits": total,
        "rows": int(profile.get("rows", 0)),
        "page_cache_misses": misses,
        "top_operator": top,
        "top_share": top_hits / total if total else 0.0,
    }
