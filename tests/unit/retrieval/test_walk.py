"""Personalized PageRank (``anchorgraph.retrieval.walk``) on small authored graphs, against values
solved by hand from p = (1 − d)·r + d·P·p."""

from __future__ import annotations

import random

import pytest

from anchorgraph.retrieval.walk import personalized_pagerank


def test_a_path_from_one_seed_against_the_hand_solution() -> None:
    # a – b – c, restart at a, d = 0.5:
    #   p_a = 0.5 + 0.5·p_b/2,  p_b = 0.5·(p_a + p_c),  p_c = 0.5·p_b/2
    #   ⇒ p_c = p_b/4, p_b = 4/7·p_a, p_a = 7/12, p_b = 1/3, p_c = 1/12.
    p = personalized_pagerank([("a", "b"), ("b", "c")], {"a": 1.0}, damping=0.5)
    assert p == pytest.approx({"a": 7 / 12, "b": 1 / 3, "c": 1 / 12}, abs=1e-6)


def test_a_star_with_two_weighted_seeds() -> None:
    # Hub h joined to x, y, z; restart 3/4 at x, 1/4 at y; d = 0.5. By symmetry of the leaves:
    #   p_h = 0.5·(p_x + p_y + p_z),  p_x = 3/8 + p_h/6,  p_y = 1/8 + p_h/6,  p_z = p_h/6
    #   ⇒ p_h = 0.5·(1/2 + p_h/2) ⇒ p_h = 1/3; p_x = 3/8 + 1/18, p_y = 1/8 + 1/18, p_z = 1/18.
    edges = [("h", "x"), ("h", "y"), ("h", "z")]
    p = personalized_pagerank(edges, {"x": 3.0, "y": 1.0}, damping=0.5)
    expected = {"h": 1 / 3, "x": 3 / 8 + 1 / 18, "y": 1 / 8 + 1 / 18, "z": 1 / 18}
    assert p == pytest.approx(expected, abs=1e-6)


def test_an_isolated_seed_sends_its_walk_back_to_the_restart() -> None:
    p = personalized_pagerank([("a", "b")], {"a": 1.0, "lonely": 1.0}, damping=0.5)
    assert sum(p.values()) == pytest.approx(1.0)
    assert p["lonely"] > p["b"] > 0  # it keeps its restart share; b is reached only through a
    assert personalized_pagerank([("a", "b")], {"a": 0.0}) == {}


def test_nodes_far_from_the_seeds_score_less_and_the_order_of_edges_does_not_matter() -> None:
    chain = [(f"n{i}", f"n{i + 1}") for i in range(6)]
    p = personalized_pagerank(chain, {"n0": 1.0})
    assert [p[f"n{i}"] for i in range(1, 7)] == sorted(
        (p[f"n{i}"] for i in range(1, 7)), reverse=True
    )
    shuffled = chain[::-1]
    random.Random(3).shuffle(shuffled)
    assert personalized_pagerank(shuffled, {"n0": 1.0}) == p  # identical, not only close


def test_the_damping_must_leave_a_restart() -> None:
    with pytest.raises(ValueError, match="damping"):
        personalized_pagerank([("a", "b")], {"a": 1.0}, damping=1.0)
