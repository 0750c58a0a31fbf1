"""Report formatting: the references, the paired tests, the Markdown table, the files."""

from __future__ import annotations

import json
from pathlib import Path

from evaluation.metrics import MRR10, NDCG10, RECALL100
from evaluation.report import (
    ConditionResult,
    EvalReport,
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
    assert lines[2].startswith("| condition | NDCG@10 | Recall@100 | MRR@10 | p50 ms |")
    assert "Δ NDCG vs plain" in lines[2] and "p vs best peer" in lines[2]
    hybrid = next(line for line in lines if line.startswith("| `hybrid`"))
    cells = [cell.strip() for cell in hybrid.strip("|").split("|")]
    assert cells[1] == "0.817"
    assert cells[4:7] == ["12", "40", "1234"]
    assert cells[7] == "+0.083"
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
