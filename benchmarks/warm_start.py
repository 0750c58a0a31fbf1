"""Warm start: the first search and the first write after the API starts, and the first search
after Neo4j comes back, with and without the API's warm-up (``service/api/warm.py``).

    .venv/bin/python -m benchmarks.warm_start [--runs 3]

It starts a throwaway Neo4j and loads the sample corpus with the real model; then, for each run
and each condition (``cold``: the warm-up switched off; ``eager``: the API as it is, searched at
once, while its warm-up runs in the background; ``warm``: the API as it is, searched once its
warm-up is done):

1. Neo4j is restarted, so that its query cache and page cache are empty, as ``make run`` or a
   restart leaves them;
2. the API starts in a fresh Python process (``create_app`` under ``TestClient``: the real
   lifespan, the real model), which times its start-up (until it serves), the first
   ``POST /search`` (what the search page sends: hybrid, chunk level, explain), the first
   ``POST /documents`` (a new two-sentence note), the median of the next 20 searches, and
   when the warm-up ended;
3. Neo4j is stopped under the running API and started again; once the watcher has seen it back
   (and, warm, warmed again) the first search after is timed.

Prints a table of medians over the runs and, last, one line of JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from anchorgraph.settings import Settings
from benchmarks.server import add_server_arguments, benchmark_server, log

if TYPE_CHECKING:
    from anchorgraph.runtime import Runtime

QUERIES = (
    "what happened in the Gallery 3 incident?",
    "who directed the museum in the 1970s?",
    "AG-2048 battery life",
    "humidity in the storerooms",
    "how many visitors came to the 2019 biennial?",
)
LATER_SEARCHES = 20
CONDITIONS = ("cold", "eager", "warm")


def _timed_search(client: Any, query: str) -> float:
    started = time.perf_counter()
    response = client.post("/search", json={"query": query, "explain": True, "k": 10})
    elapsed = (time.perf_counter() - started) * 1000
    assert response.status_code == 200, response.text
    return elapsed


def _timed_write(client: Any) -> float:
    note = f"# Note {uuid.uuid4().hex[:8]}\n\nThe AG-2048 in Gallery 3 read 58 % humidity."
    started = time.perf_counter()
    response = client.post("/documents", json={"id": f"notes/{uuid.uuid4()}.md", "text": note})
    elapsed = (time.perf_counter() - started) * 1000
    assert response.status_code == 201, response.text
    return elapsed


def child(condition: str) -> dict[str, Any]:
    """One API process: start, first search, first write, later searches, Neo4j restart, first
    search after."""
    from fastapi.testclient import TestClient

    from anchorgraph.api import warm
    from anchorgraph.app import create_app
    from anchorgraph.graph.local_server import LocalNeo4j

    if condition == "cold":

        def nothing_ahead(
            runtime: Runtime,
            serving: Callable[[], None] = lambda: None,
            give_way: Callable[[], object] = lambda: None,
            stopping: Callable[[], bool] = lambda: False,
        ) -> warm.WarmUp:
            serving()
            return warm.WarmUp(0, 0.0)

        warm.warm_up = nothing_ahead
    settings = Settings(_env_file=None)  # the parent's server, through the environment
    started = time.perf_counter()
    app = create_app(settings)
    with TestClient(app) as client:
        startup_s = time.perf_counter() - started
        if condition == "warm":
            assert app.state.warm_start.ready.wait(600)
        first = _timed_search(client, QUERIES[0])
        first_write = _timed_write(client)
        later = [_timed_search(client, QUERIES[i % len(QUERIES)]) for i in range(LATER_SEARCHES)]
        assert app.state.warm_start.ready.wait(600)
        ready_s = app.state.warm_start.warmups[0].ms / 1000

        local = LocalNeo4j(settings)
        local.stop()
        local.start()
        deadline = time.monotonic() + 300
        # The watcher saw Neo4j come back (and, but cold, warmed it: a warm-up is listed once
        # it has ended).
        while len(app.state.warm_start.warmups) < 2:
            assert time.monotonic() < deadline, "the API never saw Neo4j come back"
            time.sleep(0.2)
        after_restart = _timed_search(client, QUERIES[0])
    return {
        "condition": condition,
        "startup_s": round(startup_s, 2),
        "warmup_s": round(ready_s, 2),
        "warmup_ms": [w.ms for w in app.state.warm_start.warmups],
        "first_ms": round(first, 1),
        "first_write_ms": round(first_write, 1),
        "later_median_ms": round(statistics.median(later), 1),
        "first_after_restart_ms": round(after_restart, 1),
    }


def _environment(settings: Settings) -> dict[str, str]:
    """The server's settings as the child process reads them."""
    values = {
        "ANCHORGRAPH_NEO4J_HOME": str(settings.neo4j_home),
        "ANCHORGRAPH_NEO4J_BOLT_PORT": str(settings.neo4j_bolt_port),
        "ANCHORGRAPH_NEO4J_HTTP_PORT": str(settings.neo4j_http_port),
        "ANCHORGRAPH_NEO4J_HEAP": settings.neo4j_heap,
        "ANCHORGRAPH_NEO4J_PAGECACHE": settings.neo4j_pagecache,
        "ANCHORGRAPH_CACHE_DIR": str(settings.cache_dir),
        "ANCHORGRAPH_SPACY_MODEL": "",
    }
    kept = {k: v for k, v in os.environ.items() if not k.startswith("ANCHORGRAPH_")}
    return {**kept, **values}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="Runs of each condition.")
    parser.add_argument("--child", choices=CONDITIONS, help=argparse.SUPPRESS)
    add_server_arguments(parser, external=False, memory="1g")
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child)))
        return 0

    from anchorgraph.ingestion import read_all, sample_corpus
    from anchorgraph.runtime import open_runtime

    rows: list[dict[str, Any]] = []
    with benchmark_server(args, prefix="anchorgraph-warm-") as server:
        assert server.local is not None
        settings = server.settings.model_copy(update={"spacy_model": ""})
        with open_runtime(settings, schema="apply") as runtime:
            documents, _ = read_all(settings, sample_corpus())
            runtime.ingestor.ingest(documents)
        log("sample corpus loaded")
        for run in range(args.runs):
            for condition in CONDITIONS:
                server.local.stop()
                server.local.start()
                done = subprocess.run(
                    [sys.executable, "-m", "benchmarks.warm_start", "--child", condition],
                    env=_environment(settings),
                    capture_output=True,
                    text=True,
                    check=False,
                )
                if done.returncode != 0:
                    print(done.stderr[-3000:], file=sys.stderr)
                    return 1
                rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
                log(f"run {run + 1} {condition}: {rows[-1]}")
    report = _report(rows)
    print(
        f"{'':8} {'start-up s':>10} {'warm-up s':>9} {'first search ms':>15} "
        f"{'first write ms':>14} {'later ms':>9} {'after restart ms':>17}"
    )
    for condition, row in report.items():
        print(
            f"{condition:8} {row['startup_s']:>10.2f} {row['warmup_s']:>9.1f} "
            f"{row['first_ms']:>15.0f} {row['first_write_ms']:>14.0f} "
            f"{row['later_median_ms']:>9.0f} {row['first_after_restart_ms']:>17.0f}"
        )
    print(json.dumps({"runs": rows, "medians": report}))
    return 0


def _report(rows: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    keys = (
        "startup_s",
        "warmup_s",
        "first_ms",
        "first_write_ms",
        "later_median_ms",
        "first_after_restart_ms",
    )
    return {
        condition: {
            key: statistics.median(row[key] for row in rows if row["condition"] == condition)
            for key in keys
        }
        for condition in CONDITIONS
    }


if __name__ == "__main__":
    sys.exit(main())
