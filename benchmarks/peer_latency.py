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
both alike; ``--warmup`` queries of each run first, untimed. ``--ours`` names other conditions
of ours to time beside them (condition specs as ``anchorgraph eval`` takes them, e.g.
``hybrid@paths=dense+bm25``: our pipeline with the peer's own two signals), each with its ratio.

Prints p50 and p95 of each and the ratio of the p50s, with the CPU time each search took in this
process (the API's part: embedding, round trips, fusion) and in Neo4j (``/proc``, nanosecond
resolution; the evaluation server's, or ``--neo4j-pid``'s), means over the timed queries; then
one line of JSON. On two cores shared by both, the CPU a search takes bounds how fast it can be.
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
from anchorgraph.engine import LocalNeo4j, SchemaMode, startup_objects_frozen
from anchorgraph.evaluation import conditions as conds
from anchorgraph.evaluation.datasets import load_split
from anchorgraph.evaluation.run import EvalConfig, eval_server
from anchorgraph.settings import Settings
from benchmarks.processes import cpu_ms

OURS = conds.ConditionName.HYBRID
PEER = conds.ConditionName.GRAPHRAG_HYBRID_NAIVE


def _spec(text: str) -> str:
    """A condition spec, checked before the server starts (its overrides are checked when the
    condition is built)."""
    try:
        conds.Spec.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, required=True, help="A BEIR folder.")
    parser.add_argument("--split", required=True, help="Its qrels file stem (train, dev, ...).")
    parser.add_argument("--neo4j-home", type=Path, help="The evaluation Neo4j's home.")
    parser.add_argument("--queries", type=int, default=300, help="Timed queries of each.")
    parser.add_argument("--warmup", type=int, default=20, help="Untimed queries of each, first.")
    parser.add_argument("--k", type=int, default=10, help="Results of each search.")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--ours",
        action="append",
        default=[],
        metavar="SPEC",
        type=_spec,
        help="Another condition of ours to time beside the two (repeatable), e.g. "
        "'hybrid@paths=dense+bm25'.",
    )
    parser.add_argument(
        "--neo4j-pid", type=int, help="Neo4j's pid, for its CPU time; default: the eval server's."
    )
    return parser.parse_args(argv)


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def _local_pid(settings: Settings) -> int | None:
    """The pid of the evaluation's local Neo4j; None for a server given by URI."""
    return None if settings.neo4j_uri else LocalNeo4j(settings).status().pid


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
        names = list(dict.fromkeys([str(OURS), str(PEER), *args.ours]))
        built = {name: conds.build(conds.Spec.parse(name), resources) for name in names}
        pid = args.neo4j_pid or _local_pid(server)
        timings: dict[str, list[float]] = {name: [] for name in built}
        api_cpu: dict[str, list[float]] = {name: [] for name in built}
        neo4j_cpu: dict[str, list[float]] = {name: [] for name in built}
        with startup_objects_frozen():  # as the API: no full GC pass in a timed search
            for n, text in enumerate(queries):
                order = list(built)
                rng.shuffle(order)
                for name in order:
                    neo4j_before = cpu_ms(pid)  # read outside the timed window: ~100 threads
                    api_before = time.process_time()
                    started = time.perf_counter()
                    built[name].rank(str(n), text)
                    wall_ms = (time.perf_counter() - started) * 1000
                    api_ms = (time.process_time() - api_before) * 1000
                    neo4j_after = cpu_ms(pid)
                    if n >= args.warmup:
                        timings[name].append(wall_ms)
                        api_cpu[name].append(api_ms)
                        if neo4j_before is not None and neo4j_after is not None:
                            neo4j_cpu[name].append(neo4j_after - neo4j_before)
    summary: dict[str, Any] = {
        name: {
            "p50_ms": round(statistics.median(ms), 2),
            "p95_ms": round(_percentile(ms, 0.95), 2),
            "api_cpu_ms": round(statistics.mean(api_cpu[name]), 2),
            "neo4j_cpu_ms": round(statistics.mean(neo4j_cpu[name]), 2) if neo4j_cpu[name] else None,
        }
        for name, ms in timings.items()
    }
    for row in summary.values():
        row["ratio_p50"] = round(row["p50_ms"] / summary[PEER]["p50_ms"], 3)
    width = max(map(len, summary))
    for label, row in summary.items():
        neo4j = "?" if row["neo4j_cpu_ms"] is None else f"{row['neo4j_cpu_ms']:.2f}"
        print(
            f"{label:{width}}  p50 {row['p50_ms']:7.2f} ms   p95 {row['p95_ms']:7.2f} ms   "
            f"ratio {row['ratio_p50']:4.2f}   "
            f"CPU per search: API {row['api_cpu_ms']:.2f} ms, Neo4j {neo4j} ms"
        )
    ratio = summary[OURS]["ratio_p50"]
    print(f"ratio of the p50s ({OURS} / {PEER}): {ratio:.2f}  ({len(timings[OURS])} queries)")
    print(
        json.dumps(
            {
                "dataset": split.name,
                "split": args.split,
                "k": args.k,
                "queries": len(timings[OURS]),
                "conditions": summary,
                "ratio_p50": ratio,
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
