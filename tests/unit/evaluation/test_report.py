"""Report formatting: the references, the paired tests, the Markdown table, the files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anchorgraph.evaluation.metrics import MRR10, NDCG10, RECALL100, TIERS5, held_aside, tier_share
from anchorgraph.evaluation.report import (
    ConditionResult,
    EvalReport,
    fd_comparisons,
    markdown,
    paired_tests,
    reference_names,
    write_all,
)


def result(name: str, ndcg: list[float], failures: int = 0) -> ConditionResult:
    per_query = {NDCG10: {f"q{i}": v for i, v in enumerate(ndcg)}}
    per_query[RECALL100] = dict(per_query[NDCG10])
    per_query[MRR10] = dict(per_query[NDCG10])
    mean = sum(ndcg) / len(ndcg)
    return ConditionResult(
        name=name,
        metrics={NDCG10: mean, RECALL100: mean, MRR10: mean},
        per_query=per_query,
        latency_ms={"p50": 12.4, "p95": 40.0, "mean": 15.0},
        tokens_top10=1234.4,
        failures=failures,
    )


def report() -> EvalReport:
    conditions = [
        result("hybrid", [0.9, 0.8, 0.7, 0.9, 1.0, 0.6]),
        result("plain-hybrid", [0.8, 0.7, 0.7, 0.8, 0.9, 0.5]),
        result("graphrag-vector", [0.5, 0.5, 0.5, 0.5, 0.5, 0.5]),
        result("graphrag-hybrid-naive", [0.6, 0.6, 0.6, 0.6, 0.6, 0.6], failures=1),
    ]
    references = reference_names(
        conditions, "plain-hybrid", ("graphrag-vector", "graphrag-hybrid-naive")
    )
    return EvalReport(
        dataset="scifact",
        split="train",
        queries=6,
        documents=100,
        setup={"model": "all-MiniLM-L6-v2", "ir_measures": "0.4.3"},
        conditions=conditions,
        references=references,
        significance=paired_tests(conditions, references),
    )


def test_the_best_peer_is_the_peer_with_the_highest_ndcg() -> None:
    assert report().references == {
        "plain_hybrid": "plain-hybrid",
        "best_peer": "graphrag-hybrid-naive",
    }


def test_every_condition_is_tested_against_each_reference() -> None:
    tests = {(p.a, p.b): p for p in report().significance}
    assert len(tests) == 6  # 3 others x 2 references
    assert tests[("hybrid", "plain-hybrid")].wins == 5
    assert tests[("hybrid", "plain-hybrid")].losses == 0


def test_the_markdown_table() -> None:
    text = markdown(report())
    lines = text.splitlines()
    assert lines[0] == "### scifact · train · 6 queries · 100 documents"
    assert lines[2].startswith(
        "| condition | NDCG@10 | Recall@5 | Recall@10 | Recall@100 | MRR@10 | AllGold@5 | "
        "AllGold@10 | NDCG tune | NDCG held | p50 ms |"
    )
    assert "Δ NDCG vs plain" in lines[2] and "p vs best peer" in lines[2]
    hybrid = next(line for line in lines if line.startswith("| `hybrid`"))
    cells = [cell.strip() for cell in hybrid.strip("|").split("|")]
    assert cells[1] == "0.817"
    assert cells[2:8] == ["–", "–", "0.817", "0.817", "–", "–"]  # measures this run lacks
    # The two parts' means, weighted by their sizes, are the mean over every query.
    held = sum(held_aside(f"q{i}") for i in range(6))
    tune_mean, held_mean = float(cells[8]), float(cells[9])
    assert (tune_mean * (6 - held) + held_mean * held) / 6 == pytest.approx(0.817, abs=2e-3)
    assert cells[10:13] == ["12", "40", "1234"]
    assert cells[13] == "+0.083"
    plain = next(line for line in lines if line.startswith("| `plain-hybrid`"))
    assert "(ref)" in plain
    assert "1 queries failed" in text


def test_the_files(tmp_path: Path) -> None:
    paths = write_all(report(), tmp_path / "out")
    data = json.loads(paths["json"].read_text())
    assert data["references"]["plain_hybrid"] == "plain-hybrid"
    assert data["conditions"][0]["per_query_ndcg@10"]["q0"] == 0.9
    assert {"a", "b", "p_value", "wins", "losses"} <= set(data["significance"][0])
    assert paths["markdown"].read_text().startswith("### scifact")
    assert paths["chart"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_held_aside_is_a_fixed_third_of_any_split() -> None:
    ids = [f"query-{i}" for i in range(2000)]
    share = sum(map(held_aside, ids)) / len(ids)
    assert 0.27 < share < 0.33
    assert [held_aside(q) for q in ids[:50]] == [held_aside(q) for q in ids[:50]]


def test_tier_share_counts_reviews_and_trials_in_the_top_five() -> None:
    types = {"r": "systematic_review", "r2": "systematic_review", "t": "rct", "o": "other"}
    rankings = {"a": ["r", "o", "t", "p", "r2", "t"], "b": [], "c": ["o"], "d": ["r", "r", "o"]}
    # a: the sixth document is beyond the top 5; p has no source type; d: a repeat counts once.
    assert tier_share(rankings, types) == {"a": 3 / 5, "b": 0.0, "c": 0.0, "d": 1 / 2}


def test_fd_conditions_are_compared_with_their_base() -> None:
    def with_tiers(name: str, ndcg: list[float], tiers: list[float]) -> ConditionResult:
        condition = result(name, ndcg)
        condition.per_query[TIERS5] = {f"q{i}": v for i, v in enumerate(tiers)}
        condition.metrics[TIERS5] = sum(tiers) / len(tiers)
        return condition

    base = with_tiers("cosine", [0.5] * 6, [0.2] * 6)
    fd = with_tiers("fd-rerank@fd_lambda=0.2", [0.5, 0.5, 0.4, 0.5, 0.5, 0.5], [0.4] * 6)
    report = EvalReport("d", "train", 6, 10, {}, [base, fd])
    (header, _, row, _) = fd_comparisons(report)
    assert "Δ Tiers@5" in header
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[0] == "`fd-rerank@fd_lambda=0.2` vs `cosine`"
    assert cells[1].startswith("-0.017")
    assert cells[5] == "+0.200 (+100%)"
