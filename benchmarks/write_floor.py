"""How fast can Neo4j take chunks at all? The floor under the ingest write target.

Not a timed test. It writes batches of SciFact chunks (random unit vectors, real index terms)
into a throwaway local Neo4j with the project's schema (vector and full-text indexes in place),
one transaction per batch (parameters sent included), and times statements of increasing
weight, each sent only the row fields it reads:

* ``text``: ``CREATE (:Chunk {id, text})`` only; the full-text index is updated at commit;
* ``text, vector sent``: the same statement, with each row's vector sent but not stored: what
  carrying 384 floats per chunk over Bolt costs before anything is indexed;
* ``text+vector``: the first plus ``db.create.setNodeVectorProperty``, the vector index too;
* ``shipped``: ``cypher/load/create_chunks.cypher`` as ingestion runs it (vector, the TF-IDF
  postings ``(:Chunk)-[:HAS_TERM]->(:Term)``, the document and ``NEXT`` edges);
* ``shipped, no postings``: the same statement given no index terms.

Then the chunk vector index is dropped and the two shipped variants run again, which splits
ingestion's write into its three parts: HNSW insertion, TF-IDF postings, and the rest.

The first two are deliberately less than ingestion does: whatever they cost, a real ingest
cannot beat. Each variant runs ``--repeats`` batches per batch size after ``--warmup`` unmeasured
ones (plan compilation); variants alternate so that background load falls on all alike.

    .venv/bin/python -m benchmarks.write_floor
    .venv/bin/python -m benchmarks.write_floor --batch-chunks 150,1000 --repeats 10
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import defaultdict
from itertools import count
from pathlib import Path
from typing import Any

import neo4j
import numpy as np

from anchorgraph.embedding import HashEmbedder
from anchorgraph.graph.queries import Query, as_parameters, cypher
from anchorgraph.loaders.graph_writer import index_term_parameters
from anchorgraph.runtime import open_runtime
from anchorgraph.scope import DEFAULT_COLLECTION
from anchorgraph.text.terms import index_terms
from benchmarks.server import add_server_arguments, benchmark_server

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "datasets" / "scifact" / "corpus.jsonl"
DIMENSION = 384  # all-MiniLM-L6-v2; the vectors are random, only their size matters here
WRITE_TARGET_CHUNKS_S = 5000.0

# Floors: less than ingestion writes, so nothing real can be faster.
TEXT_ONLY = "UNWIND $chunks AS row CREATE (:Chunk {id: row.id, text: row.text})"
TEXT_AND_VECTOR = (
    "UNWIND $chunks AS row CREATE (c:Chunk {id: row.id, text: row.text}) "
    "WITH c, row CALL db.create.setNodeVectorProperty(c, 'embedding', row.embedding)"
)
# Untimed: the documents the shipped statement attaches chunks to.
DOCUMENTS = "UNWIND $ids AS id CREATE (:Document {id: id})"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Floor of Neo4j chunk writes, chunks/s.")
    parser.add_argument("--batch-chunks", default="150,1000", help="Comma-separated sizes.")
    parser.add_argument("--repeats", type=int, default=10, help="Measured batches per cell.")
    parser.add_argument("--warmup", type=int, default=2, help="Unmeasured batches per cell.")
    # Never --neo4j-uri: it drops the chunk vector index of the server it writes to.
    add_server_arguments(parser, external=False)
    args = parser.parse_args(argv)
    args.sizes = [int(size) for size in args.batch_chunks.split(",") if size]
    if not args.sizes or min(args.sizes) < 1 or args.repeats < 1 or args.warmup < 0:
        parser.error("batch sizes and --repeats must be at least 1, --warmup at least 0")
    return args


def chunk_texts(limit: int) -> list[str]:
    """SciFact abstracts cut to ~200-token chunks (1,000 characters), as ingestion's are."""
    texts: list[str] = []
    with CORPUS.open(encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            text = f"{record.get('title', '')} {record.get('text', '')}"
            texts += [text[i : i + 1000] for i in range(0, len(text), 1000)]
            if len(texts) >= limit:
                break
    return texts[:limit]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    shipped = cypher(Query.CREATE_CHUNKS)
    # Each statement with the row fields it reads (None: all, as ingestion sends them): a floor
    # sends no more than it needs.
    variants: dict[str, tuple[str, tuple[str, ...] | None]] = {
        "text": (TEXT_ONLY, ("id", "text")),
        "text, vector sent": (TEXT_ONLY, ("id", "text", "embedding")),
        "text+vector": (TEXT_AND_VECTOR, ("id", "text", "embedding")),
        "shipped": (shipped, None),
        "shipped, no postings": (shipped, None),
    }
    # Second phase, once the chunk vector index is dropped: the shipped statement apart from
    # HNSW insertion, and apart from both of its heavy parts.
    unindexed = ("shipped", "shipped, no postings")
    texts = chunk_texts(max(args.sizes) * 4)
    rng = np.random.default_rng(0)
    serial = count()

    def batch(size: int) -> tuple[list[str], list[dict[str, Any]]]:
        """``size`` chunks (3 per document, in order) with fresh ids."""
        rows: list[dict[str, Any]] = []
        documents: list[str] = []
        for i in range(size):
            text = texts[(next(serial) * 7) % len(texts)]
            if i % 3 == 0:
                documents.append(f"d{next(serial)}")
            vector = rng.standard_normal(DIMENSION).astype(np.float32)
            rows.append(
                {
                    "id": f"{documents[-1]}#{i % 3}",
                    "document_id": documents[-1],
                    "ordinal": i % 3,
                    "text": text,
                    "start": 0,
                    "end": len(text),
                    "n_tokens": len(text.split()),
                    "heading_slugs": [],
                    "identifiers": [],
                    "terms": index_terms(text),
                    "previous_id": f"{documents[-1]}#{i % 3 - 1}" if i % 3 else None,
                    "embedding": (vector / np.linalg.norm(vector)).tolist(),
                }
            )
        return documents, rows

    def parameters(name: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
        """The statement's parameters for ``rows``: only the fields it reads, or the terms as
        ingestion sends them (none for ``no postings``)."""
        fields = variants[name][1]
        if fields is not None:
            return {"chunks": [{key: row[key] for key in fields} for row in rows]}
        chunk_terms = [{} if "no postings" in name else row["terms"] for row in rows]
        terms, postings = index_term_parameters(chunk_terms)
        sent = [
            {key: value for key, value in row.items() if key != "terms"} | p
            for row, p in zip(rows, postings, strict=True)
        ]
        # Index terms are per collection (create_chunks.cypher MERGEs them with it); no shard
        # label, so the floors compare with one vector index, as the variants above have.
        return {"chunks": sent, "terms": terms, "collection": DEFAULT_COLLECTION,
                "chunk_labels": []}  # fmt: skip

    measured: dict[tuple[str, int], list[tuple[float, float]]] = defaultdict(list)

    def run_cells(
        driver: neo4j.Driver, database: str, cells: list[tuple[str, int]], label: str = ""
    ) -> None:
        """``--warmup`` then ``--repeats`` batches of every cell, the cells alternating."""
        for round_number in range(args.warmup + args.repeats):
            for name, size in cells:
                documents, rows = batch(size)
                sent = as_parameters(parameters(name, rows))
                with driver.session(database=database) as session:
                    session.run(DOCUMENTS, ids=documents).consume()
                    started = time.perf_counter()
                    with session.begin_transaction() as tx:
                        tx.run(variants[name][0], sent).consume()
                        before_commit = time.perf_counter()
                        tx.commit()
                    ended = time.perf_counter()
                if round_number >= args.warmup:
                    measured[name + label, size].append((ended - started, ended - before_commit))

    # The vectors are random, so no model is loaded: a fake embedder of the same dimension
    # gives the schema its vector index size.
    with (
        benchmark_server(args, prefix="anchorgraph-floor-") as server,
        open_runtime(
            server.settings, schema="apply", embedder_factory=lambda _: HashEmbedder(DIMENSION)
        ) as runtime,
    ):
        # Timed transactions of its own (commit apart), so the driver rather than Graph.write.
        driver, database = runtime.graph.driver, runtime.graph.database
        run_cells(driver, database, [(name, size) for size in args.sizes for name in variants])
        runtime.graph.run("DROP INDEX chunk_embedding")
        label = ", no vector index"
        cells = [(name, size) for size in args.sizes for name in unindexed]
        run_cells(driver, database, cells, label)

    print(f"\n{'statement':38} {'chunks':>6} {'batch ms':>9} {'commit ms':>9} {'chunks/s':>9}")
    summary: dict[str, dict[str, float]] = {}
    # By batch size, in the order measured within one (sorted() is stable).
    for name, size in sorted(measured, key=lambda cell: args.sizes.index(cell[1])):
        totals = [total for total, _ in measured[name, size]]
        commits = [commit for _, commit in measured[name, size]]
        median = statistics.median(totals)
        rate = size / median
        summary[f"{name}@{size}"] = {
            "batch_ms": round(median * 1000, 1),
            "commit_ms": round(statistics.median(commits) * 1000, 1),
            "chunks_per_s": round(rate),
        }
        print(
            f"{name:38} {size:>6} {median * 1000:>9.1f} "
            f"{statistics.median(commits) * 1000:>9.1f} {rate:>9.0f}"
        )

    def best(name: str) -> float:
        return max(summary[f"{name}@{size}"]["chunks_per_s"] for size in args.sizes)

    print(
        f"\nmedians of {args.repeats} batches each. Best chunks/s: {best('text'):.0f} without "
        f"vectors, {best('text, vector sent'):.0f} when each chunk's vector only travels, "
        f"{best('text+vector'):.0f} when it is stored and indexed, {best('shipped'):.0f} for "
        f"ingestion's statement, {best('shipped, no postings, no vector index'):.0f} for it "
        f"without TF-IDF postings and the chunk vector index; the ingest target is "
        f"{WRITE_TARGET_CHUNKS_S:.0f}."
    )
    print(json.dumps({"target_chunks_per_s": WRITE_TARGET_CHUNKS_S, "cells": summary}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
