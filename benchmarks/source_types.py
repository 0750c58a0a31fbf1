"""Study design at ingest: coverage on SciFact and NFCorpus, speed, and precision per class.

Not a timed test. It classifies every document of each BEIR dataset folder given (title and
text of ``corpus.jsonl``) with ``anchorgraph.loaders.source_types.classify_study_design`` and
prints, per corpus, how many documents fall in each class (count and share) and documents/s; then
the precision per predicted class against the hand-labelled sample in
``tests/fixtures/source_types_sample.jsonl`` (documents the classifier put in each class, drawn
with a fixed seed from both corpora and labelled by reading their abstracts), e.g.
``rct: 25/26 = 0.962``; then one line of JSON.

    .venv/bin/python -m benchmarks.source_types
    .venv/bin/python -m benchmarks.source_types ../shared/datasets/scifact
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

from anchorgraph.loaders.source_types import StudyDesign, classify_study_design

REPO = Path(__file__).resolve().parents[1]
DATASETS = REPO.parent / "shared" / "datasets"
SAMPLE = REPO / "tests" / "fixtures" / "source_types_sample.jsonl"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Study-design coverage, speed and precision.")
    parser.add_argument(
        "datasets",
        nargs="*",
        type=Path,
        default=[DATASETS / "scifact", DATASETS / "nfcorpus"],
        help="BEIR dataset folders (each with corpus.jsonl).",
    )
    parser.add_argument("--sample", type=Path, default=SAMPLE, help="Hand-labelled sample.")
    args = parser.parse_args(argv)
    for folder in args.datasets:
        if not (folder / "corpus.jsonl").is_file():
            parser.error(f"{folder}: no corpus.jsonl")
    return args


def read_corpus(folder: Path) -> list[tuple[str, str, str]]:
    """``(id, title, text)`` of every document of a BEIR corpus."""
    documents: list[tuple[str, str, str]] = []
    with (folder / "corpus.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            documents.append((record["_id"], record.get("title", ""), record.get("text", "")))
    return documents


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    predictions: dict[tuple[str, str], StudyDesign] = {}
    coverage: dict[str, Any] = {}
    for folder in args.datasets:
        documents = read_corpus(folder)
        started = time.perf_counter()
        designs = [classify_study_design(title, text) for _, title, text in documents]
        elapsed = time.perf_counter() - started
        counts = Counter(designs)
        rate = len(documents) / elapsed if elapsed else float("inf")
        print(f"{folder.name}: {len(documents):,} documents, {rate:,.0f} documents/s")
        for design in StudyDesign:
            share = counts[design] / len(documents) if documents else 0.0
            print(f"  {design.value:<18} {counts[design]:>6,}  {share:6.1%}")
        coverage[folder.name] = {
            "documents": len(documents),
            "documents_per_s": round(rate, 1),
            **{design.value: counts[design] for design in StudyDesign},
        }
        for (doc_id, _, _), design in zip(documents, designs, strict=True):
            predictions[(folder.name, doc_id)] = design

    precision: dict[str, Any] = {}
    if args.sample.is_file():
        rows = [json.loads(line) for line in args.sample.read_text(encoding="utf-8").splitlines()]
        rows = [row for row in rows if (row["dataset"], row["id"]) in predictions]
        predicted: Counter[StudyDesign] = Counter()
        correct: Counter[StudyDesign] = Counter()
        for row in rows:
            design = predictions[(row["dataset"], row["id"])]
            predicted[design] += 1
            correct[design] += design.value == row["label"]
        print(f"precision against the hand-labelled sample ({len(rows)} documents, {args.sample}):")
        for design in StudyDesign:
            n, hit = predicted[design], correct[design]
            value = hit / n if n else None
            print(
                f"  {design.value}: {hit}/{n} = " + (f"{value:.3f}" if value is not None else "-")
            )
            precision[design.value] = {"correct": hit, "predicted": n, "precision": value}
    else:
        print(f"no hand-labelled sample at {args.sample}: precision not computed")
    print(json.dumps({"benchmark": "source_types", "coverage": coverage, "precision": precision}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
