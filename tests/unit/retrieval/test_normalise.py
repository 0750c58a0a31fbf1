"""Score normalisation: hand-computed values, edge cases and invariants."""

from __future__ import annotations

import math
import random

import pytest

from anchorgraph.retrieval.normalise import Normalisation, normalise

ALL_METHODS = list(Normalisation)


def _random_scores(rng: random.Random, size: int) -> dict[str, float]:
    return {f"d{i}": rng.uniform(-50.0, 50.0) for i in range(size)}


# --- min-max ---------------------------------------------------------------------------------


def test_min_max_maps_hand_computed_scores_onto_unit_interval() -> None:
    result = normalise({"a": 2.0, "b": 4.0, "c": 10.0}, Normalisation.MIN_MAX)

    assert result == pytest.approx({"a": 0.0, "b": 0.25, "c": 1.0})


def test_min_max_handles_negative_scores() -> None:
    result = normalise({"a": -3.0, "b": -1.0, "c": 1.0}, Normalisation.MIN_MAX)

    assert result == pytest.approx({"a": 0.0, "b": 0.5, "c": 1.0})


def test_min_max_gives_one_to_a_lone_candidate() -> None:
    assert normalise({"only": 0.37}, Normalisation.MIN_MAX) == {"only": 1.0}


def test_min_max_gives_one_to_every_candidate_when_all_scores_are_equal() -> None:
    result = normalise({"a": 5.0, "b": 5.0, "c": 5.0}, Normalisation.MIN_MAX)

    assert result == {"a": 1.0, "b": 1.0, "c": 1.0}


def test_min_max_maps_extremes_exactly_and_keeps_order() -> None:
    rng = random.Random(20240101)
    for _ in range(200):
        scores = _random_scores(rng, rng.randint(2, 30))
        result = normalise(scores, Normalisation.MIN_MAX)

        assert result[min(scores, key=scores.__getitem__)] == 0.0
        assert result[max(scores, key=scores.__getitem__)] == 1.0
        assert all(0.0 <= value <= 1.0 for value in result.values())
        for x in scores:
            for y in scores:
                if scores[x] < scores[y]:
                    assert result[x] <= result[y]


def test_min_max_stays_finite_for_scores_near_the_float_limit() -> None:
    result = normalise({"low": -1e308, "mid": 0.0, "high": 1e308}, Normalisation.MIN_MAX)

    assert result == pytest.approx({"low": 0.0, "mid": 0.5, "high": 1.0})


# --- L2 ----------------------------------------------------------------------------------------


def test_l2_divides_by_euclidean_norm() -> None:
    result = normalise({"a": 3.0, "b": 4.0}, Normalisation.L2)

    assert result == pytest.approx({"a": 0.6, "b": 0.8})


def test_l2_keeps_the_sign_of_negative_scores() -> None:
    result = normalise({"a": -3.0, "b": 4.0}, Normalisation.L2)

    assert result == pytest.approx({"a": -0.6, "b": 0.8})


def test_l2_result_has_unit_length_and_keeps_ratios() -> None:
    rng = random.Random(7)
    for _ in range(100):
        scores = _random_scores(rng, rng.randint(1, 20))
        result = normalise(scores, Normalisation.L2)

        assert math.hypot(*result.values()) == pytest.approx(1.0)
        first = next(iter(scores))
        for candidate in scores:
            assert result[candidate] * scores[first] == pytest.approx(
                result[first] * scores[candidate], abs=1e-12
            )


def test_l2_of_a_zero_vector_is_all_zeros() -> None:
    assert normalise({"a": 0.0, "b": 0.0}, Normalisation.L2) == {"a": 0.0, "b": 0.0}


def test_l2_does_not_overflow_on_large_scores() -> None:
    result = normalise({"a": 1e200, "b": 1e200}, Normalisation.L2)

    assert result == pytest.approx({"a": 1 / math.sqrt(2), "b": 1 / math.sqrt(2)})


# --- z-score -----------------------------------------------------------------------------------


def test_z_score_uses_population_standard_deviation() -> None:
    # μ = 2, population σ = sqrt(2/3); the sample σ (= 1) would give exactly ±1.
    result = normalise({"a": 1.0, "b": 2.0, "c": 3.0}, Normalisation.Z_SCORE)

    expected = 1 / math.sqrt(2 / 3)
    assert result == pytest.approx({"a": -expected, "b": 0.0, "c": expected})


def test_z_score_result_has_zero_mean_and_unit_population_deviation() -> None:
    rng = random.Random(11)
    for _ in range(100):
        scores = _random_scores(rng, rng.randint(2, 25))
        values = list(normalise(scores, Normalisation.Z_SCORE).values())

        mean = math.fsum(values) / len(values)
        variance = math.fsum((v - mean) ** 2 for v in values) / len(values)
        assert mean == pytest.approx(0.0, abs=1e-9)
        assert variance == pytest.approx(1.0)


@pytest.mark.parametrize("value", [0.1, 0.7, 1e-300, 123456.789])
def test_z_score_of_equal_scores_is_zero_even_when_float_sums_would_round(value: float) -> None:
    # sum([0.1] * 3) / 3 != 0.1 in floats, which would give a tiny non-zero σ.
    result = normalise({"a": value, "b": value, "c": value}, Normalisation.Z_SCORE)

    assert result == {"a": 0.0, "b": 0.0, "c": 0.0}


def test_z_score_of_a_lone_candidate_is_zero() -> None:
    assert normalise({"only": 42.0}, Normalisation.Z_SCORE) == {"only": 0.0}


# --- none and common behaviour -----------------------------------------------------------------


def test_none_returns_the_scores_unchanged_as_a_copy() -> None:
    scores = {"a": 7.5, "b": -2.0}
    result = normalise(scores, Normalisation.NONE)
    result["a"] = 0.0

    assert scores == {"a": 7.5, "b": -2.0}
    assert result["b"] == -2.0


@pytest.mark.parametrize("method", ALL_METHODS)
def test_empty_input_gives_empty_output(method: Normalisation) -> None:
    assert normalise({}, method) == {}


@pytest.mark.parametrize("method", ALL_METHODS)
@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_scores_are_rejected(method: Normalisation, bad: float) -> None:
    with pytest.raises(ValueError, match="'b'"):
        normalise({"a": 1.0, "b": bad}, method)


@pytest.mark.parametrize("method", ALL_METHODS)
def test_output_has_the_input_candidates_in_the_input_order(method: Normalisation) -> None:
    scores = {"z": 1.0, "a": 3.0, "m": 2.0}

    assert list(normalise(scores, method)) == ["z", "a", "m"]


def test_the_input_mapping_is_not_modified() -> None:
    scores = {"a": 1.0, "b": 3.0}
    for method in ALL_METHODS:
        normalise(scores, method)

    assert scores == {"a": 1.0, "b": 3.0}


def test_method_values_are_the_configuration_strings() -> None:
    assert normalise({"a": 1.0, "b": 3.0}, Normalisation("min_max")) == {"a": 0.0, "b": 1.0}
    assert [m.value for m in Normalisation] == ["min_max", "l2", "z_score", "none"]


def test_an_unknown_method_is_rejected() -> None:
    with pytest.raises(ValueError):
        normalise({"a": 1.0}, "softmax")  # type: ignore[arg-type]  # deliberately not a member
