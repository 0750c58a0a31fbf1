"""The metrics glue: rankings to TREC runs, ir-measures per query, means, Wilcoxon."""

from __future__ import annotations

import math

import pytest

from anchorgraph.evaluation.metrics import (
    ALL_GOLD5,
    ALL_GOLD10,
    MRR10,
    NDCG10,
    RECALL5,
    RECALL10,
    RECALL100,
    aggregate,
    latency_summary,
    per_query,
    run_from_rankings,
    wilcoxon,
)

QRELS = {"q1": {"a": 1, "b": 2}, "q2": {"c": 1}, "q3": {"z": 1}}


def test_a_run_scores_documents_by_rank_and_drops_duplicates() -> None:
    run = run_from_rankings({"q1": ["x", "a", "x", "b"]})
    assert run == {"q1": {"x": 3.0, "a": 2.0, "b": 1.0}}


def test_measures_follow_the_given_order_not_the_ids() -> None:
    # Equal scores would let trec_eval reorder by id; rank-derived scores keep our order.
    values = per_query(QRELS, {"q1": ["b", "a"], "q2": ["y", "c"], "q3": []})
    assert values[NDCG10]["q1"] == pytest.approx(1.0)
    assert values[MRR10] == {"q1": 1.0, "q2": 0.5, "q3": 0.0}
    assert values[RECALL100] == {"q1": 1.0, "q2": 1.0, "q3": 0.0}
    # Graded gains: the rel-2 document second costs NDCG.
    swapped = per_query(QRELS, {"q1": ["a", "b"]})[NDCG10]["q1"]
    assert swapped == pytest.approx((1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3)))


def test_recall_at_5_and_10_and_the_share_with_every_gold_document() -> None:
    # q1's two relevant documents at ranks 2 and 6; q2's one at rank 1; q3's never found.
    ranking = ["x", "a", "y", "z", "w", "b"]
    values = per_query(QRELS, {"q1": ranking, "q2": ["c"], "q3": ["a"]})
    assert values[RECALL5] == {"q1": 0.5, "q2": 1.0, "q3": 0.0}
    assert values[RECALL10] == {"q1": 1.0, "q2": 1.0, "q3": 0.0}
    assert values[ALL_GOLD5] == {"q1": 0.0, "q2": 1.0, "q3": 0.0}
    assert values[ALL_GOLD10] == {"q1": 1.0, "q2": 1.0, "q3": 0.0}
    # A document met twice counts once towards the depth: "a" again does not push "b" out.
    repeated = per_query(QRELS, {"q1": ["a", "a", "a", "a", "b"]})
    assert repeated[ALL_GOLD5]["q1"] == 1.0


def test_all_gold_ignores_documents_judged_not_relevant() -> None:
    qrels = {"q": {"a": 1, "n": 0}, "empty": {"n": 0}}
    values = per_query(qrels, {"q": ["a"], "empty": ["n"]})
    assert values[ALL_GOLD5] == {"q": 1.0, "empty": 0.0}


def test_a_query_without_results_counts_as_zero_in_the_mean() -> None:
    values = per_query(QRELS, {"q1": ["a", "b"]})
    assert set(values[NDCG10]) == {"q1", "q2", "q3"}
    means = aggregate(values)
    assert means[RECALL100] == pytest.approx(1 / 3)
    assert means[MRR10] == pytest.approx(1 / 3)


def test_recall_counts_only_the_first_hundred() -> None:
    ranking = [f"x{i}" for i in range(100)] + ["c"]
    assert per_query({"q2": {"c": 1}}, {"q2": ranking})[RECALL100]["q2"] == 0.0


def test_latency_percentiles() -> None:
    summary = latency_summary([float(i) for i in range(1, 101)])
    assert summary["p50"] == pytest.approx(50.5)
    assert summary["p95"] == pytest.approx(95.05)
    assert latency_summary([]) == {"p50": 0.0, "p95": 0.0, "mean": 0.0}


def test_wilcoxon_on_a_clear_difference_and_on_identical_runs() -> None:
    a = {f"q{i}": 0.8 for i in range(30)}
    b = {f"q{i}": 0.8 - 0.01 * (1 + i % 5) for i in range(30)}
    clear = wilcoxon("a", "b", a, b)
    assert clear.wins == 30 and clear.losses == 0
    assert clear.p_value < 0.001
    assert clear.mean_difference == pytest.approx(0.03)
    same = wilcoxon("a", "a", a, a)
    assert same.p_value == 1.0 and same.wins == same.losses == 0
