"""Expansion without a database: the depth-first walk with one visited registry over links and
entity bridges, cycles, the depth limit, the validation threshold, budgets, the FD*-weighted
inherited score, the query-aware supporting score, and determinism."""

from __future__ import annotations

import math
import random
from dataclasses import replace

import pytest

from anchorgraph.retrieval.expansion import (
    Budget,
    Edge,
    bridge_weight,
    expand,
    inherited_score,
    mention_bound,
    supporting_score,
)
from anchorgraph.retrieval.results import EntityHop, LinkHop

BUDGET = Budget(depth=2, per_hit=5, tokens=10_000, threshold=0.3, decay=0.8, fd_weight=0.5)


def edge(source: str, landing: str, validation: float = 0.6, fd: float = 0.5) -> Edge:
    return Edge(
        source_id=source,
        href=f"{landing.split('#')[0]}.md",
        anchor_text=f"to {landing}",
        landing_id=landing,
        landing_document_id=landing.split("#")[0],
        landing_tokens=100,
        validation=validation,
        anchor_fd=fd,
    )


def bridge(
    source: str, landing: str, entity: str, validation: float = 0.6, cosine: float = 0.5
) -> Edge:
    return Edge(
        kind="entity",
        source_id=source,
        anchor_text=entity,
        entity_id=entity.lower(),
        mentions=3,
        landing_id=landing,
        landing_document_id=landing.split("#")[0],
        landing_tokens=100,
        validation=validation,
        anchor_fd=0.5,
        query_similarity=cosine,
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


def test_two_links_to_one_place_are_told_apart_by_their_anchor_text_in_any_order() -> None:
    # The read gives a chunk's hops in no order (cypher/expand/reached.cypher): two links from
    # one chunk to one place, in other words, must still name the same hop whichever comes first.
    one = edge("a#0", "b#0")
    other = replace(one, anchor_text="another name for b")
    answers = [
        expand([("a#0", 1.0)], graph(*pair), BUDGET) for pair in ([one, other], [other, one])
    ]
    assert answers[0] == answers[1]
    (hop,) = answers[0][0][0].path
    assert isinstance(hop, LinkHop) and hop.anchor_text == "another name for b"


def test_the_supporting_score_formula_and_its_monotonicity_in_each_part() -> None:
    assert supporting_score(0.8, 0.6, 0.5) == pytest.approx(0.8 * (0.5 + 0.5 * 0.6))
    assert supporting_score(0.8, 0.6, 0.0) == 0.8  # without weight it only inherits
    assert supporting_score(0.8, -0.3, 1.0) == 0.0  # clipped to [0, 1]
    for weight in (0.25, 0.5, 1.0):
        by_cosine = [supporting_score(0.8, c / 10, weight) for c in range(11)]
        assert by_cosine == sorted(by_cosine) and len(set(by_cosine)) == 11
        by_inherited = [supporting_score(i / 10, 0.4, weight) for i in range(11)]
        assert by_inherited == sorted(by_inherited) and len(set(by_inherited)) == 11
    with pytest.raises(ValueError, match="within"):
        supporting_score(0.8, 0.5, 1.5)


def test_a_bridge_is_a_hop_named_by_its_entity() -> None:
    hops = graph(edge("a#0", "b#0"), bridge("b#0", "c#0", "Walter Zanini"))
    (found,) = expand([("a#0", 1.0)], hops, BUDGET)
    assert [s.chunk_id for s in found] == ["b#0", "c#0"]
    link, entity = found[1].path
    assert isinstance(link, LinkHop) and isinstance(entity, EntityHop)
    assert entity.described() == "via entity Walter Zanini"
    assert (entity.from_chunk_id, entity.to_chunk_id, entity.mentions) == ("b#0", "c#0", 3)
    assert found[1].score == pytest.approx(inherited_score(found[0].score, 0.5, 0.8, 0.5))


def test_one_registry_across_links_and_bridges() -> None:
    # x is reached by a's link and by b's bridge: the better hit's hop integrates it, once.
    hops = graph(edge("a#0", "x#0"), bridge("b#0", "x#0", "Velna"), bridge("b#0", "y#0", "Velna"))
    assert ids(expand([("a#0", 0.9), ("b#0", 0.7)], hops, BUDGET)) == [["x#0"], ["y#0"]]
    # The other way round, the bridge claims it first and the link finds it taken.
    assert ids(expand([("b#0", 0.9), ("a#0", 0.7)], hops, BUDGET)) == [["x#0", "y#0"], []]


def test_with_a_query_weight_the_hop_closer_to_the_question_is_claimed_first() -> None:
    one = Budget(2, 1, 10_000, 0.3, 0.8, 0.5, query_weight=0.5)
    hops = graph(bridge("a#0", "far#0", "E", cosine=0.1), bridge("a#0", "near#0", "F", cosine=0.7))
    (found,) = expand([("a#0", 1.0)], hops, one)
    assert [s.chunk_id for s in found] == ["near#0"]
    inherited = inherited_score(1.0, 0.5, 0.8, 0.5)
    assert found[0].score == pytest.approx(supporting_score(inherited, 0.7, 0.5))
    # Without it, the order is by validation, whatever the question.
    hops = graph(
        bridge("a#0", "far#0", "E", validation=0.9, cosine=0.1),
        bridge("a#0", "near#0", "F", validation=0.5, cosine=0.7),
    )
    assert ids(expand([("a#0", 1.0)], hops, Budget(2, 1, 10_000, 0.3, 0.8, 0.5))) == [["far#0"]]


def test_a_chunk_bridges_only_where_none_of_its_links_is_valid() -> None:
    hops = graph(edge("a#0", "b#0", 0.9), bridge("a#0", "c#0", "E"), bridge("z#0", "c#0", "E"))
    assert ids(expand([("a#0", 1.0)], hops, BUDGET)) == [["b#0"]]
    # A link below the threshold leaves the bridges to it; a hit without links bridges.
    weak = graph(edge("a#0", "b#0", 0.1), bridge("a#0", "c#0", "E"))
    assert ids(expand([("a#0", 1.0)], weak, BUDGET)) == [["c#0"]]
    assert ids(expand([("z#0", 1.0)], hops, BUDGET)) == [["c#0"]]


def test_the_bridge_weight_falls_as_more_chunks_name_the_entity() -> None:
    # (1 − ln m / ln N)²: m = 3 of N = 3,328 keeps 0.75, m = 20 keeps 0.40.
    assert bridge_weight(3, 3328) == pytest.approx((1 - math.log(3) / math.log(3328)) ** 2)
    assert bridge_weight(20, 3328) == pytest.approx(0.398, abs=1e-3)
    weights = [bridge_weight(m, 3328) for m in range(1, 60)]
    assert weights == sorted(weights, reverse=True) and weights[0] == 1.0
    assert bridge_weight(3328, 3328) == 0.0 and bridge_weight(5, 2) == 1.0


def test_the_mention_bound_is_the_smaller_of_the_option_and_the_root_of_the_collection() -> None:
    assert mention_bound(20, 3328) == 20  # √3,328 ≈ 57
    assert mention_bound(20, 30) == 5  # a small collection: at most ⌊√30⌋
    assert mention_bound(20, 0) == 2  # never below two chunks: a bridge joins two
