"""Hyperlink expansion without a database: the depth-first walk with one visited registry,
cycles, the depth limit, the validation threshold, budgets, the FD*-weighted inherited score,
and determinism."""

from __future__ import annotations

import random

import pytest

from service.retrieval.expansion import Budget, Edge, expand, inherited_score

BUDGET = Budget(depth=2, per_hit=5, tokens=10_000, threshold=0.3, decay=0.8, fd_weight=0.5)


def edge(source: str, landing: str, validation: float = 0.6, fd: float = 0.5) -> Edge:
    return Edge(
        source_id=source,
        href=f"{landing.split('#')[0]}.md",
        anchor_text=f"to {landing}",
        landing_id=landing,
        landing_document_id=landing.split("#")[0],
        landing_tokens=100,
        document_tokens=400,
        validation=validation,
        anchor_fd=fd,
    )


def graph(*edges: Edge) -> dict[str, list[Edge]]:
    by_source: dict[str, list[Edge]] = {}
    for e in edges:
        by_source.setdefault(e.source_id, []).append(e)
    return by_source


def ids(found: list[list[object]]) -> list[list[str]]:
    return [[s.chunk_id for s in supporting] for supporting in found]  # type: ignore[attr-defined]


def test_the_inherited_score_formula_and_its_monotonicity_in_fd() -> None:
    assert inherited_score(0.8, 1.0, 0.9, 0.25) == pytest.approx(0.8 * 1.0 * 0.9)
    assert inherited_score(0.8, 0.0, 0.9, 0.25) == pytest.approx(0.8 * 0.75 * 0.9)
    assert inherited_score(0.8, 0.0, 0.9, 1.0) == 0.0
    for weight in (0.1, 0.25, 1.0):
        scores = [inherited_score(0.8, fd / 10, 0.9, weight) for fd in range(11)]
        assert scores == sorted(scores) and len(set(scores)) == 11  # strictly increasing in FD*
    # Without weight FD* plays no part.
    assert {inherited_score(0.8, fd / 10, 0.9, 0.0) for fd in range(11)} == {0.8 * 0.9}
    with pytest.raises(ValueError, match="within"):
        inherited_score(0.8, 1.5, 0.9, 0.25)
    with pytest.raises(ValueError, match="within"):
        inherited_score(0.8, 0.5, 0.9, 1.5)


def test_a_cycle_ends_and_every_chunk_is_integrated_once() -> None:
    links = graph(edge("a#0", "b#0"), edge("b#0", "a#0"), edge("b#0", "c#0"), edge("c#0", "b#0"))
    (found,) = expand([("a#0", 1.0)], links, BUDGET)
    assert [s.chunk_id for s in found] == ["b#0", "c#0"]
    assert [s.hop for s in found] == [1, 2]
    assert [h.anchor_text for h in found[1].path] == ["to b#0", "to c#0"]


def test_the_depth_limit() -> None:
    chain = graph(edge("a#0", "b#0"), edge("b#0", "c#0"), edge("c#0", "d#0"))
    assert ids(expand([("a#0", 1.0)], chain, BUDGET)) == [["b#0", "c#0"]]
    deeper = Budget(3, 5, 10_000, 0.3, 0.8, 0.5)
    assert ids(expand([("a#0", 1.0)], chain, deeper)) == [["b#0", "c#0", "d#0"]]


def test_one_registry_for_the_whole_answer() -> None:
    links = graph(edge("a#0", "x#0"), edge("b#0", "x#0"), edge("b#0", "y#0"), edge("a#0", "b#0"))
    found = expand([("a#0", 0.9), ("b#0", 0.7)], links, BUDGET)
    # x is a's (the better hit reaches it first); b is a hit itself, so nobody's support.
    assert ids(found) == [["x#0"], ["y#0"]]


def test_the_validation_threshold_and_the_budgets() -> None:
    links = graph(
        edge("a#0", "b#0", 0.9), edge("a#0", "c#0", 0.29), edge("a#0", "d#0", 0.5),
        edge("a#0", "e#0", 0.4),
    )  # fmt: skip
    assert ids(expand([("a#0", 1.0)], links, BUDGET)) == [["b#0", "d#0", "e#0"]]
    two = Budget(2, 2, 10_000, 0.3, 0.8, 0.5)
    assert ids(expand([("a#0", 1.0)], links, two)) == [["b#0", "d#0"]]
    tokens = Budget(2, 5, 250, 0.3, 0.8, 0.5)  # 100 tokens each: two fit
    assert ids(expand([("a#0", 1.0)], links, tokens)) == [["b#0", "d#0"]]


def test_depth_first_and_scores_decay_per_hop() -> None:
    links = graph(edge("a#0", "b#0", 0.9), edge("a#0", "c#0", 0.8), edge("b#0", "d#0", 0.7))
    (found,) = expand([("a#0", 1.0)], links, BUDGET)
    assert [s.chunk_id for s in found] == ["b#0", "c#0", "d#0"]
    b, _, d = found
    assert b.score == pytest.approx(inherited_score(1.0, 0.5, 0.8, 0.5))
    assert d.score == pytest.approx(inherited_score(b.score, 0.5, 0.8, 0.5))
    assert d.parent_score == b.score and d.score < b.score


def test_a_denser_anchor_passes_on_more() -> None:
    sparse = expand([("a#0", 1.0)], graph(edge("a#0", "b#0", fd=0.1)), BUDGET)[0][0]
    dense = expand([("a#0", 1.0)], graph(edge("a#0", "b#0", fd=0.9)), BUDGET)[0][0]
    assert dense.score > sparse.score


def test_the_output_does_not_depend_on_the_order_of_the_rows() -> None:
    edges = [edge(f"n{i}#0", f"n{j}#0", 0.3 + (i * 7 + j) % 10 / 20) for i in range(6)
             for j in range(6) if i != j]  # fmt: skip
    first = expand([("n0#0", 1.0), ("n3#0", 0.5)], graph(*edges), BUDGET)
    random.Random(1).shuffle(edges)
    assert expand([("n0#0", 1.0), ("n3#0", 0.5)], graph(*edges), BUDGET) == first
