"""Score fusion: hand-computed values per mode, contributions, ranks, edge cases."""

from __future__ import annotations

import dataclasses
import itertools
import math
import random

import pytest

from anchorgraph.retrieval.fusion import FusedScore, Fusion, fuse, rank

# dense ranks a (1.0) above b (0.5); bm25 ranks b (1.0) above c (0.2).
PATHS: dict[str, dict[str, float]] = {
    "dense": {"a": 1.0, "b": 0.5},
    "bm25": {"b": 1.0, "c": 0.2},
}


def _scores(fused: dict[str, FusedScore]) -> dict[str, float]:
    return {candidate: result.score for candidate, result in fused.items()}


def _random_paths(rng: random.Random) -> dict[str, dict[str, float]]:
    pool = [f"d{i}" for i in range(12)]
    return {
        path: {c: rng.choice([0.0, 0.25, 0.5, rng.random()]) for c in rng.sample(pool, k)}
        for path, k in (("dense", 8), ("bm25", 5), ("tfidf", 0), ("entity", 3))
    }


# --- weighted sum ------------------------------------------------------------------------------


def test_weighted_sum_adds_the_paths_and_counts_absence_as_zero() -> None:
    fused = fuse(PATHS, Fusion.WEIGHTED_SUM)

    assert _scores(fused) == pytest.approx({"a": 1.0, "b": 1.5, "c": 0.2})
    assert list(fused) == ["b", "a", "c"]


def test_weighted_sum_applies_weights_and_breaks_score_ties_by_id() -> None:
    # a: 2·1.0 = 2.0; b: 2·0.5 + 1.0 = 2.0; c: 0.2.
    fused = fuse(PATHS, Fusion.WEIGHTED_SUM, weights={"dense": 2.0})

    assert _scores(fused) == pytest.approx({"a": 2.0, "b": 2.0, "c": 0.2})
    assert list(fused) == ["a", "b", "c"]
    assert dict(fused["b"].contributions) == pytest.approx({"dense": 1.0, "bm25": 1.0})


# --- floor sum ---------------------------------------------------------------------------------


def test_floor_sum_counts_how_far_each_path_lifts_a_candidate_above_its_weakest() -> None:
    # dense: floor 0.5 → a 0.5, b 0; bm25: floor 0.2 → b 0.8, c 0.
    fused = fuse(PATHS, Fusion.FLOOR_SUM)

    assert _scores(fused) == pytest.approx({"a": 0.5, "b": 0.8, "c": 0.0})
    assert dict(fused["b"].contributions) == pytest.approx({"dense": 0.0, "bm25": 0.8})


def test_floor_sum_ranks_as_the_weighted_sum_with_absent_scores_at_the_floor() -> None:
    rng = random.Random(7)
    for _ in range(50):
        paths = {p: v for p, v in _random_paths(rng).items() if v}
        weights = {path: rng.random() for path in paths}
        everyone = set().union(*paths.values())
        imputed = {
            path: {c: scores.get(c, min(scores.values())) for c in everyone}
            for path, scores in paths.items()
        }
        floor = fuse(paths, Fusion.FLOOR_SUM, weights)
        filled = fuse(imputed, Fusion.WEIGHTED_SUM, weights)
        shift = math.fsum(weights[p] * min(s.values()) for p, s in paths.items())
        assert {c: f.score + shift for c, f in floor.items()} == pytest.approx(_scores(filled))


def test_floor_sum_does_not_reward_being_found_by_one_more_path() -> None:
    # b is found by both paths, a only by dense, at the same normalised strength above the
    # floors: the weighted sum puts b first, the floor sum ties them (and orders by id).
    paths = {"dense": {"a": 1.0, "b": 1.0, "x": 0.4}, "bm25": {"b": 0.3, "y": 0.3}}

    assert list(fuse(paths, Fusion.WEIGHTED_SUM))[:2] == ["b", "a"]
    floor = fuse(paths, Fusion.FLOOR_SUM)
    assert floor["a"].score == pytest.approx(floor["b"].score)
    assert list(floor)[:2] == ["a", "b"]


def test_floor_sum_equals_the_weighted_sum_on_min_max_scores() -> None:
    paths = {"dense": {"a": 1.0, "b": 0.0, "c": 0.4}, "bm25": {"b": 1.0, "c": 0.0}}

    assert _scores(fuse(paths, Fusion.FLOOR_SUM)) == _scores(fuse(paths, Fusion.WEIGHTED_SUM))


# --- max ---------------------------------------------------------------------------------------


def test_max_takes_the_best_weighted_path_and_credits_only_it() -> None:
    fused = fuse(PATHS, Fusion.MAX)

    assert _scores(fused) == pytest.approx({"a": 1.0, "b": 1.0, "c": 0.2})
    assert dict(fused["b"].contributions) == {"dense": 0.0, "bm25": 1.0}
    assert list(fused) == ["a", "b", "c"]


def test_max_uses_weighted_scores() -> None:
    # b: max(3·0.5, 1·1.0) = 1.5 from dense.
    fused = fuse(PATHS, Fusion.MAX, weights={"dense": 3.0})

    assert fused["b"].score == pytest.approx(1.5)
    assert dict(fused["b"].contributions) == pytest.approx({"dense": 1.5, "bm25": 0.0})


def test_max_does_not_lift_a_negative_score_to_zero_for_absent_paths() -> None:
    fused = fuse({"dense": {"a": -0.5}, "bm25": {"b": 1.0}}, Fusion.MAX)

    assert fused["a"].score == -0.5


def test_max_credits_the_path_name_that_sorts_first_on_a_tie() -> None:
    fused = fuse({"p2": {"a": 0.7}, "p1": {"a": 0.7}}, Fusion.MAX)

    assert dict(fused["a"].contributions) == {"p2": 0.0, "p1": 0.7}


# --- mean --------------------------------------------------------------------------------------


def test_mean_averages_over_the_paths_that_found_the_candidate() -> None:
    fused = fuse(PATHS, Fusion.MEAN)

    # b is first by sum (1.5) but its mean (0.75) is below a's single 1.0.
    assert _scores(fused) == pytest.approx({"a": 1.0, "b": 0.75, "c": 0.2})
    assert list(fused) == ["a", "b", "c"]


def test_mean_is_weighted_and_its_contributions_are_scaled_by_the_denominator() -> None:
    # b: (3·0.5 + 1·1.0) / (3 + 1) = 0.625, split as 1.5/4 and 1.0/4.
    fused = fuse(PATHS, Fusion.MEAN, weights={"dense": 3.0})

    assert fused["b"].score == pytest.approx(0.625)
    assert dict(fused["b"].contributions) == pytest.approx({"dense": 0.375, "bm25": 0.25})
    assert fused["a"].score == pytest.approx(1.0)


def test_mean_is_zero_when_every_path_that_found_the_candidate_has_zero_weight() -> None:
    fused = fuse(PATHS, Fusion.MEAN, weights={"bm25": 0.0})

    assert fused["c"].score == 0.0
    assert dict(fused["c"].contributions) == {"bm25": 0.0}
    assert fused["b"].score == pytest.approx(0.5)  # only dense carries weight


# --- RRF ---------------------------------------------------------------------------------------


def test_rrf_hand_computed_with_the_default_k() -> None:
    fused = fuse(PATHS, Fusion.RRF)

    assert _scores(fused) == pytest.approx({"a": 1 / 61, "b": 1 / 62 + 1 / 61, "c": 1 / 62})
    assert dict(fused["b"].ranks) == {"dense": 2, "bm25": 1}


def test_rrf_ranks_a_candidate_found_by_both_paths_above_those_found_by_one() -> None:
    fused = fuse(PATHS, Fusion.RRF)

    assert rank(fused) == ["b", "a", "c"]


def test_rrf_uses_k() -> None:
    fused = fuse(PATHS, Fusion.RRF, rrf_k=0)

    assert _scores(fused) == pytest.approx({"a": 1.0, "b": 1.5, "c": 0.5})


def test_rrf_breaks_score_ties_inside_a_path_by_candidate_id() -> None:
    fused = fuse({"dense": {"b": 0.5, "a": 0.5, "c": 0.9}}, Fusion.RRF)

    assert {c: dict(r.ranks) for c, r in fused.items()} == {
        "c": {"dense": 1},
        "a": {"dense": 2},
        "b": {"dense": 3},
    }
    assert fused["a"].score > fused["b"].score


def test_rrf_applies_weights_to_each_reciprocal_rank() -> None:
    fused = fuse(PATHS, Fusion.RRF, weights={"dense": 0.0, "bm25": 2.0})

    assert _scores(fused) == pytest.approx({"a": 0.0, "b": 2 / 61, "c": 2 / 62})


def test_rrf_ignores_the_scale_of_the_scores() -> None:
    rescaled = {
        path: {c: 1000.0 * s - 7.0 for c, s in scores.items()} for path, scores in PATHS.items()
    }

    assert _scores(fuse(rescaled, Fusion.RRF)) == _scores(fuse(PATHS, Fusion.RRF))


# --- weights -----------------------------------------------------------------------------------


@pytest.mark.parametrize("method", list(Fusion))
def test_a_path_missing_from_weights_gets_weight_one(method: Fusion) -> None:
    partial = fuse(PATHS, method, weights={"dense": 1.0})
    unweighted = fuse(PATHS, method)

    assert _scores(partial) == _scores(unweighted)


@pytest.mark.parametrize("method", list(Fusion))
def test_weights_for_paths_that_found_nothing_are_ignored(method: Fusion) -> None:
    fused = fuse(PATHS, method, weights={"metadata": 5.0})

    assert _scores(fused) == _scores(fuse(PATHS, method))


def test_a_zero_weight_path_keeps_its_candidates_with_a_zero_score() -> None:
    fused = fuse(PATHS, Fusion.WEIGHTED_SUM, weights={"bm25": 0.0})

    assert fused["c"].score == 0.0
    assert fused["b"].score == pytest.approx(0.5)
    assert list(fused)[-1] == "c"


@pytest.mark.parametrize("bad", [-0.1, math.nan, math.inf])
def test_invalid_weights_are_rejected(bad: float) -> None:
    with pytest.raises(ValueError, match="bm25"):
        fuse(PATHS, Fusion.WEIGHTED_SUM, weights={"bm25": bad})


# --- contributions and ranks, for every mode ---------------------------------------------------


@pytest.mark.parametrize("method", list(Fusion))
def test_contributions_add_up_to_the_score_for_random_inputs(method: Fusion) -> None:
    rng = random.Random(f"contributions-{method.value}")
    for _ in range(100):
        paths = _random_paths(rng)
        weights = {path: rng.choice([0.0, 0.5, 1.0, 2.5]) for path in paths}
        for result in fuse(paths, method, weights).values():
            assert math.fsum(result.contributions.values()) == result.score
            assert sum(result.contributions.values()) == pytest.approx(result.score)


@pytest.mark.parametrize("method", list(Fusion))
def test_ranks_and_contributions_cover_exactly_the_paths_that_found_a_candidate(
    method: Fusion,
) -> None:
    rng = random.Random(3)
    paths = _random_paths(rng)
    fused = fuse(paths, method)

    assert set(fused) == {c for scores in paths.values() for c in scores}
    for candidate, result in fused.items():
        found_by = {path for path, scores in paths.items() if candidate in scores}
        assert set(result.ranks) == found_by
        assert set(result.contributions) == found_by


def test_ranks_follow_descending_score_within_each_path() -> None:
    rng = random.Random(5)
    paths = _random_paths(rng)
    fused = fuse(paths, Fusion.WEIGHTED_SUM)

    for path, scores in paths.items():
        by_rank = sorted(scores, key=lambda c: fused[c].ranks[path])
        assert [fused[c].ranks[path] for c in by_rank] == list(range(1, len(scores) + 1))
        for better, worse in itertools.pairwise(by_rank):
            assert scores[better] > scores[worse] or (
                scores[better] == scores[worse] and better < worse
            )


@pytest.mark.parametrize("method", list(Fusion))
def test_result_is_independent_of_input_order(method: Fusion) -> None:
    reordered = {path: dict(reversed(scores.items())) for path, scores in reversed(PATHS.items())}

    forward, backward = fuse(PATHS, method), fuse(reordered, method)
    assert list(forward) == list(backward)
    assert _scores(forward) == _scores(backward)


# --- rank, edge cases, validation --------------------------------------------------------------


def test_rank_orders_by_score_then_id() -> None:
    fused = {
        "b": FusedScore(0.5, {}, {}),
        "c": FusedScore(0.9, {}, {}),
        "a": FusedScore(0.5, {}, {}),
    }

    assert rank(fused) == ["c", "a", "b"]


@pytest.mark.parametrize("method", list(Fusion))
def test_fuse_iterates_in_rank_order(method: Fusion) -> None:
    fused = fuse(_random_paths(random.Random(9)), method)

    assert list(fused) == rank(fused)


@pytest.mark.parametrize("method", list(Fusion))
@pytest.mark.parametrize("paths", [{}, {"dense": {}, "bm25": {}}])
def test_no_candidates_gives_an_empty_result(
    method: Fusion, paths: dict[str, dict[str, float]]
) -> None:
    assert fuse(paths, method) == {}


def test_a_lone_candidate_in_a_lone_path() -> None:
    paths = {"dense": {"only": 0.4}}

    assert fuse(paths, Fusion.WEIGHTED_SUM)["only"].score == pytest.approx(0.4)
    assert fuse(paths, Fusion.MAX)["only"].score == pytest.approx(0.4)
    assert fuse(paths, Fusion.MEAN)["only"].score == pytest.approx(0.4)
    assert fuse(paths, Fusion.RRF)["only"].score == pytest.approx(1 / 61)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_scores_are_rejected(bad: float) -> None:
    with pytest.raises(ValueError, match="'c'"):
        fuse({"bm25": {"b": 1.0, "c": bad}}, Fusion.RRF)


def test_a_negative_rrf_k_is_rejected() -> None:
    with pytest.raises(ValueError, match="rrf_k"):
        fuse(PATHS, Fusion.RRF, rrf_k=-1)


def test_fused_scores_cannot_be_modified() -> None:
    result = fuse(PATHS, Fusion.RRF)["b"]

    with pytest.raises(dataclasses.FrozenInstanceError):
        result.score = 1.0  # type: ignore[misc]  # checking the runtime guard
    with pytest.raises(TypeError):
        result.contributions["dense"] = 1.0  # type: ignore[index]  # checking the runtime guard
    with pytest.raises(TypeError):
        result.ranks["dense"] = 1  # type: ignore[index]  # checking the runtime guard


def test_method_values_are_the_configuration_strings() -> None:
    assert [m.value for m in Fusion] == ["weighted_sum", "floor_sum", "max", "mean", "rrf"]
    assert _scores(fuse(PATHS, Fusion("rrf"))) == _scores(fuse(PATHS, Fusion.RRF))
