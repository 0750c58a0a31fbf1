"""Leave one dataset out on a small fixed slice of the five dev caches (tests/fixtures/loo, made
with ``anchorgraph.evaluation.loo.slice_cache``: the first 16 queries by id per split, 30 candidates
per path): the folds choose without the split they are scored on, and the figures are pinned."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from rich.console import Console

from anchorgraph.evaluation.loo import (
    Peers,
    Study,
    candidates,
    choose,
    leave_one_out,
    most_chosen,
    report,
    setting_text,
)
from anchorgraph.evaluation.metrics import held_aside, part_mean
from anchorgraph.evaluation.tune import Replay

SLICE = Path(__file__).parents[2] / "fixtures" / "loo"
# Twelve of the grid as the weights name them, both fusions among them, and six of the floor sum
# with the lexical paths scaled by the dense path's confidence.
SETTINGS = [c for c in candidates() if c.confidence_exponent == 0][::9] + [
    c for c in candidates() if c.confidence_exponent == 1.5
][::9]


@pytest.fixture(scope="module")
def replays() -> list[Replay]:
    return [Replay.load(path) for path in sorted(SLICE.glob("*.json.gz"))]


@pytest.fixture(scope="module")
def study(replays: list[Replay]) -> Study:
    return leave_one_out(replays, {}, SETTINGS, Console(quiet=True))


def test_the_slice_holds_five_splits_of_sixteen_queries(replays: list[Replay]) -> None:
    assert [r.name for r in replays] == [
        "healthver_dev-dev", "hotpotqa_dev500-dev", "musique_dev-dev", "nfcorpus-dev",
        "scifact-train",
    ]  # fmt: skip
    assert {len(r.queries) for r in replays} == {16}
    for replay in replays:  # both parts, or every fold would choose on nothing
        assert 0 < sum(map(held_aside, replay.queries)) < len(replay.queries)


def test_pinned_folds(study: Study) -> None:
    """Any change to the replayed ranking (fusion, normalisation, MaxP) moves these."""
    found, shipped = study.folds, study.on_all
    assert {f.split: round(f.mean("chosen"), 4) for f in found} == {
        "healthver_dev-dev": 0.3994,
        "hotpotqa_dev500-dev": 0.8848,
        "musique_dev-dev": 0.6534,
        "nfcorpus-dev": 0.3618,
        "scifact-train": 0.7214,
    }
    assert {f.split: round(f.mean("previous default"), 4) for f in found} == {
        "healthver_dev-dev": 0.4114,
        "hotpotqa_dev500-dev": 0.8798,
        "musique_dev-dev": 0.6922,
        "nfcorpus-dev": 0.3873,
        "scifact-train": 0.727,
    }
    # The folds do not all agree: leaving MuSiQue out moves the lexical share, and two folds
    # scale it by the dense path's confidence.
    assert {setting_text(f.chosen) for f in found} == {
        "weighted_sum, doc_bm25 0.5, doc_dense 0.1, small 0, confidence 0",
        "weighted_sum, doc_bm25 0.4, doc_dense 0.1, small 0, confidence 0",
        "weighted_sum, doc_bm25 0.1, doc_dense 0.1, small 0, confidence 0",
        "floor_sum, doc_bm25 0.4, doc_dense 0.1, small 0, confidence 1.5",
    }
    shown = "weighted_sum, doc_bm25 0.5, doc_dense 0.1, small 0, confidence 0"
    assert setting_text(shipped) == shown


def test_a_fold_chooses_without_the_split_it_is_scored_on(replays: list[Replay]) -> None:
    """Scoring the left-out split from a reversed ranking (its qrels moved to other documents)
    changes what it scores, never what its fold chose."""
    left_out = replays[0]
    scrambled_qrels = {
        query: {f"not-{doc}": relevance for doc, relevance in judged.items()}
        for query, judged in left_out.qrels.items()
    }
    scrambled = dataclasses.replace(left_out, qrels=scrambled_qrels)
    before = leave_one_out(replays, {}, SETTINGS, Console(quiet=True)).folds
    after = leave_one_out([scrambled, *replays[1:]], {}, SETTINGS, Console(quiet=True)).folds
    assert after[0].chosen == before[0].chosen
    assert after[0].mean("chosen") == 0.0 < before[0].mean("chosen")


def test_choose_prefers_the_best_mean_of_the_tune_parts_and_the_first_on_a_tie() -> None:
    a, b, c = SETTINGS[:3]
    tune = next(f"q{i}" for i in range(100) if not held_aside(f"q{i}"))
    held = next(f"q{i}" for i in range(100) if held_aside(f"q{i}"))
    scores = {
        a: {"x": {tune: 0.5, held: 1.0}, "y": {tune: 0.5}},
        b: {"x": {tune: 0.7, held: 0.0}, "y": {tune: 0.4}},  # best mean on the tune parts
        c: {"x": {tune: 0.7, held: 0.0}, "y": {tune: 0.4}},  # equal to b: b stays
    }
    assert choose(scores, ["x", "y"]) == b
    assert choose(scores, ["y"]) == a


def test_the_default_shipped_is_the_setting_most_folds_chose(study: Study) -> None:
    found, on_all = study.folds, study.on_all
    a, b, c = SETTINGS[:3]
    assert most_chosen([dataclasses.replace(f, chosen=a) for f in found], on_all) == a
    three_two = [dataclasses.replace(f, chosen=b if i < 3 else c) for i, f in enumerate(found)]
    assert most_chosen(three_two, on_all) == b
    no_lead = [dataclasses.replace(f, chosen=b if i < 2 else (c if i < 4 else a))
               for i, f in enumerate(found)]  # fmt: skip
    assert most_chosen(no_lead, on_all) == on_all


def test_peers_are_the_best_single_path_and_the_best_graphrag_retriever(tmp_path: Path) -> None:
    conditions = [
        {"name": "cosine", "per_query_ndcg@10": {"q": 0.4}},
        {"name": "bm25", "per_query_ndcg@10": {"q": 0.6}},
        {"name": "hybrid", "per_query_ndcg@10": {"q": 0.9}},  # ours, not a peer
        {"name": "graphrag-vector", "per_query_ndcg@10": {"q": 0.3}},
        {"name": "graphrag-hybrid-naive", "per_query_ndcg@10": {"q": 0.5}},
    ]
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"conditions": conditions}))
    peers = Peers.load(path)
    assert peers.single is not None and peers.single[0] == "bm25"
    assert peers.graphrag is not None and peers.graphrag[0] == "graphrag-hybrid-naive"
    assert Peers.load(tmp_path / "absent.json") == Peers(None, None)


def test_the_bar_is_the_best_alternative_and_the_report_says_how_many_folds_reach_it(
    study: Study,
) -> None:
    found = study.folds
    fold = found[0]
    assert fold.bar() == part_mean(fold.rows["plain hybrid"])  # no peers measured here
    raised = dataclasses.replace(
        fold, rows={**fold.rows, "single": {q: 1.0 for q in fold.rows["chosen"]}},
        names={"single": "cosine"},
    )  # fmt: skip
    assert raised.bar() == 1.0
    text = report(dataclasses.replace(study, folds=[raised, *found[1:]]))
    reached = sum(f.mean("chosen") >= f.bar() for f in [raised, *found[1:]])
    assert f"folds at or above the best other: {reached}/5" in text
    assert "1.0000 cosine" in text
