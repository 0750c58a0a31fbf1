"""``anchorgraph fd fit-authority``: a_source per source type, and λ, from relevance judgements.

FD* multiplies each source tier's z-scores by an authority (docs/design.md §3); instead of a
placeholder, it is derived here from a split's judgements:

1. ``collect``: for every query, the FD*-optimised condition's pre-filter, the cosine top 20 at
   document level (``search`` in mode ``dense``), with each hit's cosine and FD* inputs.
2. For each λ asked for and each a_source on a grid (per source type; ``other`` is the
   reference at 1.0, since only ratios between tiers and the spread of FD* matter), the pools are
   reranked exactly as the engine reranks (``fd_reranked``), and NDCG@10 is measured on the
   split's *tune* part only (``held_aside`` keeps ~30 % of the queries out of every choice).
   Per λ the a_source with the best tune NDCG@10 wins (ties: the one closest to all-1).
3. λ: the largest whose tune NDCG@10 stays within ``max_cost`` (0.01, the NDCG@10 an FD*
   rerank may cost: docs/benchmarks.md) of the cosine ranking's, since a larger λ gives FD*
   more say.

The report gives, for every λ, the fitted a_source and NDCG@10 and the evidence-tier share of
the top 5 on both parts, beside cosine's; and each source type's relevance rate in the pools
(how often a document of that type in the top 20 is relevant), which is what the fit exploits.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from rich.console import Console

from anchorgraph import SearchOptions, open_runtime
from anchorgraph.engine import (
    FdScore,
    Mode,
    Query,
    Ranked,
    SchemaMode,
    SearchContext,
    SourceAuthority,
    fd_reranked,
    rescale,
    search,
    set_authorities,
)
from anchorgraph.evaluation.datasets import BeirSplit, Qrels, load_split
from anchorgraph.evaluation.metrics import (
    NDCG10,
    TIERS5,
    held_aside,
    mean,
    part_mean,
    per_query,
    tier_share,
)
from anchorgraph.evaluation.run import EVAL_COLLECTION, EvalConfig, EvalError, eval_server

DEFAULT_GRID = (0.5, 0.75, 1.0, 1.5, 2.0, 3.0)
DEFAULT_LAMBDAS = (0.05, 0.1, 0.2, 0.3, 0.5)
REFERENCE_TYPE = "other"


@dataclass(frozen=True)
class PoolHit:
    document_id: str
    cosine: float
    z: float | None  # (FD_raw − μ_bin) / σ_bin, before authority; None: not binned
    fd: FdScore


Pools = dict[str, list[PoolHit]]  # query id → the cosine top ``pool``, best first


def collect(context: SearchContext, split: BeirSplit, pool: int = 20) -> Pools:
    """The cosine top ``pool`` documents of every query, with their FD* inputs."""
    pools: Pools = {}
    for query in split.queries:
        options = SearchOptions(
            query=query.text, mode=Mode.DENSE, level="document", k=pool, k_over=max(pool, 100)
        )
        pools[query.id] = [
            PoolHit(hit.document_id, hit.score, hit.fd.z, hit.fd)
            for hit in search(context, options).hits
            if hit.fd is not None
        ]
    return pools


def rerank(pools: Pools, weight: float, authority: Mapping[str, float]) -> dict[str, list[str]]:
    """Each pool reranked by the engine's ``fd_reranked``, FD*_rescaled computed as the engine
    computes it (``rescale``) with ``authority`` in place of the graph's."""
    top = max([1.0, *authority.values()])
    rankings: dict[str, list[str]] = {}
    for query_id, hits in pools.items():
        ranked = [Ranked(h.document_id, h.document_id, h.cosine, {}) for h in hits]
        scores = {
            h.document_id: h.fd.model_copy(
                update={"rescaled": rescale(h.z or 0.0, _a(authority, h), top)}
            )
            for h in hits
        }
        rankings[query_id] = [r.document_id for r in fd_reranked(ranked, [], scores, weight)]
    return rankings


def _a(authority: Mapping[str, float], hit: PoolHit) -> float:
    return authority.get(hit.fd.source_type, 1.0)


@dataclass(frozen=True)
class Measured:
    ndcg_tune: float
    ndcg_held: float
    tiers_tune: float
    tiers_held: float


def measure(
    rankings: Mapping[str, Sequence[str]], qrels: Qrels, source_types: Mapping[str, str]
) -> Measured:
    ndcg = per_query(qrels, rankings)[NDCG10]
    tiers = tier_share(rankings, source_types)
    return Measured(
        part_mean(ndcg, False), part_mean(ndcg, True), part_mean(tiers, False),
        part_mean(tiers, True),
    )  # fmt: skip


@dataclass(frozen=True)
class Fit:
    weight: float  # λ
    authority: dict[str, float]
    measured: Measured


@dataclass(frozen=True)
class FitReport:
    cosine: Measured
    fits: list[Fit]  # one per λ, in the order asked
    chosen: Fit
    relevance: dict[str, tuple[int, int]]  # source type → (in the pools, relevant)
    max_cost: float


def fit(
    pools: Pools,
    qrels: Qrels,
    *,
    weights: Sequence[float] = DEFAULT_LAMBDAS,
    grid: Sequence[float] = DEFAULT_GRID,
    max_cost: float = 0.01,
) -> FitReport:
    """The fit of the module docstring."""
    source_types = {h.document_id: h.fd.source_type for hits in pools.values() for h in hits}
    tune_qrels = {q: r for q, r in qrels.items() if not held_aside(q)}
    tune_pools = {q: hits for q, hits in pools.items() if not held_aside(q)}
    types = sorted({t for t in source_types.values() if t and t != REFERENCE_TYPE})
    cosine = measure(
        {q: [h.document_id for h in hs] for q, hs in pools.items()}, qrels, source_types
    )
    fits: list[Fit] = []
    for weight in weights:
        best: tuple[float, float, dict[str, float]] | None = None
        for values in itertools.product(grid, repeat=len(types)):
            authority = {REFERENCE_TYPE: 1.0, **dict(zip(types, values, strict=True))}
            ndcg = mean(per_query(tune_qrels, rerank(tune_pools, weight, authority))[NDCG10])
            distance = sum(abs(math.log(v)) for v in values)
            if best is None or (ndcg, -distance) > (best[0], -best[1]):
                best = (ndcg, distance, authority)
        assert best is not None
        measured = measure(rerank(pools, weight, best[2]), qrels, source_types)
        fits.append(Fit(weight, best[2], measured))
    within = [f for f in fits if cosine.ndcg_tune - f.measured.ndcg_tune <= max_cost]
    chosen = max(within, key=lambda f: f.weight) if within else min(fits, key=lambda f: f.weight)
    return FitReport(cosine, fits, chosen, relevance_rates(pools, qrels), max_cost)


def relevance_rates(pools: Pools, qrels: Qrels) -> dict[str, tuple[int, int]]:
    """Per source type: documents of that type in the tune part's pools, and how many of them
    are relevant to their query."""
    counts: dict[str, list[int]] = {}
    for query_id, hits in pools.items():
        if held_aside(query_id):
            continue
        for hit in hits:
            seen = counts.setdefault(hit.fd.source_type or "(none)", [0, 0])
            seen[0] += 1
            seen[1] += qrels.get(query_id, {}).get(hit.document_id, 0) > 0
    return {t: (n, relevant) for t, (n, relevant) in sorted(counts.items())}


def table(report: FitReport) -> str:
    """The report as Markdown: the relevance rates, then one row per λ."""
    total = sum(n for n, _ in report.relevance.values())
    relevant = sum(r for _, r in report.relevance.values())
    overall = relevant / total if total else 0.0
    lines = [
        "| source type | in the cosine top 20 | relevant | rate | vs all |",
        "|---|---:|---:|---:|---:|",
    ]
    for source_type, (n, r) in report.relevance.items():
        rate = r / n if n else 0.0
        ratio = f"{rate / overall:.2f}×" if overall else "–"
        lines.append(f"| {source_type} | {n} | {r} | {rate:.3f} | {ratio} |")
    cosine = report.cosine
    lines += [
        "",
        f"| λ | a_source | NDCG@10 tune | held | {TIERS5} tune | held |",
        "|---:|---|---:|---:|---:|---:|",
        f"| cosine | – | {cosine.ndcg_tune:.4f} | {cosine.ndcg_held:.4f} | "
        f"{cosine.tiers_tune:.3f} | {cosine.tiers_held:.3f} |",
    ]
    for f in report.fits:
        m = f.measured
        mark = " (chosen)" if f is report.chosen else ""
        authority = ", ".join(f"{t} {a:g}" for t, a in f.authority.items())
        lines.append(
            f"| {f.weight:g}{mark} | {authority} | {m.ndcg_tune:.4f} | {m.ndcg_held:.4f} | "
            f"{m.tiers_tune:.3f} | {m.tiers_held:.3f} |"
        )
    lines.append(
        f"\nChosen: the largest λ whose tune NDCG@10 is within {report.max_cost} of cosine's; "
        "per λ, the a_source with the best tune NDCG@10 (ties: closest to 1)."
    )
    return "\n".join(lines)


def run_fit(
    dataset: Path,
    split_name: str,
    console: Console,
    *,
    weights: Sequence[float] = DEFAULT_LAMBDAS,
    apply: bool = True,
    neo4j_uri: str | None = None,
    keep_server: bool = False,
) -> FitReport:
    """Fit on the dataset's evaluation graph (``anchorgraph eval`` ingests it) and, with
    ``apply``, store the chosen a_source there, so that its FD* conditions use it.

    Raises:
        EvalError: the graph does not hold the dataset's corpus.
    """
    split = load_split(dataset, split_name)
    config = EvalConfig(dataset=dataset, split=split_name, neo4j_uri=neo4j_uri)
    config = replace(config, keep_server=keep_server)
    with (
        eval_server(config, split.name, console) as (settings, _ours),
        open_runtime(settings, schema=SchemaMode.VERIFY) as runtime,
    ):
        present = {str(r["id"]) for r in runtime.graph.read(Query.DOCUMENT_IDS, EVAL_COLLECTION)}
        if present != set(split.corpus):
            raise EvalError(
                f"the evaluation graph holds {len(present)} documents, not the "
                f"{len(split.corpus)} of {split.name}: run `anchorgraph eval --dataset {dataset} "
                f"--split {split_name}` first"
            )
        with console.status(f"The cosine top 20 of {len(split.queries)} queries"):
            pools = collect(runtime.search, split)
        with console.status("Fitting a_source for each λ"):
            report = fit(pools, split.qrels, weights=weights)
        if apply:
            chosen = report.chosen
            reason = (
                f"fitted on {split.name} {split_name} (tune part) at λ={chosen.weight:g}: "
                f"NDCG@10 {chosen.measured.ndcg_tune:.4f} against cosine's "
                f"{report.cosine.ndcg_tune:.4f}"
            )
            set_authorities(
                runtime.graph,
                [
                    SourceAuthority(source_type=t, a_source=a, reason=reason)
                    for t, a in chosen.authority.items()
                ],
            )
    return report
