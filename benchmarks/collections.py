"""Collections: a search in one collection among several, against that collection alone.

    .venv/bin/python -m benchmarks.collections                        # both parts, default sizes
    .venv/bin/python -m benchmarks.collections --part latency --chunks-per-collection 2000
    .venv/bin/python -m benchmarks.collections --part quality --max-documents 600 --max-queries 300

Neo4j's indexes cannot filter inside themselves: a search restricted to a collection reads the
vector indexes of its shard (service/graph/shards.py; ``vector_index_plan``), and asks the
full-text indexes, which hold every collection, for more hits (``index_depth``). Each part
compares a collection among others with the same collection alone in a graph
(benchmarks/README.md tells more):

* latency (target: p50 ratio ≤ 1.3): ``--collections`` (10) × ``--chunks-per-collection``
  (10,000) synthetic chunks bulk-imported into one graph, the first collection alone into
  another, two servers at once; the same ``--queries`` (200, after ``--warmup`` 30),
  hash-embedded and restricted to that collection, on both graphs in turn, in four modes.
* quality (target: |Δ NDCG@10| ≤ 0.005): a BEIR split (``--dataset``, ``--split``; SciFact
  ``train``, the development split) ingested as the evaluation does into a collection of its
  own; NDCG@10 and Recall@100 of document-level searches restricted to it (the default hybrid,
  dense, BM25), then the same in a copy of that graph into which the ``--decoys`` were ingested.

Everything is kept under ``--home`` for the next run. A first default run on the shared 2-core
machine takes ~40 min for latency and hours for quality (32,000 chunks embedded at 2–18 a
second): ``--max-documents N`` ingests a seeded sample of each corpus (the split's judged
documents first) and ``--max-queries`` samples the queries. Tables on stdout, progress on stderr,
the JSON report in ``--out`` and as the last line.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import os
import random
import shutil
import signal
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from anchorgraph.embedding import Embedder, HashEmbedder
from anchorgraph.evaluation.datasets import BeirSplit, load_corpus, load_split, source_documents
from anchorgraph.evaluation.metrics import (
    NDCG10,
    RECALL100,
    PerQuery,
    aggregate,
    per_query,
    wilcoxon,
)
from anchorgraph.evaluation.run import Heartbeat
from anchorgraph.graph.local_server import LocalNeo4j, throwaway_settings
from anchorgraph.graph.queries import Query
from anchorgraph.graph.shards import CHUNKS
from anchorgraph.ingestion import ingest_with_progress
from anchorgraph.library import Library, open_library
from anchorgraph.loaders.graph_writer import graph_rows
from anchorgraph.retrieval.collections import search_scope
from anchorgraph.retrieval.context import SearchContext
from anchorgraph.retrieval.options import Mode, SearchOptions
from anchorgraph.retrieval.paths.base import index_depth, vector_index_plan
from anchorgraph.retrieval.pipeline import search
from anchorgraph.runtime import Runtime, default_embedder, open_runtime, startup_objects_frozen
from anchorgraph.scope import FULL_ACCESS, collection_name
from anchorgraph.settings import Settings
from benchmarks.bulk_import import CsvGraph, finish_import, import_into
from benchmarks.server import log
from benchmarks.synthetic import SyntheticCorpus

DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"
DIMENSION = 384  # all-MiniLM-L6-v2's, and the HashEmbedder's here
TARGET_RATIO = 1.3  # p50 among collections ÷ p50 alone
TARGET_DELTA = 0.005  # |NDCG@10 among decoys − NDCG@10 alone|
SHARED, ALONE, DECOYED = "shared", "alone", "with_decoys"  # the graphs compared
GRAPHS = (SHARED, ALONE)  # the latency part's
WALL = "search"  # the samples' key of a search's whole wall time
LATENCY_MODES = {
    "hybrid": (Mode.HYBRID, "chunk"),
    "hybrid, document": (Mode.HYBRID, "document"),
    "dense": (Mode.DENSE, "chunk"),
    "bm25": (Mode.BM25, "chunk"),
}
QUALITY_MODES = {"hybrid": Mode.HYBRID, "dense": Mode.DENSE, "bm25": Mode.BM25}  # document level
QUALITY_SETTINGS = {"spacy_model": "", "classify_source_types": True, "embedding_threads": 0}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    add = parser.add_argument
    add("--part", choices=("latency", "quality", "both"), default="both")
    add("--home", type=Path, help="default: bench-collections/ in ANCHORGRAPH_DATA_DIR")
    add("--out", type=Path, default=Path("benchmarks/out/collections"), help="JSON folder")
    add("--neo4j-heap", default="2g", help="of each server")
    add("--neo4j-pagecache", default="2g", help="of each server")
    add("--collections", type=int, default=10, help="latency: collections side by side")
    add("--chunks-per-collection", type=int, default=10_000, help="latency")
    add("--seed", type=int, default=7, help="latency: collection i has seed + i's texts")
    add("--queries", type=int, default=200, help="latency: measured queries per mode")
    add("--warmup", type=int, default=30, help="latency: unmeasured queries per mode, first")
    add("--rebuild", action="store_true", help="latency: import the graphs again")
    add("--datasets", type=Path, default=DATASETS, help="quality: a folder of BEIR datasets")
    add("--dataset", default="scifact", help="quality: a name in --datasets, or a path")
    add("--split", default="train", help="quality: its qrels file")
    add("--decoys", default="nfcorpus,healthver_dev,hotpotqa_dev500", help="quality: names/paths")
    add("--max-queries", type=int, help="quality: a seeded sample of the split's queries")
    add("--query-seed", type=int, default=0, help="quality: the samples' seed")
    add("--max-documents", type=int, help="quality: a seeded sample of each corpus (see above)")
    args = parser.parse_args(argv)
    args.home = args.home or Settings().data_dir / "bench-collections"
    if args.collections < 2 or min(args.chunks_per_collection, args.queries) < 1:
        parser.error("--collections ≥ 2, --chunks-per-collection and --queries ≥ 1")
    if args.part != "latency":
        args.dataset = _dataset(parser, args.datasets, args.dataset)
        args.decoys = [_dataset(parser, args.datasets, n) for n in args.decoys.split(",") if n]
        if not (args.dataset / "qrels" / f"{args.split}.tsv").exists():
            parser.error(f"--split: no qrels/{args.split}.tsv in {args.dataset}")
    return args


def _dataset(parser: argparse.ArgumentParser, datasets: Path, name: str) -> Path:
    """A BEIR folder: a path, or a name in ``datasets``."""
    for folder in (Path(name), datasets / name):
        if (folder / "corpus.jsonl").exists():
            return folder
    parser.error(f"no corpus.jsonl in {name!r} nor in {datasets / name} (see --datasets)")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    # A background run ignores SIGINT; SIGTERM must unwind too, so that the servers are stopped.
    previous = signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    started = time.perf_counter()
    summary: dict[str, Any] = {
        "benchmark": "collections",
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "load_avg_start": [round(x, 2) for x in os.getloadavg()],
    }
    try:
        if args.part != "quality":
            summary["latency"] = run_latency(args)
        if args.part != "latency":
            summary["quality"] = run_quality(args)
    finally:
        signal.signal(signal.SIGTERM, previous)
    summary["load_avg_end"] = [round(x, 2) for x in os.getloadavg()]
    summary["wall_s"] = round(time.perf_counter() - started)
    print(f"\nwall time: {summary['wall_s'] / 60:.1f} min")
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"collections-{time.strftime('%Y%m%d-%H%M%S')}.json"
    path.write_text(json.dumps(summary, indent=2) + "\n")
    print(f"written: {path}")
    print(json.dumps(summary), flush=True)
    return 0


# --- shared -------------------------------------------------------------------------------------
@contextmanager
def kept_server(home: Path, args: argparse.Namespace) -> Iterator[LocalNeo4j]:
    """The local Neo4j kept in ``home`` between runs (free ports), not started; stopped on exit,
    and now if an interrupted run left it running."""
    settings = throwaway_settings(home, heap=args.neo4j_heap, pagecache=args.neo4j_pagecache)
    # A loaded 2-core machine starts a large store slowly; 110,000 vectors take minutes to index.
    long = {"neo4j_start_timeout_s": 900.0, "index_online_timeout_s": 3600.0}
    local = LocalNeo4j(settings.model_copy(update=long))
    local.stop()
    try:
        yield local
    finally:
        local.stop()


def ticker(label: str, total: int) -> Callable[[int], None]:
    """A progress line at most every 30 s and at the end, on a terminal as in a log file."""
    heartbeat = Heartbeat(Console(stderr=True, force_terminal=False))
    return lambda done: heartbeat(f"{label}: {done}/{total}", force=done == total)


# --- latency ------------------------------------------------------------------------------------
def run_latency(args: argparse.Namespace) -> dict[str, Any]:
    """Both synthetic graphs (kept, or imported), then the interleaved measurement."""
    names = [f"synthetic-{number:02d}" for number in range(args.collections)]
    base = SyntheticCorpus(args.seed)  # its vocabulary is every collection's
    load: dict[str, Any] = {}
    facts: dict[str, Any] = {}
    contexts: dict[str, SearchContext] = {}
    with ExitStack() as stack:
        homes = {graph: args.home / "latency" / graph / "neo4j" for graph in GRAPHS}
        servers = {g: stack.enter_context(kept_server(home, args)) for g, home in homes.items()}
        for graph, local in servers.items():
            load[graph] = build_graph(args, local, names if graph == SHARED else names[:1], base)
        for graph, local in servers.items():
            # apply: a kept graph written before shards gets them (the upgrade) and their indexes
            opened = open_runtime(local.settings, schema="apply", embedder_factory=hashed)
            runtime = stack.enter_context(opened)
            facts[graph] = graph_facts(local, runtime, names[0])
            contexts[graph] = runtime.search
        queries = base.queries(args.warmup + args.queries, args.seed + 1_000)
        with startup_objects_frozen():  # as the API and open_search() do
            samples = measure_latency(args, contexts, names[0], queries)
    return {"load": load, **report_latency(args, facts, samples)}


def hashed(_: Settings) -> Embedder:
    """The latency part's query embedder: deterministic, no model time in either graph's."""
    return HashEmbedder(DIMENSION)


def build_graph(
    args: argparse.Namespace, local: LocalNeo4j, names: list[str], base: SyntheticCorpus
) -> dict[str, Any]:
    """Start ``local`` on the graph of ``names``: the kept one if its ``graph.json`` describes
    it, else written as CSV, imported with neo4j-admin and indexed. Returns what that took."""
    wanted = {"format": 2, "collections": names, "seed": args.seed}  # format: raised when the
    wanted["chunks_per_collection"] = args.chunks_per_collection  # importer's CSV changes
    label, manifest = local.home.parent.name, local.home.parent / "graph.json"
    database = local.home / "data" / "databases" / local.settings.neo4j_database
    kept = database.exists() and manifest.exists() and json.loads(manifest.read_text()) == wanted
    if kept and not args.rebuild:
        log(f"{label}: the graph kept in {local.home} is the one wanted; starting it")
        local.start()
        return {"reused": True}
    manifest.unlink(missing_ok=True)
    folder = local.home.parent / "csv"
    shutil.rmtree(folder, ignore_errors=True)
    clock = time.perf_counter()
    csv = CsvGraph(folder, names)
    tick = ticker(f"{label}: CSV, collections of {args.chunks_per_collection:,} chunks", len(names))
    for number, name in enumerate(names):
        corpus = copy.copy(base)  # the same vocabulary (only read), texts of their own seed
        corpus.seed = args.seed + number
        for batch in corpus.batches(args.chunks_per_collection, DIMENSION, 400):
            csv.add(graph_rows(name, *batch), name)
        tick(number + 1)
    files = csv.close()
    csv_s = time.perf_counter() - clock
    log(f"{label}: {files.megabytes:.0f} MB of CSV; importing with neo4j-admin …")
    import_s = import_into(local, files)  # and starts the server
    log(f"{label}: imported in {import_s:.0f} s; schema, FD* bins, populating the indexes …")
    clock = time.perf_counter()
    with open_runtime(local.settings, schema="apply", embedder_factory=hashed) as runtime:
        finish_import(runtime.graph, files)
        runtime.graph.run("CALL db.awaitIndexes(3600)")
    indexes_s = time.perf_counter() - clock
    log(f"{label}: indexes online in {indexes_s:.0f} s")
    shutil.rmtree(folder)
    manifest.write_text(json.dumps(wanted) + "\n")
    seconds = {"csv_s": csv_s, "import_s": import_s, "indexes_s": indexes_s}
    return {"csv_mb": round(files.megabytes)} | {k: round(v) for k, v in seconds.items()}


def graph_facts(local: LocalNeo4j, runtime: Runtime, name: str) -> dict[str, Any]:
    """The graph's size, how many hits a search restricted to ``name`` asks of each index
    for its 100 candidates, the vector indexes' Lucene segments; and every file of the database
    read once, so that both graphs start from the OS cache (the indexes live there)."""
    sizes = runtime.search.sizes.get(runtime.graph.read, fresh=True)
    scope = search_scope(sizes, [name], FULL_ACCESS)
    plan = vector_index_plan(100, scope, CHUNKS)
    cached = 0
    for path in (local.home / "data" / "databases" / runtime.graph.database).rglob("*"):
        if path.is_file():
            with path.open("rb") as handle:
                while chunk := handle.read(1 << 22):
                    cached += len(chunk)
    return {
        "measured": name,
        "collections": len(sizes),
        "chunks": sum(size.chunks for size in sizes.values()),
        "index_depth": index_depth(100, scope),  # the full-text indexes'
        "vector_indexes": list(plan.indexes),
        "vector_depth": plan.depth,
        "vector_index_segments": local.vector_index_segments(runtime.graph),
        "os_cache_mb": round(cached / 1e6),
    }


Samples = dict[tuple[str, str], dict[str, list[float]]]  # (mode, graph) → stage → ms


def measure_latency(
    args: argparse.Namespace, contexts: dict[str, SearchContext], name: str, queries: list[str]
) -> Samples:
    """Every query in every mode on both graphs, restricted to ``name``: the modes rotate from
    query to query, the graph that goes first alternates, the first ``--warmup`` are not kept."""
    samples: Samples = defaultdict(lambda: defaultdict(list))
    labels, graphs = list(LATENCY_MODES), list(contexts)
    log(f"latency: {args.warmup} warm-up + {args.queries} queries × {len(labels)} modes × 2 graphs")
    tick = ticker("latency: queries", len(queries))
    for number, text in enumerate(queries):
        shift = number % len(labels)
        for offset, label in enumerate(labels[shift:] + labels[:shift]):
            mode, level = LATENCY_MODES[label]
            options = SearchOptions(query=text, mode=mode, level=level, collections=[name])
            for graph in graphs if (number + offset) % 2 == 0 else graphs[::-1]:
                started = time.perf_counter()
                result = search(contexts[graph], options)
                wall = (time.perf_counter() - started) * 1000
                if number < args.warmup:
                    continue
                stages: dict[str, float] = defaultdict(float)
                for timing in result.timings:  # a stage may be timed more than once
                    stages[timing.stage] += timing.ms
                for stage, ms in {WALL: wall, **stages}.items():
                    samples[(label, graph)][stage].append(ms)
        tick(number + 1)
    return samples


def report_latency(
    args: argparse.Namespace, facts: dict[str, Any], samples: Samples
) -> dict[str, Any]:
    """Print and return each mode's p50 and p95 on both graphs, the ratio of the p50s, and
    every stage's median."""
    shared, alone = facts[SHARED], facts[ALONE]
    print(
        f"\n== latency: searches restricted to {shared['measured']!r} ({alone['chunks']:,} "
        f"chunks) among {shared['collections']} collections ({shared['chunks']:,} chunks) and "
        f"alone\n   {args.queries} queries per mode after {args.warmup} warm-up; hash-embedded "
        f"queries; full-text indexes asked for {shared['index_depth']:,} hits per path among "
        f"{shared['collections']}, {alone['index_depth']:,} alone; chunk vector indexes "
        f"{shared['vector_indexes']} for {shared['vector_depth']:,}, {alone['vector_indexes']} "
        f"for {alone['vector_depth']:,}; vector index segments "
        f"{shared['vector_index_segments']} / {alone['vector_index_segments']}\n"
    )
    print(f"{'mode':<18}{'shared p50':>11}{'p95':>9}{'alone p50':>11}{'p95':>9}{'p50 ratio':>11}")
    modes: dict[str, Any] = {}
    for label in LATENCY_MODES:
        row: dict[str, Any] = {g: summary(samples[(label, g)]) for g in GRAPHS}
        ratio = row[SHARED]["p50_ms"] / max(row[ALONE]["p50_ms"], 1e-9)
        met = ratio <= TARGET_RATIO
        modes[label] = row | {"p50_ratio": round(ratio, 2), "target_met": met}
        s, a = row[SHARED], row[ALONE]
        print(
            f"{label:<18}{s['p50_ms']:>11.1f}{s['p95_ms']:>9.1f}{a['p50_ms']:>11.1f}"
            f"{a['p95_ms']:>9.1f}{ratio:>11.2f}  ≤ {TARGET_RATIO}: {'met' if met else 'NOT met'}"
        )
    print("\nmedian per stage, ms, shared/alone (the paths run concurrently)")
    for label, row in modes.items():
        own = row[ALONE]["stages_p50_ms"]
        cells = [
            f"{k} {v:.1f}/{own.get(k, 0):.1f}" for k, v in row[SHARED]["stages_p50_ms"].items()
        ]
        print(f"{label:<18}" + ", ".join(cells))
    return {"target_p50_ratio": TARGET_RATIO, "graphs": facts, "modes": modes}


def summary(values: dict[str, list[float]]) -> dict[str, Any]:
    """p50 and p95 of the searches, and each stage's median."""
    stages = {k: round(float(np.median(v)), 1) for k, v in values.items() if k != WALL}
    p50, p95 = (round(float(np.percentile(values[WALL], q)), 1) for q in (50, 95))
    return {"p50_ms": p50, "p95_ms": p95, "stages_p50_ms": stages}


# --- quality ------------------------------------------------------------------------------------
Run = tuple[PerQuery, dict[str, list[str]]]  # measure → query → value; query → ranked ids


def run_quality(args: argparse.Namespace) -> dict[str, Any]:
    """The split's collection alone (ingested, measured), then in a copy of that graph among
    the decoys (ingested there, measured again)."""
    split = load_split(args.dataset, args.split, max_queries=args.max_queries, seed=args.query_seed)
    relevant = frozenset(document for judged in split.qrels.values() for document in judged)
    split = sample(split, args.max_documents, relevant, args.query_seed)
    name = collection_name(args.dataset.name.lower())
    decoys = {collection_name(path.name.lower()): path for path in args.decoys}
    if name in decoys:
        raise SystemExit(f"--decoys: {name!r} is the measured collection")
    model = default_embedder(Settings(_env_file=None).model_copy(update=QUALITY_SETTINGS))
    alone_home = args.home / "quality" / f"{name}-alone" / "neo4j"
    decoys_home = args.home / "quality" / f"{name}-with-decoys" / "neo4j"
    log(f"quality: {split.name} {split.split}, {len(split.queries)} queries, into {name!r}")
    with quality_library(alone_home, args, model, keep={name}) as library:
        ingests = {name: fill_collection(library, name, split)}
        rows = library.graph.read(Query.COLLECTION_DOCUMENTS, {"collection": name})
        stamp = hashlib.sha256(json.dumps([dict(r) for r in rows]).encode()).hexdigest()
        alone = {label: evaluate(library, split, name, m) for label, m in QUALITY_MODES.items()}
    copy_graph(alone_home, decoys_home, stamp)
    with quality_library(decoys_home, args, model, keep={name, *decoys}) as library:
        for decoy, path in decoys.items():
            corpus = BeirSplit(path.name, "", path, load_corpus(path), [], {})
            ingests[decoy] = fill_collection(library, decoy, sample(corpus, args.max_documents))
        sizes = ", ".join(f"{i.name} {i.chunks:,} chunks" for i in library.collections())
        decoyed = {label: evaluate(library, split, name, m) for label, m in QUALITY_MODES.items()}
    report = report_quality(split, name, f"{model.name}, {sizes}", alone, decoyed)
    return report | {"ingest": ingests}


@contextmanager
def quality_library(
    home: Path, args: argparse.Namespace, model: Embedder, keep: set[str]
) -> Iterator[Library]:
    """The kept server of ``home``, started, with a library open on it; every collection not in
    ``keep`` (left by a run with other decoys) is deleted first."""
    with kept_server(home, args) as local:
        log(f"starting Neo4j in {home} …")
        local.start()
        settings = local.settings.model_copy(update=QUALITY_SETTINGS)
        with open_library(settings, embedder_factory=lambda _: model) as library:
            for info in library.collections():
                if info.name not in keep:
                    log(f"deleting collection {info.name!r}: not one of this run's")
                    library.delete_collection(info.name)
            yield library


def sample(
    corpus: BeirSplit, limit: int | None, keep: frozenset[str] = frozenset(), seed: int = 0
) -> BeirSplit:
    """The corpus whole, or with ``limit`` (``--max-documents``) the documents in ``keep`` (the
    ones the queries judge) and a seeded sample of the others, ``limit`` in all."""
    if limit is None or limit >= len(corpus.corpus):
        return corpus
    keep = keep & corpus.corpus.keys()
    others = [document for document in corpus.corpus if document not in keep]
    chosen = random.Random(seed).sample(others, max(0, limit - len(keep)))
    return corpus.subset([query.id for query in corpus.queries], keep | set(chosen))


def fill_collection(library: Library, name: str, corpus: BeirSplit) -> dict[str, Any]:
    """Make collection ``name`` hold exactly the BEIR ``corpus``, as the evaluation ingests it
    (title + text): delete documents it no longer has, ingest (unchanged ones are skipped by
    content hash) with a progress bar, or heartbeat lines in a log file."""
    limit = library.runtime.settings.max_document_bytes
    documents = source_documents(corpus, title_in_text=True, max_bytes=limit)
    present = {r["id"] for r in library.graph.read(Query.DOCUMENT_IDS, {"collection": name})}
    stale = sorted(present - {document.id for document in documents})
    deleted = library.delete(stale, collection=name) if stale else 0
    log(f"{name}: ingesting {len(documents):,} documents ({len(present):,} in the graph)")
    heartbeat = Heartbeat(console := Console(stderr=True))
    stats = ingest_with_progress(
        library.runtime.ingestor,
        documents,
        console,
        also=lambda s, rate: heartbeat(f"{name}: ingest {s.documents}/{len(documents)}, {rate}"),
        collection=name,
    )
    if stats.refused:
        raise RuntimeError(f"{name}: {len(stats.refused)} documents refused: {stats.refused[:3]}")
    log(f"{name}: {stats.written} written, {stats.unchanged} unchanged in {stats.seconds:.0f} s")
    return {"written": stats.written, "deleted": deleted, "seconds": round(stats.seconds)}


def copy_graph(source: Path, target: Path, stamp: str) -> None:
    """Copy the stopped server ``source`` over ``target``, unless ``target`` is a copy made when
    the split's collection had this ``stamp`` (its decoys are then kept too)."""
    record = target.parent / "copied-from.json"
    if record.exists() and json.loads(record.read_text()).get("stamp") == stamp:
        log(f"quality: {target} holds this very collection; keeping it and its decoys")
        return
    log(f"quality: copying {source} to {target}")
    record.unlink(missing_ok=True)
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target, symlinks=True, ignore=shutil.ignore_patterns("logs", "run"))
    record.write_text(json.dumps({"stamp": stamp, "from": str(source)}) + "\n")


def evaluate(library: Library, split: BeirSplit, name: str, mode: Mode) -> Run:
    """A document-level search restricted to ``name`` (k = 100, otherwise the defaults) for
    every query of the split."""
    rankings: dict[str, list[str]] = {}
    tick = ticker(f"quality: {mode} in {name!r}", len(split.queries))
    for number, query in enumerate(split.queries, 1):
        options = SearchOptions(
            query=query.text, mode=mode, level="document", k=100, collections=[name]
        )
        rankings[query.id] = [hit.document_id for hit in search(library.context, options).hits]
        tick(number)
    return per_query(split.qrels, rankings), rankings


def report_quality(
    split: BeirSplit, name: str, setup: str, alone: dict[str, Run], decoyed: dict[str, Run]
) -> dict[str, Any]:
    """Print and return the means alone and among decoys, their differences, and per query
    how many got better or worse (two-sided Wilcoxon p) and kept their top 10."""
    n = len(split.queries)
    print(
        f"\n== quality: {split.name} {split.split} ({n} queries), collection {name!r} alone and "
        f"among decoys; document level, k=100, default options; spaCy off, title + text; {setup}"
        f"\n\n{'search':<8}{'NDCG@10':>9}{'decoys':>8}{'Δ':>9}{'R@100':>8}{'decoys':>8}{'Δ':>9}"
        f"{'better':>8}{'worse':>7}{'p':>7}{'same top 10':>13}"
    )
    searches: dict[str, Any] = {}
    for label in QUALITY_MODES:
        (values, ranked), (values_d, ranked_d) = alone[label], decoyed[label]
        a, d = aggregate(values), aggregate(values_d)
        paired = wilcoxon(DECOYED, ALONE, values_d[NDCG10], values[NDCG10])
        same = sum(ranked[q][:10] == ranked_d[q][:10] for q in ranked)
        print(
            f"{label:<8}{a[NDCG10]:>9.4f}{d[NDCG10]:>8.4f}{d[NDCG10] - a[NDCG10]:>+9.4f}"
            f"{a[RECALL100]:>8.4f}{d[RECALL100]:>8.4f}{d[RECALL100] - a[RECALL100]:>+9.4f}"
            f"{paired.wins:>8}{paired.losses:>7}{paired.p_value:>7.3f}{same:>9}/{n}"
        )
        searches[label] = {ALONE: a, DECOYED: d, "delta": {m: d[m] - a[m] for m in a}}
        searches[label] |= {"better": paired.wins, "worse": paired.losses, "same_top10": same}
        searches[label]["wilcoxon_p"] = paired.p_value
    delta = searches["hybrid"]["delta"][NDCG10]
    met = abs(delta) <= TARGET_DELTA
    print(
        f"\nΔ NDCG@10, hybrid among decoys − alone, collections=[{name}]: {delta:+.4f}  "
        f"target |Δ| ≤ {TARGET_DELTA}: {'met' if met else 'NOT met'}"
    )
    split_facts = {"dataset": split.name, "split": split.split, "queries": n, "setup": setup}
    return split_facts | {"searches": searches, "delta_ndcg10": delta, "target_met": met}


if __name__ == "__main__":
    sys.exit(main())
