"""What the fusion itself costs a document-level search: the engine's ``rank_candidates`` on
the candidates real searches found (a cache of ``python -m anchorgraph.evaluation.tune collect``,
every path cut to ``k_over``), timed per query for each setting (the weighted sum, the floor sum,
and the default: the floor sum with the lexical paths scaled by the dense path's confidence), in
rotating order.

    .venv/bin/python -m benchmarks.fusion_cost benchmarks/out/tune/scifact-train.json.gz

It prints the median and p95 per setting, the median of the per-query differences against the
weighted sum, and the candidates per search. No Neo4j is needed: this is the stage between the
paths' reads and the ranking stages, in Python.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from anchorgraph import SearchOptions
from anchorgraph.engine import Fusion, rank_candidates
from anchorgraph.evaluation.tune import Replay

SETTINGS: dict[str, dict[str, Any]] = {
    "weighted_sum": {"fusion": Fusion.WEIGHTED_SUM, "confidence_exponent": 0.0},
    "floor_sum": {"fusion": Fusion.FLOOR_SUM, "confidence_exponent": 0.0},
    "default": {},
}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.fusion_cost")
    parser.add_argument("cache", type=Path)
    parser.add_argument("--k-over", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5, help="passes over the queries")
    args = parser.parse_args(argv)
    replay = Replay.load(args.cache)
    options = {
        name: SearchOptions(query="x", level="document", k_over=args.k_over, **setting)
        for name, setting in SETTINGS.items()
    }
    found = [
        {path: rows[: args.k_over] for path, rows in cached.found.items()}
        for cached in replay.queries.values()
    ]
    names = list(SETTINGS)
    times: dict[str, list[float]] = {name: [] for name in names}
    candidates = []
    for round_number in range(args.rounds):
        for number, paths in enumerate(found):
            turn = (number + round_number) % len(names)
            for name in names[turn:] + names[:turn]:
                started = time.perf_counter()
                hits = rank_candidates(paths, options[name])
                times[name].append((time.perf_counter() - started) * 1000)
            candidates.append(len(hits))
    base = np.array(times["weighted_sum"])
    print(f"{replay.name}: {len(found)} queries x {args.rounds}, k_over {args.k_over}, "
          f"median {statistics.median(candidates):.0f} documents fused per search")  # fmt: skip
    for name in names:
        values = np.array(times[name])
        print(
            f"  {name:13s} p50 {np.percentile(values, 50):.3f} ms  p95 "
            f"{np.percentile(values, 95):.3f} ms  per-query Δ vs weighted_sum, median "
            f"{np.median(values - base):+.3f} ms"
        )


if __name__ == "__main__":
    main()
