"""Leave one dataset out: is a default chosen on some corpora good on a corpus it never saw?

Each split cached by ``python -m anchorgraph.evaluation.tune collect`` is left out in turn.
The settings of ``candidates()`` are replayed on the tune parts of the others (``Replay``: document
level, no pseudo-relevance feedback), the one with the best mean NDCG@10 over those splits (each
split counting alike, not each query) is chosen, and it is scored on the whole left-out split and on
its held part, beside what a user of that split could have had instead: the engine's previous
default, the plain hybrid (in memory), the best single path and neo4j-graphrag's best retriever
(both from the split's ``anchorgraph eval`` results, when there are any). Last come two
candidates for the default, each on every split's tune and held parts: the setting chosen on
the tune parts of all the splits, and the one most folds chose (``most_chosen``: the engine
ships it, being the least moved by leaving any one corpus out).

    python -m anchorgraph.evaluation.loo benchmarks/out/tune/*.json.gz

Every path is an argument, relative to the current folder.
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import math
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from rich.console import Console

from anchorgraph import Settings
from anchorgraph.engine import Fusion, Normalisation, PathName
from anchorgraph.evaluation import conditions as conds
from anchorgraph.evaluation.metrics import NDCG10, part_mean
from anchorgraph.evaluation.run import Heartbeat
from anchorgraph.evaluation.tune import ALL_PATHS, Config, Replay

# The previous default (default-v1): weighted sum, L2, the weights chosen on two corpora.
_PREVIOUS_WEIGHTS = {
    PathName.DENSE: 0.7, PathName.DOC_BM25: 0.3, PathName.DOC_DENSE: 0.2, PathName.BM25: 0.1,
    PathName.TFIDF: 0.05, PathName.METADATA: 0.05, PathName.ENTITY: 0.05,
}  # fmt: skip
PREVIOUS_DEFAULT = Config(
    ALL_PATHS, Normalisation.L2, Fusion.WEIGHTED_SUM, tuple(_PREVIOUS_WEIGHTS.items())
)
# The exponents of the lexical paths' scaling by the dense path's confidence a fold may choose
# (anchorgraph.retrieval.query_weights).
CONFIDENCE_EXPONENTS = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0)
SINGLE_PATHS = (conds.ConditionName.COSINE, conds.ConditionName.BM25, conds.ConditionName.TFIDF)
GRAPHRAG_PREFIX = "graphrag-"

PerQuery = Mapping[str, float]  # query id → NDCG@10
S = TypeVar("S", bound=Hashable)  # a setting


def candidates() -> list[Config]:
    """The settings a fold chooses among: the weighted sum or the floor sum of L2-normalised
    paths (``anchorgraph.retrieval.fusion``), dense chunks at 0.7 against a lexical share on whole
    documents (chunk BM25 at a third of it), the document embedding, and the small paths
    (TF-IDF, metadata, entities) alike; the floor sum also with the lexical paths' weights
    scaled by the dense path's confidence (``confidence_exponent``, 0 first: on a tie a fold
    keeps the weights as they are)."""
    settings = []
    for fusion, exponent, lexical, document, small in itertools.product(
        (Fusion.WEIGHTED_SUM, Fusion.FLOOR_SUM),
        CONFIDENCE_EXPONENTS,
        (0.1, 0.15, 0.2, 0.3, 0.4, 0.5),
        (0.1, 0.2, 0.4),
        (0.0, 0.05, 0.1),
    ):
        if exponent and fusion is not Fusion.FLOOR_SUM:
            continue
        weights = (
            (PathName.DENSE, 0.7), (PathName.DOC_BM25, lexical),
            (PathName.DOC_DENSE, document), (PathName.BM25, round(lexical / 3, 2)),
            (PathName.TFIDF, small), (PathName.METADATA, small), (PathName.ENTITY, small),
        )  # fmt: skip
        settings.append(
            Config(ALL_PATHS, Normalisation.L2, fusion, weights, confidence_exponent=exponent)
        )
    return settings


def choose(scores: Mapping[S, Mapping[str, PerQuery]], splits: Iterable[str]) -> S:
    """The setting with the best mean, over ``splits``, of its tune-part NDCG@10; the first in
    ``scores``' order on a tie (rounded to 1e-9, so float noise cannot decide). A setting is a
    ``Config`` replayed here, or a condition ``anchorgraph eval`` measured
    (``anchorgraph.evaluation.graph_loo``)."""
    names = list(splits)

    def objective(config: S) -> float:
        return round(math.fsum(part_mean(scores[config][n], held=False) for n in names), 9)

    return max(scores, key=objective)  # max keeps the first of equals


@dataclass(frozen=True)
class Peers:
    """What ``anchorgraph eval`` measured on a split: the best single path and the best
    neo4j-graphrag retriever, by name and per query."""

    single: tuple[str, PerQuery] | None
    graphrag: tuple[str, PerQuery] | None

    @classmethod
    def load(cls, path: Path) -> Peers:
        if not path.exists():
            return cls(None, None)
        results = json.loads(path.read_text())
        measured = {c["name"]: c["per_query_ndcg@10"] for c in results["conditions"]}

        def best(names: Iterable[str]) -> tuple[str, PerQuery] | None:
            present = [n for n in names if n in measured]
            if not present:
                return None
            name = max(present, key=lambda n: part_mean(measured[n]))
            return name, measured[name]

        graphrag = [n for n in measured if n.startswith(GRAPHRAG_PREFIX)]
        return cls(best(SINGLE_PATHS), best(graphrag))


# What a user of a split could have had instead of the chosen setting (``Fold.rows`` labels).
ALTERNATIVES = ("plain hybrid", "single", "graphrag")


@dataclass(frozen=True)
class Fold:
    """One left-out split: the setting chosen without it and what each ranking scores on it."""

    split: str
    chosen: Config
    # "chosen", "previous default" or one of ALTERNATIVES → per-query NDCG@10 on the split
    rows: dict[str, PerQuery]
    names: dict[str, str]  # "single" / "graphrag" → the condition that was best

    def mean(self, label: str, held: bool | None = None) -> float:
        return part_mean(self.rows[label], held)

    def bar(self) -> float:
        """The best of what a user could have had instead: plain hybrid, best single path,
        best neo4j-graphrag retriever (over the whole split)."""
        return max(self.mean(label) for label in ALTERNATIVES if label in self.rows)


@dataclass(frozen=True)
class Study:
    """Every fold, the setting chosen on the tune parts of all the splits, and what each setting
    (and the previous default) scored per split, for the report."""

    folds: list[Fold]
    on_all: Config
    scores: dict[Config, dict[str, PerQuery]]  # setting → split → per-query NDCG@10
    previous: dict[str, PerQuery]  # split → the previous default's per-query NDCG@10


def leave_one_out(
    replays: Sequence[Replay],
    peers: Mapping[str, Peers],
    settings: Sequence[Config],
    console: Console,
) -> Study:
    """Every setting replayed once on every split, then every fold chosen from those scores."""
    heartbeat = Heartbeat(console)
    scores: dict[Config, dict[str, PerQuery]] = {}
    for number, config in enumerate(settings, start=1):
        scores[config] = {r.name: r.evaluate(config)[NDCG10] for r in replays}
        heartbeat(f"loo: setting {number}/{len(settings)}")
    previous: dict[str, PerQuery] = {r.name: r.evaluate(PREVIOUS_DEFAULT)[NDCG10] for r in replays}
    folds = []
    for replay in replays:
        chosen = choose(scores, (r.name for r in replays if r is not replay))
        rows: dict[str, PerQuery] = {
            "chosen": scores[chosen][replay.name],
            "previous default": previous[replay.name],
            "plain hybrid": replay.references[conds.PLAIN_HYBRID],
        }
        names = {}
        found = peers.get(replay.name, Peers(None, None))
        for label, peer in (("single", found.single), ("graphrag", found.graphrag)):
            if peer is not None:
                names[label], rows[label] = peer
        folds.append(Fold(replay.name, chosen, rows, names))
    return Study(folds, choose(scores, (r.name for r in replays)), scores, previous)


def most_chosen(folds: Sequence[Fold], on_all: Config) -> Config:
    """The default to ship: the setting most folds chose, i.e. the one least moved by leaving
    any one corpus out; ``on_all`` (chosen on every tune part) when no setting leads."""
    counts = Counter(fold.chosen for fold in folds).most_common()
    leads = len(counts) == 1 or counts[0][1] > counts[1][1]
    return counts[0][0] if leads else on_all


def setting_text(config: Config) -> str:
    """A setting in a few words: its fusion and the weights that differ between candidates."""
    weights = dict(config.weights)
    return (
        f"{config.fusion}, doc_bm25 {weights[PathName.DOC_BM25]:g}, doc_dense "
        f"{weights[PathName.DOC_DENSE]:g}, small {weights[PathName.TFIDF]:g}, confidence "
        f"{config.confidence_exponent:g}"
    )


def report(study: Study) -> str:
    folds = study.folds
    lines = [
        "| left out | chosen on the others | NDCG@10 (held) | previous default | plain hybrid "
        "| best single path | best neo4j-graphrag | Δ best other |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for fold in folds:
        cells = [
            f"{fold.mean('chosen'):.4f} ({fold.mean('chosen', held=True):.4f})",
            f"{fold.mean('previous default'):.4f}",
            f"{fold.mean('plain hybrid'):.4f}",
            *(
                f"{fold.mean(label):.4f} {fold.names[label]}" if label in fold.rows else "–"
                for label in ("single", "graphrag")
            ),
            f"{fold.mean('chosen') - fold.bar():+.4f}",
        ]
        lines.append(f"| {fold.split} | {setting_text(fold.chosen)} | " + " | ".join(cells) + " |")
    gains = [fold.mean("chosen") - fold.mean("plain hybrid") for fold in folds]
    lines.append("")
    lines.append(
        f"Mean Δ over the plain hybrid: {math.fsum(gains) / len(gains):+.4f}; folds at or "
        f"above the best other: {sum(f.mean('chosen') >= f.bar() for f in folds)}/{len(folds)}."
    )
    lines.append("")
    chosen = {
        "on all tune parts": study.on_all,
        "most folds": most_chosen(folds, study.on_all),
    }
    for label, config in chosen.items():
        lines.append(f"Chosen {label}: {setting_text(config)}.")
    lines.append("")
    lines.append("| split | " + " | ".join(f"{label}: tune / held" for label in chosen)
                 + " | previous default: tune / held |")  # fmt: skip
    lines.append("|---|" + "---:|" * (len(chosen) + 1))
    for split in study.previous:
        scored = [*(study.scores[config][split] for config in chosen.values())]
        cells = [
            f"{part_mean(values, False):.4f} / {part_mean(values, True):.4f}"
            for values in [*scored, study.previous[split]]
        ]
        lines.append(f"| {split} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def slice_cache(path: Path, out: Path, queries: int, depth: int) -> None:
    """A small copy of a cache for tests: its first ``queries`` queries by id (from both parts),
    each path's first ``depth`` candidates; no query text (only as many words), vector or
    document signals (a hybrid replay reads none of them, and the datasets' texts stay in the
    datasets)."""
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        data = json.load(handle)
    # By id, not by its hash: the held-aside part is the hashes that sort first.
    kept = sorted(data["queries"])[:queries]
    sliced = {}
    for query_id in kept:
        cached = data["queries"][query_id]
        words = len(cached["query"]["text"].split())
        sliced[query_id] = {
            "query": {
                **cached["query"],
                "text": " ".join(["w"] * words),  # as many words (the code share counts them)
                "fulltext": "",
                "terms": [],
                "vector": [],
            },
            "found": {path: rows[:depth] for path, rows in cached["found"].items()},
            "signals": [],
        }
    data |= {
        "queries": sliced,
        "qrels": {q: data["qrels"][q] for q in kept if q in data["qrels"]},
        "references": {
            name: {q: values[q] for q in kept if q in values}
            for name, values in data["references"].items()
        },
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(out, "wt", encoding="utf-8") as handle:
        json.dump(data, handle)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m anchorgraph.evaluation.loo")
    parser.add_argument("caches", type=Path, nargs="+", help="caches written by tune collect")
    parser.add_argument(
        "--results",
        type=Path,
        default=None,
        help="where `anchorgraph eval` wrote <dataset>-<split>/results.json "
        "(default: eval in the data folder)",
    )
    parser.add_argument("--out", type=Path, default=None, help="also write the report here")
    args = parser.parse_args(argv)
    console = Console()
    replays = [Replay.load(path) for path in args.caches]
    results = args.results or Settings().data_dir / "eval"
    peers = {r.name: Peers.load(results / r.name / "results.json") for r in replays}
    markdown = report(leave_one_out(replays, peers, candidates(), console))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(markdown)
    console.print(markdown)


if __name__ == "__main__":
    main()
