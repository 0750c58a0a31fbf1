"""Multi-signal document scoring: weights, the S_segment fallback, entity coverage."""

from __future__ import annotations

import dataclasses
import math
import random

import pytest

from anchorgraph.retrieval.defaults import SIGNAL_WEIGHTS
from anchorgraph.retrieval.scoring import (
    DocumentSignals,
    SignalWeights,
    entity_coverage,
    score_document,
)

DEFAULT = SIGNAL_WEIGHTS


def _signals(
    s_doc: float = 0.8,
    s_segment: float | None = 0.6,
    s_entity: float = 0.5,
    s_triple: float = 0.4,
    s_text: float = 0.2,
) -> DocumentSignals:
    return DocumentSignals(s_doc, s_segment, s_entity, s_triple, s_text)


# --- weights -----------------------------------------------------------------------------------


def test_default_weights_are_the_seed_weights_and_sum_to_one() -> None:
    assert dataclasses.astuple(DEFAULT) == (0.25, 0.30, 0.20, 0.15, 0.10, 0.0)  # S_fd: off
    assert math.fsum(dataclasses.astuple(DEFAULT)) == pytest.approx(1.0)


@pytest.mark.parametrize("bad", [-0.01, math.nan, math.inf])
def test_invalid_weights_are_rejected(bad: float) -> None:
    with pytest.raises(ValueError, match="triple"):
        dataclasses.replace(SIGNAL_WEIGHTS, triple=bad)


def test_all_zero_weights_are_rejected() -> None:
    with pytest.raises(ValueError, match="> 0"):
        SignalWeights(doc=0.0, segment=0.0, entity=0.0, triple=0.0, text=0.0)


def test_a_single_non_zero_weight_is_allowed_and_selects_that_signal() -> None:
    weights = SignalWeights(doc=0.0, segment=0.0, entity=0.0, triple=0.0, text=1.0)

    assert score_document(_signals(s_text=0.42), weights).score == 0.42


# --- score -------------------------------------------------------------------------------------


def test_score_is_the_hand_computed_weighted_sum() -> None:
    # 0.25·0.8 + 0.30·0.6 + 0.20·0.5 + 0.15·0.4 + 0.10·0.2 = 0.2 + 0.18 + 0.1 + 0.06 + 0.02
    breakdown = score_document(_signals(), DEFAULT)

    assert breakdown.score == pytest.approx(0.56)
    assert dict(breakdown.contributions) == pytest.approx(
        {"doc": 0.2, "segment": 0.18, "entity": 0.1, "triple": 0.06, "text": 0.02, "fd": 0.0}
    )
    assert breakdown.segment_fallback is False
    assert (breakdown.s_doc, breakdown.s_segment, breakdown.s_entity) == (0.8, 0.6, 0.5)
    assert (breakdown.s_triple, breakdown.s_text) == (0.4, 0.2)


def test_a_document_without_chunks_uses_s_doc_as_s_segment() -> None:
    breakdown = score_document(_signals(s_segment=None), DEFAULT)

    assert breakdown.segment_fallback is True
    assert breakdown.s_segment == 0.8
    assert breakdown.contributions["segment"] == pytest.approx(0.30 * 0.8)
    assert breakdown.score == pytest.approx(0.2 + 0.24 + 0.1 + 0.06 + 0.02)


def test_the_fallback_keeps_a_chunkless_document_from_losing_the_segment_weight() -> None:
    chunkless = score_document(_signals(s_segment=None), DEFAULT)
    same_best_chunk = score_document(_signals(s_segment=0.8), DEFAULT)

    assert chunkless.score == pytest.approx(same_best_chunk.score)


def test_a_document_whose_chunks_score_zero_does_not_fall_back() -> None:
    # The seed would fall back here (S_segment == 0 and S_doc > 0); chunks that exist and
    # miss the query keep their zero.
    breakdown = score_document(_signals(s_segment=0.0), DEFAULT)

    assert breakdown.segment_fallback is False
    assert breakdown.s_segment == 0.0
    assert breakdown.contributions["segment"] == 0.0
    assert breakdown.score == pytest.approx(0.2 + 0.1 + 0.06 + 0.02)


def test_contributions_add_up_to_the_score_for_random_signals() -> None:
    rng = random.Random("scoring")
    for _ in range(300):
        doc, segment, entity, triple = (rng.choice([0.0, rng.random()]) for _ in range(4))
        weights = SignalWeights(doc, segment, entity, triple, text=0.1)
        s_segment = None if rng.random() < 0.3 else rng.uniform(-1.0, 1.0)
        signals = _signals(rng.uniform(-1, 1), s_segment, rng.random(), rng.random(), rng.random())
        breakdown = score_document(signals, weights)

        assert math.fsum(breakdown.contributions.values()) == breakdown.score
        assert sum(breakdown.contributions.values()) == pytest.approx(breakdown.score)
        assert set(breakdown.contributions) == {"doc", "segment", "entity", "triple", "text", "fd"}


def test_score_is_monotone_in_each_signal() -> None:
    base = score_document(_signals(), DEFAULT).score
    for field in ("s_doc", "s_segment", "s_entity", "s_triple", "s_text"):
        raised = dataclasses.replace(_signals(), **{field: 0.95})

        assert score_document(raised, DEFAULT).score > base, field


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_signals_are_rejected(bad: float) -> None:
    with pytest.raises(ValueError, match="s_triple"):
        _signals(s_triple=bad)
    with pytest.raises(ValueError, match="s_segment"):
        _signals(s_segment=bad)


def test_breakdown_cannot_be_modified() -> None:
    breakdown = score_document(_signals(), DEFAULT)

    with pytest.raises(dataclasses.FrozenInstanceError):
        breakdown.score = 1.0  # type: ignore[misc]  # checking the runtime guard
    with pytest.raises(TypeError):
        breakdown.contributions["doc"] = 1.0  # type: ignore[index]  # checking the runtime guard


# --- entity coverage ---------------------------------------------------------------------------


def test_entity_coverage_is_the_share_of_exact_query_entities_matched() -> None:
    assert entity_coverage({"MAC"}, {"MAC", "USP"}) == 0.5
    assert entity_coverage({"MAC", "USP"}, {"MAC", "USP", "Zanini"}) == pytest.approx(2 / 3)
    assert entity_coverage({"MAC", "USP"}, {"MAC", "USP"}) == 1.0


def test_entity_coverage_without_exact_query_entities_is_zero() -> None:
    assert entity_coverage({"MAC"}, set()) == 0.0
    assert entity_coverage(set(), []) == 0.0


def test_entity_coverage_with_nothing_matched_is_zero() -> None:
    assert entity_coverage([], ["MAC", "USP"]) == 0.0


def test_semantic_matches_never_enter_the_denominator_nor_exceed_one() -> None:
    # "Bienal" was found semantically: matched in the document, but not an exact query entity.
    # The seed's len(matched) / len(exact) would give 2.0 here.
    assert entity_coverage({"MAC", "Bienal"}, {"MAC"}) == 1.0
    assert entity_coverage({"Bienal"}, {"MAC", "USP"}) == 0.0


def test_duplicate_entities_count_once() -> None:
    assert entity_coverage(["MAC", "MAC"], ["MAC", "MAC", "USP"]) == 0.5


def test_entities_are_compared_exactly() -> None:
    assert entity_coverage({"mac"}, {"MAC"}) == 0.0
