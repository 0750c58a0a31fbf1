"""Score normalisation: put one candidate path's scores on a common scale before fusion.

Each candidate path scores on its own scale: cosine similarity is bounded in [-1, 1], BM25 and
TF-IDF are unbounded, metadata matches may be counts. Fusing raw scores lets the path with the
widest range dominate the ranking, so every path is normalised on its own first, by min-max, L2
or z-score, onto one scale (docs/design.md §1).

The methods, for the scores ``s`` of one path over its candidates:

* min-max: ``(s - min) / (max - min)``, onto [0, 1] (Lee 1997, "Analyses of multiple evidence
  combination", SIGIR; "Standard" in Montague & Aslam 2001).
* L2: ``s / ‖s‖₂``, so the path's score vector has unit length.
* z-score: ``(s - μ) / σ`` with the population σ ("ZMUV" in Montague & Aslam 2001, "Relevance
  score normalization for metasearch", CIKM).
* none: the scores unchanged, for paths already on the right scale or for rank-based fusion.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping
from enum import StrEnum


class Normalisation(StrEnum):
    """How one candidate path's scores are rescaled before fusion."""

    MIN_MAX = "min_max"
    L2 = "l2"
    Z_SCORE = "z_score"
    NONE = "none"


def normalise(scores: Mapping[str, float], method: Normalisation) -> dict[str, float]:
    """Normalise one candidate path's scores.

    Formulas, for a path's scores ``s`` over its candidates (sources in the module docstring):

    * ``MIN_MAX``: ``(s - min) / (max - min)``. When every score is equal (one candidate, or
      ties across the board) each becomes 1.0: a lone candidate is a perfect match of its
      path, and 0 would erase it from a weighted sum.
    * ``L2``: ``s / sqrt(Σ s²)``. A zero vector stays all zeros.
    * ``Z_SCORE``: ``(s - μ) / σ`` with the population standard deviation
      ``σ = sqrt(Σ (s - μ)² / n)``. When σ = 0 each score becomes 0.0 (the mean). μ and σ are
      computed exactly (``statistics``), so equal scores are recognised as equal. Z-scores
      can be negative, which matters to fusions that treat an absent candidate as 0.
    * ``NONE``: the scores unchanged (copied).

    Args:
        scores: One path's raw score per candidate id.
        method: The normalisation to apply.

    Returns:
        A new dict with the normalised score per candidate id, in the input's order; empty
        when ``scores`` is empty.

    Raises:
        ValueError: If any score is NaN or infinite, or ``method`` is not a ``Normalisation``.
    """
    method = Normalisation(method)
    for candidate, score in scores.items():
        if not math.isfinite(score):
            raise ValueError(f"score of candidate {candidate!r} is not finite: {score!r}")
    if not scores:
        return {}
    match method:
        case Normalisation.NONE:
            return dict(scores)
        case Normalisation.MIN_MAX:
            return _min_max(scores)
        case Normalisation.L2:
            return _l2(scores)
        case Normalisation.Z_SCORE:
            return _z_score(scores)


def _min_max(scores: Mapping[str, float]) -> dict[str, float]:
    low, high = min(scores.values()), max(scores.values())
    if low == high:
        return dict.fromkeys(scores, 1.0)
    # Halving first keeps ``high - low`` finite even for scores of opposite sign near the float
    # limit; it is exact for normal floats, so min still maps to 0.0 and max to 1.0 exactly.
    span = high / 2 - low / 2
    return {candidate: (score / 2 - low / 2) / span for candidate, score in scores.items()}


def _l2(scores: Mapping[str, float]) -> dict[str, float]:
    # hypot scales internally, so squaring large scores cannot overflow nor small ones underflow.
    norm = math.hypot(*scores.values())
    if norm == 0.0:
        return dict.fromkeys(scores, 0.0)
    return {candidate: score / norm for candidate, score in scores.items()}


def _z_score(scores: Mapping[str, float]) -> dict[str, float]:
    values = list(scores.values())
    # statistics.mean/pstdev work in exact fractions: float sums would make e.g. three 0.1s
    # look slightly unequal and turn a zero σ into rounding noise.
    mean = statistics.mean(values)
    sigma = statistics.pstdev(values, mean)
    if sigma == 0.0:
        return dict.fromkeys(scores, 0.0)
    return {candidate: (score - mean) / sigma for candidate, score in scores.items()}
