"""Leave one dataset out over whole searches: which graph settings (the expansion along links,
entity bridges, both, pseudo-relevance feedback) to make the default, from the conditions
``anchorgraph eval`` measured on each split.

The graph's hops cannot be replayed from cached candidates as the fusion's weights are
(``anchorgraph.evaluation.loo``): every setting is a real search, one ``anchorgraph eval``
condition, run over every split. Each split is left out in turn; the condition with the best mean
NDCG@10 over the *tune parts* of the others (each split alike; ``loo.choose``) is chosen, and
scored on the whole split left out, its tune and held parts beside the flat search's (the
default without the graph). The setting to ship is the one most folds chose
(``most_chosen``); the report says whether it is at or above flat on every split.

A setting is a ``Rule``: one condition where the collection is linked (its run made title
links, ``--link-titles``) and one where it is not, so that a choice made per collection from what
it holds is chosen the same way as one setting for all (a rule of two equal conditions).

    python -m anchorgraph.evaluation.graph_loo --flat 'hybrid@expand=0;bridge=0;feedback=0' \\
        eval/study-*/results.json

Every path is an argument, relative to the current folder. Runs of one split (settings measured
apart, on the same graph) are joined into one split.
"""

from __future__ import annotations

import argparse
import json
import math
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from anchorgraph.evaluation.loo import PerQuery, choose
from anchorgraph.evaluation.metrics import ALL_GOLD10, RECALL5, part_mean

# What the report shows beside NDCG@10 for every split: the multi-hop measures.
ALSO = (RECALL5, ALL_GOLD10)
T = TypeVar("T")


@dataclass(frozen=True)
class Measured:
    """One split's conditions: per-query NDCG@10, and every measure over the whole split; and
    whether its collection is linked."""

    split: str
    linked: bool
    ndcg: dict[str, PerQuery]  # condition → query id → NDCG@10
    metrics: dict[str, dict[str, float]]  # condition → measure → mean
    p50_ms: dict[str, float]

    @classmethod
    def load(cls, path: Path) -> Measured:
        results = json.loads(path.read_text())
        conditions = results["conditions"]
        return cls(
            split=f"{results['dataset']}-{results['split']}",
            linked="title_links" in results["setup"],
            ndcg={c["name"]: c["per_query_ndcg@10"] for c in conditions},
            metrics={c["name"]: c["metrics"] for c in conditions},
            p50_ms={c["name"]: c["latency_ms"].get("p50", math.nan) for c in conditions},
        )

    def without(self, names: Collection[str]) -> Measured:
        """The same split without these conditions."""
        return Measured(
            split=self.split,
            linked=self.linked,
            ndcg={n: v for n, v in self.ndcg.items() if n not in names},
            metrics={n: v for n, v in self.metrics.items() if n not in names},
            p50_ms={n: v for n, v in self.p50_ms.items() if n not in names},
        )


def joined(runs: Sequence[Measured]) -> list[Measured]:
    """One ``Measured`` per split, in first-seen order: the conditions of every run of a split
    together (settings run apart on the same graph); a condition run twice keeps its first run.

    Raises:
        ValueError: Runs of one split with and without title links (not the same graph).
    """
    splits: dict[str, Measured] = {}
    for run in runs:
        first = splits.setdefault(run.split, run)
        if first is run:
            continue
        if first.linked != run.linked:
            raise ValueError(f"{run.split}: runs with and without title links")
        splits[run.split] = Measured(
            split=first.split,
            linked=first.linked,
            ndcg=_added(first.ndcg, run.ndcg),
            metrics=_added(first.metrics, run.metrics),
            p50_ms=_added(first.p50_ms, run.p50_ms),
        )
    return list(splits.values())


def _added(first: dict[str, T], more: Mapping[str, T]) -> dict[str, T]:
    return first | {name: value for name, value in more.items() if name not in first}


@dataclass(frozen=True)
class Rule:
    """The condition a search runs: ``linked`` in a linked collection, else ``unlinked``."""

    linked: str
    unlinked: str

    def condition(self, split: Measured) -> str:
        return self.linked if split.linked else self.unlinked

    def __str__(self) -> str:
        if self.linked == self.unlinked:
            return f"`{self.linked}`"
        return f"`{self.linked}` where linked, `{self.unlinked}` elsewhere"


@dataclass(frozen=True)
class Fold:
    split: str
    chosen: Rule  # on the tune parts of the other splits
    chosen_scores: PerQuery
    flat: PerQuery

    def at_or_above_flat(self) -> bool:
        """On the whole split left out, and on its held part."""
        return all(part_mean(self.chosen_scores, held) >= part_mean(self.flat, held) - 1e-12
                   for held in (None, True))  # fmt: skip


def rules(splits: Sequence[Measured]) -> list[Rule]:
    """Every pair of the conditions all splits measured, the single settings first (so that a
    tie keeps one setting for all)."""
    names = [name for name in splits[0].ndcg if all(name in s.ndcg for s in splits)]
    pairs = [Rule(a, b) for a in names for b in names if a != b]
    return [Rule(name, name) for name in names] + pairs


def folds(splits: Sequence[Measured], flat: str) -> list[Fold]:
    """Each split left out, the rule chosen on the others' tune parts."""
    scores = {rule: {s.split: s.ndcg[rule.condition(s)] for s in splits} for rule in rules(splits)}
    found = []
    for left in splits:
        chosen = choose(scores, (s.split for s in splits if s is not left))
        found.append(Fold(left.split, chosen, left.ndcg[chosen.condition(left)], left.ndcg[flat]))
    return found


def most_chosen(found: Sequence[Fold]) -> Rule | None:
    """The condition most folds chose, when one leads; else None."""
    counts = Counter(fold.chosen for fold in found).most_common()
    if len(counts) > 1 and counts[0][1] == counts[1][1]:
        return None
    return counts[0][0]


def report(splits: Sequence[Measured], flat: str) -> str:
    found = folds(splits, flat)
    by_split = {s.split: s for s in splits}
    lines = [
        "| left out | chosen on the others' tune parts | NDCG@10 all (tune / held) "
        "| flat all (tune / held) | Δ all | at or above flat |",
        "|---|---|---:|---:|---:|---|",
    ]
    for fold in found:
        cells = [
            _parts(fold.chosen_scores),
            _parts(fold.flat),
            f"{part_mean(fold.chosen_scores) - part_mean(fold.flat):+.4f}",
            "yes" if fold.at_or_above_flat() else "**no**",
        ]
        lines.append(f"| {fold.split} | {fold.chosen} | " + " | ".join(cells) + " |")
    shipped = most_chosen(found)
    if shipped is None:
        lines += ["", "No condition leads the folds."]
    else:
        below = [s.split for s in splits if any(
                     part_mean(s.ndcg[shipped.condition(s)], held) < part_mean(s.ndcg[flat], held)
                     for held in (None, True))]  # fmt: skip
        verdict = f"below flat on {', '.join(below)}" if below else "at or above flat everywhere"
        lines += ["", f"Most chosen: {shipped}, {verdict} (whole split and held part)."]
    lines += ["", "Every condition on every split (NDCG@10 all (tune / held), "
              + ", ".join(ALSO) + ", p50 ms):", ""]  # fmt: skip
    lines += ["| condition | " + " | ".join(
                  f"{s.split} ({'linked' if s.linked else 'no links'})" for s in splits) + " |",
              "|---|" + "---|" * len(splits)]  # fmt: skip
    for name in splits[0].ndcg:
        cells = []
        for split in splits:
            if name not in split.ndcg:
                cells.append("–")
                continue
            also = " / ".join(f"{by_split[split.split].metrics[name][m]:.3f}" for m in ALSO)
            cells.append(f"{_parts(split.ndcg[name])}; {also}; {split.p50_ms[name]:.0f}")
        lines.append(f"| `{name}` | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _parts(values: Mapping[str, float]) -> str:
    parts = (part_mean(values, held) for held in (None, False, True))
    return "{:.4f} ({:.4f} / {:.4f})".format(*parts)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m anchorgraph.evaluation.graph_loo")
    parser.add_argument(
        "results", type=Path, nargs="+",
        help="results.json of anchorgraph eval (several of one split are joined)",
    )  # fmt: skip
    parser.add_argument("--flat", required=True, help="the condition without the graph")
    parser.add_argument(
        "--without", action="append", default=[], metavar="CONDITION",
        help="not a candidate (repeatable): e.g. a setting over the latency budget",
    )  # fmt: skip
    parser.add_argument("--out", type=Path, default=None, help="also write the report here")
    args = parser.parse_args(argv)
    splits = [s.without(args.without) for s in joined([Measured.load(p) for p in args.results])]
    markdown = report(splits, args.flat)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(markdown)
    print(markdown)  # the report is the output; a rich console would wrap its tables


if __name__ == "__main__":
    main()
