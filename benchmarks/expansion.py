"""Hyperlink expansion, flat against expanded, on a BEIR multi-hop split (HotpotQA dev500).

Not a timed test: run it by hand after ``anchorgraph eval`` has ingested the split with
``--link-titles`` (it reuses that evaluation Neo4j and its graph, and ingests nothing)::

    .venv/bin/anchorgraph eval --dataset ../shared/datasets/hotpotqa_dev500 --split dev \\
        --conditions hybrid --no-entities --link-titles --keep-server
    .venv/bin/python -m benchmarks.expansion \\
        --dataset ../shared/datasets/hotpotqa_dev500 --split dev

Every question is searched twice through ``service.search`` at document level, k = 100: the
default hybrid, and the same with ``expand`` and ``expand_rank`` (supporting documents ranked by
their inherited score). Printed per condition and on the two halves of the questions (a fixed
hash of the id: ``evaluation.metrics.held_aside``, the 30 % part never used to choose anything):
NDCG@10, Recall@10, Recall@100 and the share of questions with *all* their gold passages in the
top 10 and the top 100, with Wilcoxon p (expanded against flat, per question); the expansion
stage's own time (p50, p95) and each condition's whole search time; and tokens: what the
expanded answers return against the linked documents' whole text (parent windows) and against
no expansion, over the top 10.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from evaluation.datasets import BeirSplit, load_split
from evaluation.metrics import held_aside, mean, per_query, wilcoxon
from evaluation.run import EvalConfig, eval_server
from service import SchemaMode, SearchOptions, open_runtime, search

K = 100
Rankings = Mapping[str, Sequence[str]]


def _gold_found(rankings: Rankings, split: BeirSplit, depth: int) -> dict[str, tuple[int, int]]:
    """Per question: its relevant documents, and how many of them are in its top ``depth``."""
    counts: dict[str, tuple[int, int]] = {}
    for query_id, judged in split.qrels.items():
        gold = {doc for doc, grade in judged.items() if grade > 0}
        top = set(list(dict.fromkeys(rankings.get(query_id, [])))[:depth])
        counts[query_id] = (len(gold), len(gold & top))
    return counts


def all_gold(rankings: Rankings, split: BeirSplit, depth: int) -> dict[str, float]:
    """1.0 for a question whose relevant documents are all in its top ``depth``, else 0.0."""
    counts = _gold_found(rankings, split, depth)
    return {q: float(found == gold) for q, (gold, found) in counts.items()}


def recall_at(rankings: Rankings, split: BeirSplit, depth: int) -> dict[str, float]:
    counts = _gold_found(rankings, split, depth)
    return {q: found / gold if gold else 0.0 for q, (gold, found) in counts.items()}


def percentile(values: Sequence[float], q: float) -> float:
    return float(np.percentile(np.asarray(values, dtype=np.float64), q)) if values else 0.0


def run(dataset: Path, split_name: str) -> dict[str, Any]:
    split = load_split(dataset, split_name)
    config = EvalConfig(dataset=dataset, split=split_name, keep_server=True)
    from rich.console import Console

    console = Console(stderr=True)
    measures: dict[str, dict[str, dict[str, float]]] = {}
    latency: dict[str, list[float]] = {"flat": [], "expanded": [], "expand stage": []}
    tokens = {"returned": 0, "without_expansion": 0, "parent_windows": 0}
    with (
        eval_server(config, split.name, console) as (settings, _ours),
        open_runtime(settings, schema=SchemaMode.VERIFY) as runtime,
    ):
        rankings: dict[str, dict[str, list[str]]] = {"flat": {}, "expanded": {}}
        for query in split.queries:
            for name, extra in (("flat", {}), ("expanded", {"expand": True, "expand_rank": True})):
                options = SearchOptions(query=query.text, level="document", k=K, **extra)
                clock = time.perf_counter()
                result = search(runtime.search, options)
                latency[name].append((time.perf_counter() - clock) * 1000)
                rankings[name][query.id] = [hit.document_id for hit in result.hits]
                if name == "expanded":
                    latency["expand stage"] += [t.ms for t in result.timings if t.stage == "expand"]
                    top10 = search(
                        runtime.search,
                        SearchOptions(query=query.text, level="document", k=10, expand=True),
                    ).tokens
                    if top10 is not None:
                        for key in tokens:
                            tokens[key] += getattr(top10, key)
    for name, ranked in rankings.items():
        ndcg = per_query(split.qrels, ranked)
        measures[name] = {
            "NDCG@10": ndcg["NDCG@10"],
            "Recall@10": recall_at(ranked, split, 10),
            "Recall@100": recall_at(ranked, split, 100),
            "all-gold@10": all_gold(ranked, split, 10),
            "all-gold@100": all_gold(ranked, split, 100),
        }
    report: dict[str, Any] = {"questions": len(split.queries), "measures": {}, "p": {}}
    for measure in measures["flat"]:
        flat, expanded = measures["flat"][measure], measures["expanded"][measure]
        report["measures"][measure] = {
            name: {
                "all": mean(values),
                "tune": mean({q: v for q, v in values.items() if not held_aside(q)}),
                "held": mean({q: v for q, v in values.items() if held_aside(q)}),
            }
            for name, values in (("flat", flat), ("expanded", expanded))
        }
        report["p"][measure] = wilcoxon("expanded", "flat", expanded, flat).p_value
    report["latency_ms"] = {
        name: {"p50": percentile(values, 50), "p95": percentile(values, 95)}
        for name, values in latency.items()
    }
    report["tokens_top10"] = tokens
    if tokens["parent_windows"]:
        report["tokens_top10"]["fewer_than_parent_windows"] = 1 - (
            tokens["returned"] / tokens["parent_windows"]
        )
    return report


def print_report(report: Mapping[str, Any]) -> None:
    print(f"{report['questions']} questions, k = {K}, document level")
    print(f"{'measure':<14} {'flat':>22} {'expanded':>22}   p (Wilcoxon)")
    for measure, values in report["measures"].items():
        cells = [
            f"{v['all']:.4f} ({v['tune']:.3f}/{v['held']:.3f})"
            for v in (values["flat"], values["expanded"])
        ]
        print(f"{measure:<14} {cells[0]:>22} {cells[1]:>22}   {report['p'][measure]:.2g}")
    print("(all queries, then tune / held-aside parts)")
    for name, values in report["latency_ms"].items():
        print(f"latency {name:<14} p50 {values['p50']:.2f} ms  p95 {values['p95']:.2f} ms")
    t = report["tokens_top10"]
    print(
        f"tokens, top 10: {t['returned']} returned, {t['without_expansion']} without expansion, "
        f"{t['parent_windows']} with parent windows"
        + (
            f" ({t['fewer_than_parent_windows']:.1%} fewer)"
            if "fewer_than_parent_windows" in t
            else ""
        )
    )
    print(json.dumps(report["latency_ms"] | {"tokens": t}))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, required=True)
    parser.add_argument("--split", default="dev")
    args = parser.parse_args(argv)
    print_report(run(args.dataset, args.split))
    return 0


if __name__ == "__main__":
    sys.exit(main())
