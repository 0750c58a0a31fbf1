"""What the graph costs the default search: its p50 against the flat default's, on the dev splits,
measured in one run.

Not a timed test: run it by hand after ``anchorgraph eval`` has ingested each split (it reuses
that evaluation Neo4j, started from its home, and ingests nothing; the schema is applied as the
API applies it when it starts, which brings a graph an earlier version wrote up to date, e.g.
marks its collections as holding links and entity mentions or not)::

    .venv/bin/python -m benchmarks.graph_latency --homes DIR \\
        ../shared/datasets/musique_dev:dev ../shared/datasets/healthver_dev:dev ...

``--homes DIR``: the evaluation Neo4j of dataset ``name`` is ``DIR/name`` (``anchorgraph eval
--neo4j-home``); without it, each dataset's default eval home.

Every question of a split is searched through ``anchorgraph.retrieval.pipeline.search`` as a user
asks without options (``SearchOptions(query=…)``: the default, default-v4, with the expansion
and bridges where the collection has links and entities) and as the flat default (the same with
``expand.links`` and ``expand.bridges`` off), after ``--warm-passes`` untimed passes over them all,
in ``--passes`` timed passes (each question's searches timed once per pass: on a machine running
other work, more passes give medians that move less between runs). The two alternate per
question, which goes first too, so that background load falls on both alike. The wall time of
each call (query embedding included) is recorded. Printed per split and
over every question of every split: the two medians, their difference and ratio, and whether the
difference is within the budget (``BUDGET_MS``); the last line is a JSON summary for machines.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from rich.console import Console

from anchorgraph.engine import SchemaMode
from anchorgraph.evaluation.datasets import load_split
from anchorgraph.evaluation.run import EvalConfig, eval_server
from anchorgraph.retrieval.options import SearchOptions
from anchorgraph.retrieval.pipeline import search
from anchorgraph.runtime import Runtime, open_runtime

BUDGET_MS = 3.0  # the default search's p50 may grow by this much over the flat default's
FLAT = {"expand": {"links": False, "bridges": False}}


@dataclass(frozen=True)
class Pair:
    """One split's (or all splits') search times, ms: the default's and the flat default's."""

    name: str
    default_ms: list[float]
    flat_ms: list[float]
    expanded: int  # searches of the default that ran the expansion stage

    @property
    def growth_ms(self) -> float:
        """``p50(default) − p50(flat)``."""
        return statistics.median(self.default_ms) - statistics.median(self.flat_ms)

    def line(self) -> str:
        default, flat = statistics.median(self.default_ms), statistics.median(self.flat_ms)
        verdict = "within" if self.growth_ms <= BUDGET_MS else "over"
        return (
            f"{self.name:<24} {len(self.default_ms):>5} searches, expanded {self.expanded:>5}  "
            f"default p50 {default:7.2f} ms  flat p50 {flat:7.2f} ms  "
            f"Δ {self.growth_ms:+6.2f} ms  ×{default / flat:.3f}  ({verdict} {BUDGET_MS:g} ms)"
        )


def measure(
    runtime: Runtime, name: str, queries: Sequence[str], warm_passes: int, passes: int = 1
) -> Pair:
    """Both searches of every query, alternating which goes first; times of the ``passes``
    after ``warm_passes``."""
    default_ms: list[float] = []
    flat_ms: list[float] = []
    expanded = 0
    for timed in [False] * warm_passes + [True] * passes:
        for i, text in enumerate(queries):
            default = SearchOptions(query=text)
            flat = SearchOptions.model_validate({"query": text, **FLAT})
            for options in (default, flat) if i % 2 == 0 else (flat, default):
                clock = time.perf_counter()
                result = search(runtime.search, options)
                ms = (time.perf_counter() - clock) * 1000
                if timed and options is default:
                    default_ms.append(ms)
                    expanded += any(t.stage == "expand" for t in result.timings)
                elif timed:
                    flat_ms.append(ms)
    return Pair(name, default_ms, flat_ms, expanded)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("splits", nargs="+", metavar="DATASET:SPLIT")
    parser.add_argument("--homes", type=Path, help="DIR/<dataset> is each split's eval Neo4j")
    parser.add_argument("--max-queries", type=int, help="a seeded sample of each split's queries")
    parser.add_argument("--warm-passes", type=int, default=1)
    parser.add_argument("--passes", type=int, default=1, help="timed passes over the questions")
    args = parser.parse_args(argv)
    console = Console(stderr=True)
    pairs: list[Pair] = []
    for spec in args.splits:
        dataset, _, split_name = spec.rpartition(":")
        split = load_split(Path(dataset), split_name, max_queries=args.max_queries)
        home = args.homes / split.name if args.homes else None
        config = EvalConfig(dataset=Path(dataset), split=split_name, neo4j_home=home)
        with (
            eval_server(config, split.name, console) as (settings, _ours),
            open_runtime(settings, schema=SchemaMode.APPLY) as runtime,
        ):
            queries = [query.text for query in split.queries]
            name = f"{split.name}-{split_name}"
            pairs.append(measure(runtime, name, queries, args.warm_passes, args.passes))
        print(pairs[-1].line(), flush=True)
    every = Pair(
        "all splits",
        [ms for pair in pairs for ms in pair.default_ms],
        [ms for pair in pairs for ms in pair.flat_ms],
        sum(pair.expanded for pair in pairs),
    )
    print(every.line())
    summary = {p.name: asdict(p) | {"growth_ms": p.growth_ms} for p in [*pairs, every]}
    for entry in summary.values():
        for key in ("default_ms", "flat_ms"):
            entry[key.replace("_ms", "_p50_ms")] = statistics.median(entry.pop(key))
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
