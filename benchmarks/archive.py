"""The Portuguese archive sample: does analysing Portuguese as Portuguese pay, and are the
archive's questions answered?

    .venv/bin/python -m benchmarks.archive
    .venv/bin/python -m benchmarks.archive --spacy-model ""     # without spaCy's English NER

On a throwaway local Neo4j (started and removed here) the archive (``loaders/sample_archive``,
its 39 judged questions in ``loaders/sample_archive_questions.json``; docs/sample_archive.md) is
ingested twice with the real embedding model: into ``arquivo`` as ``anchorgraph run`` loads it
(each document in its declared language: Portuguese or Italian analyzers), and into
``arquivo-en`` with every document declared English (the English analyzer, what every text got
before languages). Every question is then searched at document level in each: BM25 alone and
the default hybrid. Printed: NDCG@10 (graded: 2 answers it, 1 partly) and the share of questions
with a document that answers them in the top 3, for all questions and for the kinds the manifest
names (identifier queries, inflected forms); then one line of JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from anchorgraph.evaluation.metrics import NDCG10, aggregate, per_query
from anchorgraph.graph.local_server import LocalNeo4j, throwaway_settings
from anchorgraph.ingestion import archive_corpus, archive_questions, read_all
from anchorgraph.library import Library, open_library
from anchorgraph.loaders.model import SourceDocument
from anchorgraph.retrieval.options import Mode

COLLECTIONS = {"arquivo": None, "arquivo-en": "en"}  # collection → the language declared
MODES: dict[str, Mode] = {"bm25": Mode.BM25, "hybrid": Mode.HYBRID}
TOP = 3


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spacy-model", default=None, help="default: the configured one")
    parser.add_argument("--neo4j-heap", default="1g")
    parser.add_argument("--neo4j-pagecache", default="512m")
    return parser.parse_args(argv)


def as_english(document: SourceDocument) -> SourceDocument:
    """The document declared English, its front matter's own declaration dropped."""
    metadata = {k: v for k, v in document.metadata.items() if k != "language"}
    return replace(document, language="en", metadata=metadata)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.perf_counter()
    questions = json.loads(archive_questions().read_text(encoding="utf-8"))
    qrels = {q["id"]: {doc: int(grade) for doc, grade in q["relevant"].items()} for q in questions}
    with tempfile.TemporaryDirectory(prefix="anchorgraph-archive-") as home:
        settings = throwaway_settings(
            Path(home), heap=args.neo4j_heap, pagecache=args.neo4j_pagecache
        )
        if args.spacy_model is not None:
            settings = settings.model_copy(update={"spacy_model": args.spacy_model})
        local = LocalNeo4j(settings)
        local.install()
        local.start()
        try:
            with open_library(local.settings) as library:
                results = measure(library, questions, qrels)
        finally:
            local.stop()
    report(results)
    summary = {"benchmark": "archive", "questions": len(questions), "results": results,
               "wall_s": round(time.perf_counter() - started)}  # fmt: skip
    print(json.dumps(summary), flush=True)
    return 0


def measure(
    library: Library, questions: list[dict[str, Any]], qrels: dict[str, dict[str, int]]
) -> dict[str, dict[str, Any]]:
    documents, _ = read_all(library.runtime.settings, archive_corpus())
    results: dict[str, dict[str, Any]] = {}
    for collection, declared in COLLECTIONS.items():
        written = [as_english(d) for d in documents] if declared == "en" else documents
        stats = library.add(written, collection=collection)
        print(f"{collection}: {stats.written} documents written", file=sys.stderr, flush=True)
        for label, mode in MODES.items():
            rankings = {
                q["id"]: [
                    hit.document_id
                    for hit in library(
                        q["query"], mode=mode, level="document", k=10, collections=[collection]
                    ).hits
                ]
                for q in questions
            }
            values = per_query(qrels, rankings)
            answered = {
                q["id"]: any(qrels[q["id"]].get(doc) == 2 for doc in rankings[q["id"]][:TOP])
                for q in questions
            }
            kinds = {"all": [q["id"] for q in questions], **_kinds(questions)}
            results[f"{collection} {label}"] = {
                kind: {
                    "n": len(ids),
                    NDCG10: round(sum(values[NDCG10][i] for i in ids) / len(ids), 4),
                    f"answered@{TOP}": round(sum(answered[i] for i in ids) / len(ids), 4),
                }
                for kind, ids in kinds.items()
            }
            results[f"{collection} {label}"]["all"]["aggregate"] = aggregate(values)
    return results


def _kinds(questions: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Identifier queries (a shelf mark, an inventory or ofício number) and the rest."""
    identifier = [q["id"] for q in questions if any(ch.isdigit() for ch in q["query"][:12])
                  and q["query"].split()[0].isupper()]  # fmt: skip
    return {
        "identifier": identifier,
        "other": [q["id"] for q in questions if q["id"] not in identifier],
    }


def report(results: dict[str, dict[str, Any]]) -> None:
    print(f"\n{'collection, search':<22}{'kind':<12}{'n':>4}{'NDCG@10':>10}{'answered@3':>12}")
    for name, kinds in results.items():
        for kind, row in kinds.items():
            print(
                f"{name:<22}{kind:<12}{row['n']:>4}{row[NDCG10]:>10.4f}"
                f"{row[f'answered@{TOP}']:>12.4f}"
            )


if __name__ == "__main__":
    raise SystemExit(main())
