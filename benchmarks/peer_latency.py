"""The default document search against neo4j-graphrag's hybrid retriever, in one run: the
ratio of their latencies on the same graph, the same queries and the same model.

    .venv/bin/python -m benchmarks.peer_latency --dataset ../shared/datasets/scifact --split train

It uses the evaluation's graph of the dataset (``anchorgraph eval`` builds and keeps it; the
server is started from its home, ``--neo4j-home``, if it is not running) and the evaluation's
conditions: ``hybrid`` (``search()`` at document level with every default) and
``graphrag-hybrid-naive`` (``HybridRetriever``, its default ranker, which our evaluation found
its best). Both get ``--k`` results (10, what a person asks for; the evaluation's NDCG@10 and
recall use 100) and embed the query with the same loaded model. The two are timed turn about,
query by query, in an order shuffled with ``--seed``, so that the machine's other load falls on
both alike; ``--warmup`` queries of each run first, untimed.

Prints p50 and p95 of each and the ratio of the p50s, and last one line of JSON.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path
from typing import Any

from rich.console import Console

from anchorgraph import open_runtime
from anchorgraph.engine import SchemaMode, startup_objects_frozen
from anchorgraph.evaluation import conditions as conds
from anchorgraph.evaluation.datasets import load_split
from anchorgraph.evaluation.run import EvalConfig, eval_server

OURS = conds.ConditionName.HYBRID
PEER = conds.ConditionName.GRAPHRAG_HYBRID_NAIVE


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, required=True, help="A BEIR folder.")
    parser.add_argument("--split", required=True, help="Its qrels file stem (train, dev, ...).")
    parser.add_argument("--neo4j-home", type=Path, help="The evaluation Neo4j's home.")
    parser.add_argument("--queries", type=int, default=300, help="Timed queries of each.")
    parser.add_argument("--warmup", type=int, default=20, help="Untimed queries of each, first.")
    parser.add_argument("--k", type=int, default=10, help="Results of each search.")
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args(argv)


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    console = Console(stderr=True)
    split = load_split(args.dataset, args.split)
    config = EvalConfig(
        dataset=args.dataset, split=args.split, keep_server=True, neo4j_home=args.neo4j_home
    )
    texts = [query.text for query in split.queries]
    rng = random.Random(args.seed)
    wanted = args.warmup + args.queries
    queries = rng.sample(texts, wanted) if wanted <= len(texts) else rng.choices(texts, k=wanted)
    with (
        eval_server(config, split.name, console) as (server, _),
        open_runtime(config.runtime_settings(server), schema=SchemaMode.VERIFY) as runtime,
    ):
        resources = conds.Resources(split, runtime, depth=args.k)
        built = {name: conds.build(conds.Spec.parse(name), resources) for name in (OURS, PEER)}
        timings: dict[conds.ConditionName, list[float]] = {name: [] for name in built}
        with startup_objects_frozen():  # as the API: no full GC pass in a timed search
            for n, text in enumerate(queries):
                order = list(built)
                rng.shuffle(order)
                for name in order:
                    started = time.perf_counter()
                    built[name].rank(str(n), text)
                    if n >= args.warmup:
                        timings[name].append((time.perf_counter() - started) * 1000)
    summary: dict[conds.ConditionName, Any] = {
        name: {
            "p50_ms": round(statistics.median(ms), 2),
            "p95_ms": round(_percentile(ms, 0.95), 2),
        }
        for name, ms in timings.items()
    }
    ratio = summary[OURS]["p50_ms"] / summary[PEER]["p50_ms"]
    for label, row in summary.items():
        print(f"{label:24} p50 {row['p50_ms']:7.2f} ms   p95 {row['p95_ms']:7.2f} ms")
    print(f"ratio of the p50s ({OURS} / {PEER}): {ratio:.2f}  ({len(timings[OURS])} queries)")
    print(
        json.dumps(
            {
                "dataset": split.name,
                "split": args.split,
                "k": args.k,
                "queries": len(timings[OURS]),
                "conditions": {str(name): row for name, row in summary.items()},
                "ratio_p50": round(ratio, 3),
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
