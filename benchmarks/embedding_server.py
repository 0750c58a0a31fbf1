"""Ingest with the model in process against the same model behind an embedding server (a real
Infinity on loopback, ``make infinity``; service/embedding_remote.py), with 1, 2 and 4 requests
in flight (``ANCHORGRAPH_EMBEDDING_CONCURRENCY``): chunks/s end to end, and the CPU seconds per
chunk of the ingesting process (what an API process pays) and of the server.

Not a timed test: run it by hand and compare runs made one after the other on the same machine.

    .venv/bin/python -m benchmarks.embedding_server --limit 300

Each run ingests the same documents into an emptied graph of a throwaway Neo4j
(``benchmarks/server.py``), without spaCy (identifier patterns only), so that the embedding is
what differs. The in-process model uses ``--threads`` torch threads (the API keeps 1). The last
line is a JSON summary for machines.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from itertools import islice
from pathlib import Path

from pydantic import SecretStr

from anchorgraph.embedding import Embedder
from anchorgraph.graph.queries import Query, cypher
from anchorgraph.loaders.model import SourceDocument
from anchorgraph.loaders.read import read_path
from anchorgraph.runtime import default_embedder, open_runtime
from anchorgraph.settings import Settings
from benchmarks.processes import cpu_seconds
from benchmarks.server import add_server_arguments, benchmark_server

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "datasets" / "scifact" / "corpus.jsonl"
# The Infinity the tests start (tests/embeddingserver/infinity.py), reused as it is.
sys.path.insert(0, str(REPO / "tests"))
KEY = "sk-benchmark"


@dataclass(frozen=True)
class Run:
    """One ingest of the documents: its chunks and wall seconds, the CPU milliseconds per chunk
    of this process and of the server (None: in process, no server)."""

    run: str
    chunks: int
    seconds: float
    cpu_ms_per_chunk: float
    server_cpu_ms_per_chunk: float | None

    @property
    def chunks_per_s(self) -> float:
        return self.chunks / self.seconds


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--limit", type=int, default=300, help="First N documents.")
    parser.add_argument("--threads", type=int, default=1, help="torch threads in process.")
    parser.add_argument(
        "--in-flight", default="1,2,4", help="Requests in flight to the server, comma-separated."
    )
    add_server_arguments(parser, external=False)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    from embeddingserver.infinity import Infinity  # type: ignore[import-not-found]

    args = parse_args(argv)
    documents = list(islice(read_path(args.corpus, max_bytes=5_000_000), args.limit))
    results: list[Run] = []
    with (
        benchmark_server(args, prefix="anchorgraph-bench-embed-") as server,
        tempfile.TemporaryDirectory(prefix="anchorgraph-infinity-") as home,
    ):
        infinity = Infinity(Path(home), KEY).start()
        try:
            base = server.settings.model_copy(
                update={
                    "spacy_model": "",
                    "gazetteer": None,
                    "embedding_threads": args.threads,
                    "embedding_onnx_queries": False,
                }
            )
            runs = [("in process", base, None)]
            for n in (int(n) for n in args.in_flight.split(",")):
                remote = base.model_copy(
                    update={
                        "embedding_url": infinity.url,
                        "embedding_api_key": SecretStr(KEY),
                        "embedding_concurrency": n,
                        "embedding_batch_size": 32,
                    }
                )
                runs.append((f"server, {n} in flight", remote, infinity.process))
            for name, settings, process in runs:
                results.append(run(name, settings, documents, process.pid if process else None))
        finally:
            infinity.stop()
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"\n{len(documents)} documents of {args.corpus}, no spaCy, batches of 64 documents")
    print(f"load average after the runs (1, 5, 15 min): {load}")
    print(f"{'run':<22} {'chunks':>7} {'seconds':>8} {'chunks/s':>9} {'ms CPU/chunk':>13} "
          f"{'server ms/chunk':>16}")  # fmt: skip
    for r in results:
        server_ms = r.server_cpu_ms_per_chunk
        print(
            f"{r.run:<22} {r.chunks:>7} {r.seconds:>8.1f} {r.chunks_per_s:>9.1f} "
            f"{r.cpu_ms_per_chunk:>13.1f} "
            f"{'-' if server_ms is None else f'{server_ms:.1f}':>16}"
        )
    print(json.dumps([{**asdict(r), "chunks_per_s": r.chunks_per_s} for r in results]))
    return 0


def run(
    name: str, settings: Settings, documents: list[SourceDocument], server_pid: int | None
) -> Run:
    with open_runtime(settings, schema="apply", embedder_factory=default_embedder) as runtime:
        runtime.graph.driver.execute_query(cypher(Query.DELETE_ALL))
        embedder: Embedder = runtime.embedder
        embedder.embed(["warm up"])
        cpu, server_cpu, clock = time.process_time(), cpu_seconds(server_pid), time.perf_counter()
        stats = runtime.ingestor.ingest(documents, collection="bench")
        seconds = time.perf_counter() - clock
        cpu = time.process_time() - cpu
        after = cpu_seconds(server_pid)
    server_s = after - server_cpu if after is not None and server_cpu is not None else None
    chunks = max(stats.chunks, 1)
    return Run(
        run=name,
        chunks=stats.chunks,
        seconds=seconds,
        cpu_ms_per_chunk=1000 * cpu / chunks,
        server_cpu_ms_per_chunk=None if server_s is None else 1000 * server_s / chunks,
    )


if __name__ == "__main__":
    raise SystemExit(main())
