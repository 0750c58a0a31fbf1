"""Metrics: ir-measures (pytrec_eval, trec_eval's own code) for the ranking measures, numpy for
latency percentiles, scipy for the paired Wilcoxon signed-rank test.

A condition's ranking is handed to pytrec_eval as scores ``n, n-1, ..., 1`` in the order the
condition ranked the documents, so ties in the condition's own scores cannot be re-ordered by
trec_eval's tie-breaking. A query the condition returned nothing for scores 0 on every measure
and stays in every mean.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import ir_measures
import numpy as np
from ir_measures import RR, R, nDCG

from anchorgraph.evaluation.datasets import Qrels

NDCG10 = "NDCG@10"
RECALL5 = "Recall@5"
RECALL10 = "Recall@10"
RECALL100 = "Recall@100"
MRR10 = "MRR@10"
# The share of questions with every relevant document in the top 5 / 10: what multi-hop papers
# report beside passage recall (a question needs all its supporting passages).
ALL_GOLD5 = "AllGold@5"
ALL_GOLD10 = "AllGold@10"
# The share of the top 5 that are systematic reviews / meta-analyses or randomised trials (the
# source tiers of the expert-blindness audit, docs/audits.md), by the documents' source types.
TIERS5 = "Tiers@5"
EVIDENCE_TIERS = frozenset({"systematic_review", "rct"})
TIER_DEPTH = 5
# The share of a split's queries held aside: choices (weights, λ, a_source) are made on the
# other part, the "tune" half, and the report gives every measure on both.
HELD_ASIDE_SHARE = 0.3
# Our display name → the ir-measures measure (RR@10 is MRR@10 once averaged).
IR_MEASURES = {
    NDCG10: nDCG @ 10, RECALL5: R @ 5, RECALL10: R @ 10, RECALL100: R @ 100, MRR10: RR @ 10
}  # fmt: skip
ALL_GOLD_DEPTHS = {ALL_GOLD5: 5, ALL_GOLD10: 10}
MEASURES = (*IR_MEASURES, *ALL_GOLD_DEPTHS)  # every measure a run reports, in table order

PerQuery = dict[str, dict[str, float]]  # measure → query id → value


def run_from_rankings(rankings: Mapping[str, Sequence[str]]) -> dict[str, dict[str, float]]:
    """A TREC run from ranked document ids: rank-derived scores, duplicates dropped."""
    run: dict[str, dict[str, float]] = {}
    for query_id, ranking in rankings.items():
        unique = list(dict.fromkeys(ranking))
        run[query_id] = {doc: float(len(unique) - i) for i, doc in enumerate(unique)}
    return run


def per_query(qrels: Qrels, rankings: Mapping[str, Sequence[str]]) -> PerQuery:
    """Every measure for every query of ``qrels``; 0.0 where the condition found nothing."""
    run = run_from_rankings(rankings)
    values: PerQuery = {name: dict.fromkeys(qrels, 0.0) for name in MEASURES}
    by_measure = {measure: name for name, measure in IR_MEASURES.items()}
    for metric in ir_measures.iter_calc(list(IR_MEASURES.values()), qrels, run):
        name = by_measure[metric.measure]
        if metric.query_id in values[name]:
            values[name][metric.query_id] = float(metric.value)
    for name, depth in ALL_GOLD_DEPTHS.items():
        values[name] |= all_gold(qrels, rankings, depth)
    return values


def all_gold(qrels: Qrels, rankings: Mapping[str, Sequence[str]], depth: int) -> dict[str, float]:
    """Per query, 1.0 when every document judged relevant (relevance > 0) is among the first
    ``depth`` of its ranking (duplicates counted once), else 0.0; 0.0 for a query without a
    relevant document, which stays in every mean as elsewhere."""
    values = {}
    for query_id, judged in qrels.items():
        gold = {doc for doc, relevance in judged.items() if relevance > 0}
        top = set(list(dict.fromkeys(rankings.get(query_id, [])))[:depth])
        values[query_id] = 1.0 if gold and gold <= top else 0.0
    return values


def held_aside(query_id: str) -> bool:
    """Whether a query is in the held-aside part: a fixed ~30 % of any split, by a hash of its
    id (so the same queries whatever the run, sample or order)."""
    digest = hashlib.sha256(query_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "big") / 2**32 < HELD_ASIDE_SHARE


def tier_share(
    rankings: Mapping[str, Sequence[str]], source_types: Mapping[str, str]
) -> dict[str, float]:
    """Per query, the share of its top ``TIER_DEPTH`` documents whose source type is an evidence
    tier (``EVIDENCE_TIERS``); 0.0 for a query with no results."""
    shares: dict[str, float] = {}
    for query_id, ranking in rankings.items():
        top = list(dict.fromkeys(ranking))[:TIER_DEPTH]
        tiers = sum(source_types.get(doc, "") in EVIDENCE_TIERS for doc in top)
        shares[query_id] = tiers / len(top) if top else 0.0
    return shares


def mean(values: Mapping[str, float]) -> float:
    return math.fsum(values.values()) / len(values) if values else 0.0


def part_mean(values: Mapping[str, float], held: bool | None = None) -> float:
    """The mean over every query (``held`` None), over the tune part (False) or over the
    held-aside part (True, ``held_aside``)."""
    return mean({q: v for q, v in values.items() if held is None or held_aside(q) == held})


def aggregate(values: PerQuery) -> dict[str, float]:
    """The mean of each measure over the queries."""
    return {name: mean(by_query) for name, by_query in values.items()}


def latency_summary(milliseconds: Sequence[float]) -> dict[str, float]:
    """p50, p95 and mean, in milliseconds (linear interpolation between samples)."""
    if not milliseconds:
        return {"p50": 0.0, "p95": 0.0, "mean": 0.0}
    array = np.asarray(milliseconds, dtype=np.float64)
    return {
        "p50": float(np.percentile(array, 50)),
        "p95": float(np.percentile(array, 95)),
        "mean": float(array.mean()),
    }


@dataclass(frozen=True)
class Paired:
    """A paired comparison of two conditions on one measure, query by query."""

    a: str
    b: str
    mean_difference: float  # mean of a - b
    wins: int  # queries where a > b
    losses: int  # queries where a < b
    p_value: float  # two-sided Wilcoxon signed-rank; 1.0 when every difference is 0


def wilcoxon(
    a: str, b: str, values_a: Mapping[str, float], values_b: Mapping[str, float]
) -> Paired:
    """Two-sided Wilcoxon signed-rank test over the queries both have (zero differences are
    dropped, as in Wilcoxon's original test; scipy picks the exact or normal distribution)."""
    from scipy.stats import wilcoxon as scipy_wilcoxon  # type: ignore[import-untyped]

    shared = [q for q in values_a if q in values_b]
    differences = np.asarray([values_a[q] - values_b[q] for q in shared], dtype=np.float64)
    wins, losses = int((differences > 0).sum()), int((differences < 0).sum())
    mean_difference = float(differences.mean()) if len(shared) else 0.0
    if wins + losses == 0:
        return Paired(a, b, mean_difference, wins, losses, 1.0)
    p_value = float(scipy_wilcoxon(differences, zero_method="wilcox").pvalue)
    return Paired(a, b, mean_difference, wins, losses, p_value)
