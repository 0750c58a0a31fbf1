"""Which postings budgets the TF-IDF path's finders would hit, without a database.

Not a timed test. ``cypher/search/tfidf_chunks.cypher`` lets a query's terms walk their posting
lists rarest first while the postings walked stay within ``$max_postings``
(``TFIDF_MAX_POSTINGS``); a term in more than ``$common_fraction`` of the chunks walks only when
every query term is that common. This script applies the same rule (``finders``) to document
frequencies counted here, so that a budget can be chosen knowing what it changes:

* **every dev split** in ``--datasets`` (BEIR folders): each document cut into chunks as
  ingestion does (``chunk_document`` with the default 200 tokens and 0.2 overlap, the model's
  own token counts, title in text as the evaluation ingests it), each chunk's ``index_terms``;
  per split, the number of chunks N, the queries whose terms are all common, the largest
  document frequency of such a query's rarest term, and for each budget the queries whose set
  of finders differs from the budget of 20,000 (the rule before 2026-12-04, whose rarest term
  walked past any budget). A budget that changes no finder set leaves every ranking as it was.
* **the generated corpus** of ``benchmarks/search_latency.py`` (``--sample`` chunks of
  ``benchmarks/synthetic.py``, seed 7, scaled to 100,000 and 1,000,000 chunks: its chunks are
  drawn independently, so document frequencies grow with N) and the benchmark's queries: the
  postings walked per query (p50, p95, max) for each budget, and the queries left without
  finders.

    .venv/bin/python -m benchmarks.tfidf_budget
    .venv/bin/python -m benchmarks.tfidf_budget --budgets 5000,10000 --sample 5000
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from anchorgraph.evaluation.datasets import available_splits, load_split, source_documents
from anchorgraph.loaders.chunking import chunk_document
from anchorgraph.retrieval.analysis import prepare
from anchorgraph.retrieval.paths.tfidf import TFIDF_COMMON_FRACTION
from anchorgraph.text.terms import index_terms
from benchmarks import synthetic

DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"
# The rule this benchmark compares against: a fixed budget of postings, under which the rarest
# term always walked.
BEFORE = 20_000
SCALES = (100_000, 1_000_000)


@dataclass(frozen=True)
class Walk:
    """The terms that walk their postings for one query, and how many postings they walk."""

    finders: tuple[str, ...]
    postings: float
    only_common: bool


def finders(
    df: Mapping[str, float], terms: Sequence[str], n: float, budget: float, *, rarest_free: bool
) -> Walk:
    """``tfidf_chunks.cypher``'s rule: terms by ascending df (then text); a term walks when it
    is in at most ``TFIDF_COMMON_FRACTION``·n chunks (or every term is that common) and the
    df of the terms so far, its own included, sum to at most ``budget``. ``rarest_free``: the
    rule before 2026-12-04, under which the rarest term walked whatever the budget."""
    weighted = sorted((df[t], t) for t in terms if df.get(t, 0) > 0)
    only_common = bool(weighted) and all(d > TFIDF_COMMON_FRACTION * n for d, _ in weighted)
    walked: list[str] = []
    so_far = 0.0
    postings = 0.0
    for i, (d, term) in enumerate(weighted):
        so_far += d
        if not (only_common or d <= TFIDF_COMMON_FRACTION * n):
            continue
        if so_far <= budget or (rarest_free and i == 0):
            walked.append(term)
            postings += d
    return Walk(tuple(walked), postings, only_common)


def split_frequencies(
    root: Path, split_name: str, count_tokens: Callable[[str], int]
) -> tuple[Counter[str], int]:
    """Document frequencies of index terms over the split's chunks, and the number of chunks."""
    split = load_split(root, split_name)
    df: Counter[str] = Counter()
    n = 0
    for document in source_documents(split, title_in_text=True):
        for chunk in chunk_document(document, count_tokens, target_tokens=200, overlap=0.2):
            n += 1
            df.update(index_terms(chunk.text).keys())
    return df, n


def dev_splits(
    datasets: Path, budgets: Sequence[int], count_tokens: Callable[[str], int]
) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for root in sorted(path for path in datasets.iterdir() if (path / "qrels").is_dir()):
        for split_name in available_splits(root):
            df, n = split_frequencies(root, split_name, count_tokens)
            queries = [prepare(q.text).terms for q in load_split(root, split_name).queries]
            before = [finders(df, terms, n, BEFORE, rarest_free=True) for terms in queries]
            rarest = [
                min(df[t] for t in terms if df.get(t))
                for terms, walk in zip(queries, before, strict=True)
                if walk.only_common
            ]
            rows.append(
                {
                    "split": f"{root.name}/{split_name}",
                    "chunks": n,
                    "queries": len(queries),
                    "only_common": len(rarest),
                    "rarest_df_max": max(rarest, default=0),
                    "changed": {
                        budget: sum(
                            finders(df, terms, n, budget, rarest_free=False).finders != old.finders
                            for terms, old in zip(queries, before, strict=True)
                        )
                        for budget in budgets
                    },
                }
            )
    return rows


def generated(budgets: Sequence[int], sample: int) -> list[dict[str, object]]:
    corpus = synthetic.SyntheticCorpus(7)
    rng = np.random.default_rng(7)
    counts: Counter[str] = Counter()
    for _ in range(sample):
        text, _, _ = corpus.chunk_text(rng)
        counts.update(index_terms(text).keys())
    # The benchmark's queries: warm-up and measured, seed + 1 (search_latency.py).
    queries = [prepare(text).terms for text in corpus.queries(220, 8)]
    rows: list[dict[str, object]] = []
    for n in SCALES:
        df = {term: count * n / sample for term, count in counts.items()}
        for budget, rarest_free in [(BEFORE, True), *((b, False) for b in budgets)]:
            walks = [finders(df, terms, n, budget, rarest_free=rarest_free) for terms in queries]
            postings = np.array([walk.postings for walk in walks])
            rows.append(
                {
                    "chunks": n,
                    "budget": budget,
                    "rarest_free": rarest_free,
                    "p50": round(float(np.percentile(postings, 50))),
                    "p95": round(float(np.percentile(postings, 95))),
                    "max": round(float(postings.max())),
                    "no_finder": sum(not walk.finders for walk in walks),
                }
            )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=Path, default=DATASETS)
    parser.add_argument("--budgets", default="2000,5000,10000,20000")
    parser.add_argument("--sample", type=int, default=20_000, help="Generated chunks counted.")
    args = parser.parse_args(argv)
    budgets = [int(b) for b in args.budgets.split(",")]
    from transformers import AutoTokenizer

    from anchorgraph.embedding import resolve_model_path

    tokenizer = AutoTokenizer.from_pretrained(resolve_model_path("all-MiniLM-L6-v2"))

    def count_tokens(text: str) -> int:
        return len(tokenizer.encode(text, add_special_tokens=False))

    splits = dev_splits(args.datasets, budgets, count_tokens)
    for row in splits:
        print(
            f"{row['split']:<24} N {row['chunks']:>6}  queries {row['queries']:>5}  all common "
            f"{row['only_common']:>4} (rarest df ≤ {row['rarest_df_max']})  finder sets changed: "
            + ", ".join(f"{b}: {c}" for b, c in row["changed"].items())  # type: ignore[attr-defined]
        )
    scaled = generated(budgets, args.sample)
    for row in scaled:
        rule = "rarest free" if row["rarest_free"] else "rarest too"
        print(
            f"generated {row['chunks']:>9,} budget {row['budget']:>6,} ({rule}): postings p50 "
            f"{row['p50']:,} p95 {row['p95']:,} max {row['max']:,}; no finder {row['no_finder']}"
        )
    print(json.dumps({"benchmark": "tfidf_budget", "splits": splits, "generated": scaled}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
