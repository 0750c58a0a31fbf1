"""Leave one dataset out over measured conditions (anchorgraph.evaluation.graph_loo)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anchorgraph.evaluation.graph_loo import (
    Measured,
    Rule,
    folds,
    joined,
    main,
    most_chosen,
    report,
)
from anchorgraph.evaluation.metrics import held_aside

QUERIES = [f"q{n}" for n in range(40)]
FLAT = "hybrid@expand=0;bridge=0"


def results(
    path: Path, dataset: str, scores: dict[str, float], lower_held: str = "", linked: bool = False
) -> Path:
    """A results.json of ``anchorgraph eval``: each condition scores the same on every query
    (``lower_held``'s held queries 0.1 less); ``linked``: the run made title links."""
    conditions = [
        {
            "name": name,
            "metrics": {"Recall@5": score, "AllGold@10": score},
            "latency_ms": {"p50": 10.0},
            "per_query_ndcg@10": {
                q: score - (0.1 if name == lower_held and held_aside(q) else 0.0) for q in QUERIES
            },
        }
        for name, score in scores.items()
    ]
    setup = {"title_links": "title links: …"} if linked else {}
    path.write_text(
        json.dumps({"dataset": dataset, "split": "dev", "setup": setup, "conditions": conditions})
    )
    return path


def test_each_fold_chooses_on_the_others_tune_parts(tmp_path: Path) -> None:
    assert any(held_aside(q) for q in QUERIES) and not all(held_aside(q) for q in QUERIES)
    splits = [
        Measured.load(results(tmp_path / "a.json", "a", {FLAT: 0.5, "graph": 0.6, "feed": 0.4})),
        Measured.load(results(tmp_path / "b.json", "b", {FLAT: 0.5, "graph": 0.55, "feed": 0.7})),
        Measured.load(
            results(tmp_path / "c.json", "c", {FLAT: 0.5, "graph": 0.6, "feed": 0.4}, "graph")
        ),
    ]
    found = folds(splits, FLAT)
    # Left out, b: a and c prefer the graph; a or c: b's 0.7 does not outweigh 0.6 and 0.4.
    assert [fold.chosen for fold in found] == [Rule("graph", "graph")] * 3
    assert most_chosen(found) == Rule("graph", "graph")
    # On c's held part the graph scores 0.5, flat's: at or above it still.
    assert all(fold.at_or_above_flat() for fold in found)
    text = report(splits, FLAT)
    assert "Most chosen: `graph`, at or above flat everywhere" in text
    assert "| `feed` | " in text  # every condition on every split


def test_a_setting_below_flat_on_a_held_part_is_said(tmp_path: Path) -> None:
    splits = [
        Measured.load(results(tmp_path / "a.json", "a", {FLAT: 0.5, "graph": 0.55}, "graph")),
        Measured.load(results(tmp_path / "b.json", "b", {FLAT: 0.5, "graph": 0.6})),
    ]
    found = folds(splits, FLAT)
    assert not found[0].at_or_above_flat() and found[1].at_or_above_flat()
    assert "below flat on a-dev" in report(splits, FLAT)


def test_a_rule_per_collection_is_chosen_the_same_way(tmp_path: Path) -> None:
    # The graph pays on the linked splits and costs on the others: a rule that runs it where a
    # collection is linked, and flat elsewhere, beats every one setting for all.
    linked = {FLAT: 0.5, "graph": 0.7}
    unlinked = {FLAT: 0.5, "graph": 0.45}
    splits = [
        Measured.load(results(tmp_path / "a.json", "a", linked, linked=True)),
        Measured.load(results(tmp_path / "b.json", "b", linked, linked=True)),
        Measured.load(results(tmp_path / "c.json", "c", unlinked)),
        Measured.load(results(tmp_path / "d.json", "d", unlinked)),
    ]
    found = folds(splits, FLAT)
    assert {fold.chosen for fold in found} == {Rule("graph", FLAT)}
    assert all(fold.at_or_above_flat() for fold in found)
    assert "`graph` where linked, `" + FLAT + "` elsewhere" in report(splits, FLAT)


def test_runs_of_one_split_are_joined(tmp_path: Path) -> None:
    # b's feedback setting was run apart from its others: joined, it is one of b's settings,
    # so a setting every split measured, and chosen where it leads.
    a = results(tmp_path / "a.json", "a", {FLAT: 0.5, "graph": 0.6, "feed": 0.7})
    b = results(tmp_path / "b.json", "b", {FLAT: 0.5, "graph": 0.6})
    b_feed = results(tmp_path / "b-feed.json", "b", {"feed": 0.7, FLAT: 0.1})
    c = results(tmp_path / "c.json", "c", {FLAT: 0.5, "graph": 0.6, "feed": 0.7})
    splits = joined([Measured.load(path) for path in (a, b, b_feed, c)])
    assert [s.split for s in splits] == ["a-dev", "b-dev", "c-dev"]
    assert list(splits[1].ndcg) == [FLAT, "graph", "feed"]
    assert splits[1].ndcg[FLAT]["q0"] == 0.5  # the first run's, where both ran it
    assert [fold.chosen for fold in folds(splits, FLAT)] == [Rule("feed", "feed")] * 3


def test_runs_of_one_split_on_different_graphs_are_refused(tmp_path: Path) -> None:
    linked = Measured.load(results(tmp_path / "a.json", "a", {FLAT: 0.5}, linked=True))
    unlinked = Measured.load(results(tmp_path / "a2.json", "a", {"feed": 0.5}))
    with pytest.raises(ValueError, match="a-dev: runs with and without title links"):
        joined([linked, unlinked])


def test_a_setting_left_out_is_not_chosen(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # "feed" leads everywhere, but is over the latency budget: left out, the graph is chosen.
    paths = [
        str(results(tmp_path / f"{n}.json", n, {FLAT: 0.5, "graph": 0.6, "feed": 0.7}))
        for n in "abc"
    ]
    main(["--flat", FLAT, *paths])
    assert "Most chosen: `feed`" in capsys.readouterr().out
    main(["--flat", FLAT, "--without", "feed", *paths])
    text = capsys.readouterr().out
    assert "Most chosen: `graph`" in text and "`feed`" not in text
