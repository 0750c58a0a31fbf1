"""Expansion along links and entity bridges against the flat hybrid, on a BEIR multi-hop split
(HotpotQA dev500, MuSiQue dev).

Not a timed test: run it by hand after ``anchorgraph eval`` has ingested the split with
``--link-titles`` (it reuses that evaluation Neo4j and its graph, and ingests nothing)::

    .venv/bin/anchorgraph eval --dataset ../shared/datasets/musique_dev --split dev \\
        --conditions hybrid --link-titles --keep-server
    .venv/bin/python -m benchmarks.expansion \\
        --dataset ../shared/datasets/musique_dev --split dev [--walk]

Every question is searched through ``anchorgraph.engine.search`` at document level, k = 100, once
per condition, after ``--warm-passes`` untimed passes over them all (1 by default: the times are
those of a warm server, as a service running for a while has): the hybrid without the graph
(flat, default-v3), ``+expand`` (links), ``+bridge`` (entity bridges), ``+expand+bridge`` (the
default search, default-v4), each with ``expand_rank`` (supporting documents ranked by their
score); with ``--walk`` also the flat hybrid and
``+expand+bridge`` with the Personalized PageRank prior (``walk_weight``). Printed per
condition and on the two parts of the questions (a fixed hash of the id:
``anchorgraph.evaluation.metrics.held_aside``, the 30 % part never used to choose anything):
NDCG@10, Recall@5, Recall@10, Recall@100 and the share of questions with *all* their gold
passages in the top 5, 10 and 100, with Wilcoxon p against flat (per question); each
condition's search time and the expand and priors stages' own times (p50, p95); and tokens:
what the ``+expand+bridge`` answers return against the reached documents' whole text (parent
windows) and against no expansion, over the top 10.
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

from anchorgraph import SearchOptions, open_runtime
from anchorgraph.engine import SchemaMode, search
from anchorgraph.evaluation.conditions import WALK_WEIGHT
from anchorgraph.evaluation.datasets import BeirSplit, load_split
from anchorgraph.evaluation.metrics import held_aside, mean, per_query, wilcoxon
from anchorgraph.evaluation.run import EvalConfig, eval_server

K = 100
RANKED = {"expand_rank": True}
# Each part named, on or off: the default search (default-v4) is "+expand+bridge".
CONDITIONS: dict[str, dict[str, Any]] = {
    "flat": {"expand": False, "bridge": False},
    "+expand": {"expand": True, "bridge": False, **RANKED},
    "+bridge": {"expand": False, "bridge": True, **RANKED},
    "+expand+bridge": {"expand": True, "bridge": True, **RANKED},
}
WALK_CONDITIONS: dict[str, dict[str, Any]] = {
    "+walk": {"walk_weight": WALK_WEIGHT, **CONDITIONS["flat"]},
    "+walk+expand+bridge": {"walk_weight": WALK_WEIGHT, **CONDITIONS["+expand+bridge"]},
}
STAGES = ("expand", "priors")
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


def run(
    dataset: Path,
    split_name: str,
    *,
    walk: bool = False,
    neo4j_home: Path | None = None,
    warm_passes: int = 1,
) -> dict[str, Any]:
    split = load_split(dataset, split_name)
    config = EvalConfig(dataset=dataset, split=split_name, keep_server=True, neo4j_home=neo4j_home)
    from rich.console import Console

    console = Console(stderr=True)
    conditions = CONDITIONS | (WALK_CONDITIONS if walk else {})
    latency: dict[str, list[float]] = {name: [] for name in conditions}
    latency |= {f"{stage} stage ({name})": [] for name in conditions for stage in STAGES}
    tokens = {"returned": 0, "without_expansion": 0, "parent_windows": 0}
    rankings: dict[str, dict[str, list[str]]] = {name: {} for name in conditions}
    with (
        eval_server(config, split.name, console) as (settings, _ours),
        open_runtime(settings, schema=SchemaMode.VERIFY) as runtime,
    ):
        search(runtime.search, SearchOptions(query="warm up", level="document", k=K))
        for query in [q for _ in range(warm_passes) for q in split.queries]:
            for extra in conditions.values():
                search(
                    runtime.search, SearchOptions(query=query.text, level="document", k=K, **extra)
                )
        for query in split.queries:
            for name, extra in conditions.items():
                options = SearchOptions(query=query.text, level="document", k=K, **extra)
                clock = time.perf_counter()
                result = search(runtime.search, options)
                latency[name].append((time.perf_counter() - clock) * 1000)
                rankings[name][query.id] = [hit.document_id for hit in result.hits]
                for timing in result.timings:
                    if timing.stage in STAGES:
                        latency[f"{timing.stage} stage ({name})"].append(timing.ms)
            both = CONDITIONS["+expand+bridge"] | {"expand_rank": False}
            top10 = search(
                runtime.search, SearchOptions(query=query.text, level="document", k=10, **both)
            ).tokens
            if top10 is not None:
                for key in tokens:
                    tokens[key] += getattr(top10, key)
    measures: dict[str, dict[str, dict[str, float]]] = {}
    for name, ranked in rankings.items():
        ndcg = per_query(split.qrels, ranked)
        measures[name] = {
            "NDCG@10": ndcg["NDCG@10"],
            "Recall@5": recall_at(ranked, split, 5),
            "Recall@10": recall_at(ranked, split, 10),
            "Recall@100": recall_at(ranked, split, 100),
            "all-gold@5": all_gold(ranked, split, 5),
            "all-gold@10": all_gold(ranked, split, 10),
            "all-gold@100": all_gold(ranked, split, 100),
        }
    report: dict[str, Any] = {
        "questions": len(split.queries),
        "warm_passes": warm_passes,
        "conditions": list(conditions),
        "measures": {},
        "p": {},
    }
    for measure in measures["flat"]:
        report["measures"][measure] = {
            name: {
                "all": mean(values[measure]),
                "tune": mean({q: v for q, v in values[measure].items() if not held_aside(q)}),
                "held": mean({q: v for q, v in values[measure].items() if held_aside(q)}),
            }
            for name, values in measures.items()
        }
        report["p"][measure] = {
            name: wilcoxon(name, "flat", values[measure], measures["flat"][measure]).p_value
            for name, values in measures.items()
            if name != "flat"
        }
    report["latency_ms"] = {
        name: {"p50": percentile(values, 50), "p95": percentile(values, 95)}
        for name, values in latency.items()
        if values
    }
    report["tokens_top10"] = tokens
    if tokens["parent_windows"]:
        report["tokens_top10"]["fewer_than_parent_windows"] = 1 - (
            tokens["returned"] / tokens["parent_windows"]
        )
    return report


def print_report(report: Mapping[str, Any]) -> None:
    names = report["conditions"]
    print(
        f"{report['questions']} questions, k = {K}, document level; timed after "
        f"{report['warm_passes']} untimed pass(es) over them"
    )
    print(f"{'measure':<13}" + "".join(f"{name:>24}" for name in names))
    for measure, values in report["measures"].items():
        cells = [
            f"{values[n]['all']:.4f} ({values[n]['tune']:.3f}/{values[n]['held']:.3f})"
            for n in names
        ]
        print(f"{measure:<13}" + "".join(f"{cell:>24}" for cell in cells))
        p = report["p"][measure]
        print(f"{'  p vs flat':<13}{'':>24}" + "".join(f"{p[n]:>24.2g}" for n in names[1:]))
    print("(all queries, then tune / held-aside parts; p: Wilcoxon signed-rank, per question)")
    for name, values in report["latency_ms"].items():
        print(f"latency {name:<32} p50 {values['p50']:7.2f} ms  p95 {values['p95']:7.2f} ms")
    t = report["tokens_top10"]
    print(
        f"tokens, top 10 (+expand+bridge): {t['returned']} returned, {t['without_expansion']} "
        f"without expansion, {t['parent_windows']} with parent windows"
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
    parser.add_argument("--walk", action="store_true", help="Also the walk conditions.")
    parser.add_argument(
        "--neo4j-home", type=Path, default=None, help="The evaluation Neo4j's home, as eval's."
    )
    parser.add_argument(
        "--warm-passes",
        type=int,
        default=1,
        help="Untimed passes over every question and condition first: a server just started "
        "runs the expansion's statement about a third slower until its JIT has compiled it "
        "(0: time the first pass).",
    )
    args = parser.parse_args(argv)
    if args.warm_passes < 0:
        parser.error("--warm-passes must be 0 or more")
    report = run(
        args.dataset,
        args.split,
        walk=args.walk,
        neo4j_home=args.neo4j_home,
        warm_passes=args.warm_passes,
    )
    print_report(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
