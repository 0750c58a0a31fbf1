"""Load benchmark: ``POST /search`` against the real API from 1, 4 and 16 concurrent clients.

Not a timed test: run it by hand on a machine as quiet as you can get.

    .venv/bin/python -m benchmarks.load                                   # sample, then 100k chunks
    .venv/bin/python -m benchmarks.load --corpus sample --workers 1,2     # 1 or 2 API processes
    .venv/bin/python -m benchmarks.load --corpus generated --chunks 20000 --duration 30

For each corpus it starts a throwaway Neo4j (``benchmarks/server.py``; ``--neo4j-uri`` uses a
running one, never wiped), loads the corpus, then for each ``--workers`` count starts the API as
``anchorgraph serve --workers N`` (its own processes, the real model, on a free port of
127.0.0.1) and drives it with a bounded asyncio client (httpx): for each ``--clients`` count,
``--warmup`` seconds unmeasured, then ``--duration`` seconds measured, each client sending one
search after another (a closed loop: throughput is what the API sustains at that concurrency).
Traffic goes to loopback only, and every loop stops at its deadline or after ``--max-requests``.

* **sample**: the sample corpus (``make run``'s: a dozen linked Markdown documents, the spaCy
  pipeline and the sample gazetteer), with questions about it.
* **generated**: ``--chunks`` synthetic chunks (default 100,000) bulk-imported as
  ``benchmarks/search_latency.py`` does (``benchmarks/synthetic.py``, ``bulk_import.py``), with
  seeded random vectors unless ``--vectors model`` (MiniLM embeds ~30 of these chunks per second
  here: an hour for 100k), queried with phrases of the same distribution. Random 384-d vectors
  have no clusters, the worst case for HNSW, so the dense path is slower than on real text.

It prints, per corpus, API workers and clients: requests, errors (any answer but 200, and
transport failures), throughput, and p50/p95/p99/max latency; then the throughput gain from the
first ``--workers`` count to each other; and, as its last line, one line of JSON. The client
shares the machine with the API and Neo4j: on 2 cores its own CPU time is part of the picture.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import numpy as np

from anchorgraph.graph.local_server import LocalNeo4j, free_port
from anchorgraph.ingestion import read_all, sample_corpus, sample_gazetteer
from anchorgraph.runtime import default_embedder, open_runtime
from anchorgraph.settings import Settings
from benchmarks import synthetic
from benchmarks.bulk_import import finish_import
from benchmarks.search_latency import import_generated, load_generated
from benchmarks.server import BenchmarkServer, add_server_arguments, benchmark_server, log

# Questions a user of the sample corpus asks (docs/sample_corpus.md).
SAMPLE_QUERIES = (
    "AG-2048 battery life",
    "who directed the museum in the 1970s?",
    "humidity in the storerooms",
    "what happened in the Gallery 3 incident?",
    "how were the archive letters catalogued",
    "works the Fundação Aurora gave the museum",
    "Bienal Tietê 2019",
    "Tessera Instruments sensor calibration",
    "moisture damage to paintings",
    "opening hours and tickets",
    "Rafael Okabe loans",
    "Helena Vasconcelos founding letters",
)
K = 10


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Load benchmark of POST /search.")
    parser.add_argument("--corpus", choices=("sample", "generated", "both"), default="both")
    parser.add_argument("--chunks", type=int, default=100_000, help="Generated corpus size.")
    parser.add_argument("--vectors", choices=("random", "model"), default="random")
    parser.add_argument("--seed", type=int, default=7, help="Seed of the generated corpus.")
    parser.add_argument("--clients", default="1,4,16", help="Concurrent clients, comma-separated.")
    parser.add_argument("--workers", default="1,2", help="API processes, comma-separated.")
    parser.add_argument("--duration", type=float, default=60.0, help="Measured seconds per run.")
    parser.add_argument("--warmup", type=float, default=5.0, help="Unmeasured seconds first.")
    parser.add_argument(
        "--max-requests", type=int, default=200_000, help="Bound on the requests of one run."
    )
    parser.add_argument("--timeout", type=float, default=30.0, help="Per-request timeout (s).")
    parser.add_argument(
        "--api-url",
        default=None,
        help="Drive an API already running at this loopback URL instead of starting one "
        "(--corpus and --workers then only label the figures).",
    )
    add_server_arguments(parser)
    args = parser.parse_args(argv)
    args.clients = _counts(parser, args.clients, "--clients")
    args.workers = _counts(parser, args.workers, "--workers")
    if args.duration <= 0 or args.warmup < 0 or args.max_requests < 1 or args.chunks < 1:
        parser.error("--duration, --max-requests and --chunks must be positive, --warmup ≥ 0")
    if args.api_url and not _loopback(args.api_url):
        parser.error("--api-url must be on this machine's loopback (127.0.0.0/8, ::1, localhost)")
    return args


def _counts(parser: argparse.ArgumentParser, text: str, flag: str) -> list[int]:
    try:
        counts = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        parser.error(f"{flag} takes comma-separated positive integers")
    if not counts or min(counts) < 1:
        parser.error(f"{flag} takes comma-separated positive integers")
    return counts


def _loopback(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


# --- the client ---------------------------------------------------------------------------------
@dataclass
class Run:
    """One measured run: a number of clients against one API for a fixed time."""

    corpus: str
    workers: int
    clients: int
    seconds: float = 0.0
    latencies_ms: list[float] = field(default_factory=list)  # of the 200 answers
    errors: Counter[str] = field(default_factory=Counter)  # status code or exception name

    @property
    def requests(self) -> int:
        return len(self.latencies_ms) + sum(self.errors.values())

    def summary(self) -> dict[str, Any]:
        latencies = np.array(self.latencies_ms) if self.latencies_ms else np.array([np.nan])
        p50, p95, p99 = np.percentile(latencies, [50, 95, 99])
        return {
            "corpus": self.corpus,
            "workers": self.workers,
            "clients": self.clients,
            "seconds": round(self.seconds, 1),
            "requests": self.requests,
            "errors": sum(self.errors.values()),
            "error_kinds": dict(self.errors),
            "throughput_rps": round(len(self.latencies_ms) / self.seconds, 1),
            "p50_ms": round(float(p50), 1),
            "p95_ms": round(float(p95), 1),
            "p99_ms": round(float(p99), 1),
            "max_ms": round(float(np.nanmax(latencies)), 1),
        }


async def drive(url: str, queries: list[str], run: Run, args: argparse.Namespace) -> None:
    """``run.clients`` clients, each searching back to back: ``--warmup`` seconds unmeasured,
    then ``--duration`` seconds measured (or ``--max-requests`` in all)."""
    limits = httpx.Limits(max_connections=run.clients, max_keepalive_connections=run.clients)
    async with httpx.AsyncClient(base_url=url, timeout=args.timeout, limits=limits) as client:
        budget = [args.max_requests]

        async def one_client(number: int, until: float, measured: bool) -> None:
            rng = random.Random(number)
            while time.monotonic() < until and budget[0] > 0:
                budget[0] -= 1
                body = {"query": rng.choice(queries), "k": K}
                started = time.perf_counter()
                try:
                    response = await client.post("/search", json=body)
                    outcome = "200" if response.status_code == 200 else str(response.status_code)
                except httpx.HTTPError as error:
                    outcome = type(error).__name__
                elapsed_ms = (time.perf_counter() - started) * 1000
                if not measured:
                    continue
                if outcome == "200":
                    run.latencies_ms.append(elapsed_ms)
                else:
                    run.errors[outcome] += 1

        if args.warmup:
            until = time.monotonic() + args.warmup
            await asyncio.gather(*(one_client(n, until, False) for n in range(run.clients)))
        budget[0] = args.max_requests
        started = time.monotonic()
        until = started + args.duration
        await asyncio.gather(*(one_client(n, until, True) for n in range(run.clients)))
        run.seconds = time.monotonic() - started


# --- the API ------------------------------------------------------------------------------------
@contextmanager
def api_processes(settings: Settings, workers: int, gazetteer: Path | None) -> Iterator[str]:
    """``anchorgraph serve --workers N`` on a free loopback port, against ``settings``' Neo4j;
    yields its URL once /health answers 200, and stops it (its process group) at the end."""
    port = free_port()
    environment = {
        **os.environ,
        **LocalNeo4j(settings).client_environment(),
        "ANCHORGRAPH_INDEX_ONLINE_TIMEOUT_S": "3600",
    }
    if gazetteer is not None:
        environment["ANCHORGRAPH_GAZETTEER"] = str(gazetteer)
    command = [
        sys.executable, "-c", "from anchorgraph.cli.main import main; main()", "serve",
        "--host", "127.0.0.1", "--port", str(port), "--workers", str(workers),
    ]  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    log(f"starting the API: {workers} worker(s) on {url}")
    process = subprocess.Popen(
        command,
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        start_new_session=True,  # its workers are its children: one group to stop
    )
    try:
        _wait_healthy(url, process, workers)
        yield url
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def _wait_healthy(url: str, process: subprocess.Popen[bytes], workers: int) -> None:
    deadline = time.monotonic() + 600
    healthy = 0
    # One client for every poll: each httpx.get builds one, and its TLS context (~30 ms CPU).
    with httpx.Client(timeout=5) as client:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"the API exited with code {process.returncode} while starting")
            try:
                healthy = healthy + 1 if client.get(f"{url}/health").status_code == 200 else 0
            except httpx.HTTPError:
                healthy = 0
            # Each worker starts on its own; a few healthy answers in a row mean most are up.
            if healthy >= 2 * workers:
                return
            time.sleep(0.5)
    raise RuntimeError(f"the API at {url} was not healthy within 10 minutes")


# --- corpora ------------------------------------------------------------------------------------
def load_corpus(
    args: argparse.Namespace, server: BenchmarkServer, corpus: str
) -> tuple[Settings, list[str], dict[str, Any]]:
    """Load one corpus into the server; returns the settings the API runs with, the queries,
    and what the loading took."""
    settings = server.settings.model_copy(update={"index_online_timeout_s": 3600.0})
    load: dict[str, Any] = {}
    clock = time.perf_counter()
    if corpus == "sample":
        settings = settings.model_copy(update={"gazetteer": sample_gazetteer()})
        documents, _ = read_all(settings, sample_corpus())
        with open_runtime(settings, schema="apply") as runtime:
            stats = runtime.ingestor.ingest(documents)
        load |= {"documents": stats.documents, "chunks": stats.chunks}
        queries = list(SAMPLE_QUERIES)
    else:
        embedder = default_embedder(settings)
        generated = synthetic.SyntheticCorpus(
            args.seed, embedder.embed if args.vectors == "model" else None
        )
        if server.local is not None:
            timings, files = import_generated(args, server.local, generated, embedder.dimension)
            load |= timings
            with open_runtime(settings, schema="apply", embedder_factory=lambda _: embedder) as rt:
                finish_import(rt.graph, files)
                rt.graph.run("CALL db.awaitIndexes(3600)")
        else:
            with open_runtime(settings, schema="apply", embedder_factory=lambda _: embedder) as rt:
                load |= load_generated(args, rt.graph, embedder.dimension, generated)
        load |= {"chunks": args.chunks, "vectors": args.vectors}
        queries = generated.queries(500, args.seed + 1)
    load["load_s"] = round(time.perf_counter() - clock, 1)
    log(f"{corpus}: loaded in {load['load_s']:.0f} s")
    return settings, queries, load


def measure(args: argparse.Namespace, server: BenchmarkServer, corpus: str) -> dict[str, Any]:
    settings, queries, load = load_corpus(args, server, corpus)
    gazetteer = settings.gazetteer
    runs = []
    for workers in args.workers:
        with api_processes(settings, workers, gazetteer) as url:
            for clients in args.clients:
                run = Run(corpus, workers, clients)
                asyncio.run(drive(url, queries, run, args))
                runs.append(run.summary())
                log(_line(runs[-1]))
    return {"load": load, "runs": runs}


# --- the report ---------------------------------------------------------------------------------
HEADER = (
    f"{'corpus':<10} {'workers':>7} {'clients':>7} {'requests':>8} {'errors':>6} "
    f"{'req/s':>7} {'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7} {'max ms':>7}"
)


def _line(row: dict[str, Any]) -> str:
    return (
        f"{row['corpus']:<10} {row['workers']:>7} {row['clients']:>7} {row['requests']:>8} "
        f"{row['errors']:>6} {row['throughput_rps']:>7.1f} {row['p50_ms']:>7.1f} "
        f"{row['p95_ms']:>7.1f} {row['p99_ms']:>7.1f} {row['max_ms']:>7.1f}"
    )


def gains(runs: list[dict[str, Any]], workers: list[int]) -> list[dict[str, Any]]:
    """Throughput with each workers count against the first, per corpus and clients."""
    by_key = {(r["corpus"], r["workers"], r["clients"]): r["throughput_rps"] for r in runs}
    out = []
    for corpus, base_workers, clients in [k for k in by_key if k[1] == workers[0]]:
        for other in workers[1:]:
            if (corpus, other, clients) in by_key and by_key[(corpus, base_workers, clients)]:
                ratio = by_key[(corpus, other, clients)] / by_key[(corpus, base_workers, clients)]
                out.append(
                    {
                        "corpus": corpus,
                        "clients": clients,
                        "from_workers": base_workers,
                        "to_workers": other,
                        "gain": round(ratio, 2),
                    }
                )
    return out


def report(results: dict[str, Any], args: argparse.Namespace) -> None:
    runs = [row for result in results.values() for row in result["runs"]]
    print(HEADER)
    for row in runs:
        print(_line(row))
    for gain in gains(runs, args.workers):
        print(
            f"{gain['corpus']}, {gain['clients']} clients: {gain['to_workers']} workers give "
            f"×{gain['gain']:.2f} the throughput of {gain['from_workers']}"
        )
    for corpus, result in results.items():
        print(f"{corpus} load: {json.dumps(result['load'])}")
    summary = {
        "benchmark": "load",
        "duration_s": args.duration,
        "warmup_s": args.warmup,
        "k": K,
        "cpus": os.cpu_count(),
        "load_avg_end": [round(x, 2) for x in os.getloadavg()],
        "corpora": results,
        "gains": gains(runs, args.workers),
    }
    print(json.dumps(summary), flush=True)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.api_url:
        results = {}
        for corpus in ["sample"] if args.corpus == "both" else [args.corpus]:
            queries = list(SAMPLE_QUERIES) if corpus == "sample" else _generated_queries(args)
            runs = []
            for clients in args.clients:
                run = Run(corpus, args.workers[0], clients)
                asyncio.run(drive(args.api_url, queries, run, args))
                runs.append(run.summary())
                log(_line(runs[-1]))
            results[corpus] = {"load": {"api_url": args.api_url}, "runs": runs}
        report(results, args)
        return 0
    corpora = ["sample", "generated"] if args.corpus == "both" else [args.corpus]
    results = {}
    # The generated corpus is bulk-imported into a stopped server, so a server for it alone is
    # imported into before its first start.
    with benchmark_server(
        args, prefix="anchorgraph-load-bench-", start=corpora[0] != "generated"
    ) as server:
        for corpus in corpora:
            results[corpus] = measure(args, server, corpus)
    report(results, args)
    return 0


def _generated_queries(args: argparse.Namespace) -> list[str]:
    return synthetic.SyntheticCorpus(args.seed).queries(500, args.seed + 1)


if __name__ == "__main__":
    sys.exit(main())
