"""Rocchio pseudo-relevance feedback on the query vector."""

from __future__ import annotations

import math

import numpy as np
import pytest

from anchorgraph.retrieval.feedback import rocchio


def cosine(a: list[float], b: list[float]) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_hand_computed_move() -> None:
    # q = (1, 0), centroid (0, 1), β = 1: q + β·c = (1, 1), at unit length (1/√2, 1/√2).
    moved = rocchio([1.0, 0.0], [[0.0, 1.0], [0.0, 1.0]], weight=1.0)
    assert moved == pytest.approx([1 / math.sqrt(2), 1 / math.sqrt(2)])


def test_the_centroid_counts_by_direction_not_length() -> None:
    # Mean of (0, 4) and (2, 0) is (1, 2); unit centroid (1, 2)/√5; β = 0.5.
    moved = rocchio([1.0, 0.0], [[0.0, 4.0], [2.0, 0.0]], weight=0.5)
    expected = np.array([1.0, 0.0]) + 0.5 * np.array([1.0, 2.0]) / math.sqrt(5)
    assert moved == pytest.approx(list(expected / np.linalg.norm(expected)))
    assert rocchio([1.0, 0.0], [[0.0, 9.0]], 0.3) == pytest.approx(
        rocchio([1.0, 0.0], [[0.0, 1.0]], 0.3)
    )


def test_the_query_moves_towards_the_feedback_and_stays_unit_length() -> None:
    rng = np.random.default_rng(7)
    query = list(rng.standard_normal(16) / 4)
    feedback = [list(v) for v in rng.standard_normal((3, 16))]
    centroid = list(np.mean(feedback, axis=0))
    previous = cosine(query, centroid)
    for weight in (0.1, 0.3, 1.0, 3.0):
        moved = rocchio(query, feedback, weight)
        assert np.linalg.norm(moved) == pytest.approx(1.0)
        assert cosine(moved, centroid) > previous  # a larger β moves further
        previous = cosine(moved, centroid)


def test_no_feedback_leaves_the_query_alone() -> None:
    assert rocchio([0.6, 0.8], [], 0.3) == [0.6, 0.8]
    assert rocchio([0.6, 0.8], [[1.0, 0.0]], 0.0) == [0.6, 0.8]
    assert rocchio([0.6, 0.8], [[0.0, 0.0]], 0.3) == [0.6, 0.8]
