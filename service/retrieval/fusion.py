"""Score fusion: combine several candidate paths into one score per candidate.

Each path (``"dense"``, ``"bm25"``, ``"tfidf"``, ``"metadata"``, ``"entity"``) gives a score per
candidate id, already normalised (``anchorgraph.retrieval.normalise``). Fusion combines them with
configurable weights and a combination mode (sum, max, mean, or reciprocal rank fusion of the
ranks; docs/design.md §1). The modes are weighted forms of the
classic combinations of Fox & Shaw 1994 ("Combination of multiple searches", TREC-2) and of
Cormack, Clarke & Büttcher 2009 ("Reciprocal rank fusion outperforms Condorcet and individual
rank learning methods", SIGIR).

Every fused score keeps its explanation: the contribution of each path and the candidate's rank
within each path, so a result can say why it ranks where it does.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType


class Fusion(StrEnum):
    """How the candidate paths' scores are combined."""

    WEIGHTED_SUM = "weighted_sum"
    FLOOR_SUM = "floor_sum"
    MAX = "max"
    MEAN = "mean"
    RRF = "rrf"


@dataclass(frozen=True, slots=True)
class FusedScore:
    """One candidate's fused score and how each path produced it.

    Attributes:
        score: The fused score.
        contributions: Each path that found the candidate → its share of ``score``. They add
            up to ``score`` (``math.fsum(contributions.values()) == score``) for every mode.
        ranks: Each path that found the candidate → the candidate's 1-based rank in that path
            (descending score, ties broken by ascending candidate id).
    """

    score: float
    contributions: Mapping[str, float]
    ranks: Mapping[str, int]


def fuse(
    paths: Mapping[str, Mapping[str, float]],
    method: Fusion,
    weights: Mapping[str, float] | None = None,
    rrf_k: int = 60,
) -> dict[str, FusedScore]:
    """Fuse the candidate paths into one score per candidate.

    With ``s_p(d)`` the score of candidate ``d`` in path ``p``, ``w_p`` the path's weight,
    ``p ∋ d`` the paths that found ``d`` and ``rank_p(d)`` its 1-based rank in ``p``:

    * ``WEIGHTED_SUM``: ``Σ_p w_p·s_p(d)``, a path that did not find ``d`` adding 0 (weighted
      CombSUM, Fox & Shaw 1994; a linear combination, Vogt & Cottrell 1999). With z-scores an
      absent candidate thus scores the path's mean, not its minimum.
    * ``FLOOR_SUM``: ``Σ_{p∋d} w_p·(s_p(d) - min_p)``, ``min_p`` the lowest score in ``p``:
      each path adds how far ``d`` stands above the path's weakest candidate. It ranks as the
      weighted sum would if a path that did not find ``d`` gave it that floor instead of 0, so
      being found by one more path is no reward in itself (CombSUM with the missing scores
      imputed at the list's minimum). With min-max normalisation it is ``WEIGHTED_SUM``.
    * ``MAX``: ``max_{p∋d} w_p·s_p(d)`` (weighted CombMAX, Fox & Shaw 1994). Only paths that
      found ``d`` compete, so negative scores are not lifted to 0. Ties between paths go to the
      path name that sorts first.
    * ``MEAN``: ``Σ_{p∋d} w_p·s_p(d) / Σ_{p∋d} w_p``, the weighted mean over the paths that
      found ``d`` (weighted CombANZ, Fox & Shaw 1994). It differs from the sum: being found by
      more paths is not rewarded. 0.0 when every path that found ``d`` has weight 0.
    * ``RRF``: ``Σ_{p∋d} w_p / (k + rank_p(d))`` (Cormack et al. 2009, who use ``k = 60``; with
      every weight 1 this is their formula). Only ranks matter, not score scales.

    Ranks are ordinal: within a path, candidates are sorted by descending score and equal
    scores are ordered by ascending candidate id, so the result never depends on dict order.

    Contributions: for ``WEIGHTED_SUM``, ``FLOOR_SUM`` and ``RRF`` each path's term; for
    ``MEAN`` each path's term divided by the denominator; for ``MAX`` the winning path's
    weighted score, 0.0 for the other paths that found ``d``. In every mode they add up to the
    score.

    Args:
        paths: Path name → {candidate id → normalised score}. Empty paths are allowed.
        method: The combination mode.
        weights: Path name → non-negative weight. A path missing from ``weights`` gets 1.0, the
            neutral weight, so ``{"bm25": 2.0}`` means "BM25 counts double, the rest as usual".
            Weights for paths absent from ``paths`` are ignored (a path may find nothing for a
            query), so a misspelt path name is not detected here. ``None``: all weights 1.0.
        rrf_k: The RRF smoothing constant ``k``; used only by ``RRF``.

    Returns:
        Candidate id → ``FusedScore`` for every candidate found by at least one path (even
        when only by zero-weight paths), iterating in rank order (see ``rank``).

    Raises:
        ValueError: If a score or weight is not finite, a weight is negative, ``rrf_k`` is
            negative, or ``method`` is not a ``Fusion``.
    """
    method = Fusion(method)
    weights = {} if weights is None else weights
    for path, weight in weights.items():
        if not math.isfinite(weight) or weight < 0.0:
            raise ValueError(f"weight of path {path!r} must be finite and >= 0, got {weight!r}")
    if rrf_k < 0:
        raise ValueError(f"rrf_k must be >= 0, got {rrf_k!r}")
    for path, scores in paths.items():
        for candidate, score in scores.items():
            if not math.isfinite(score):
                raise ValueError(
                    f"score of {candidate!r} in path {path!r} is not finite: {score!r}"
                )

    ranks_by_path = {path: _ranks(scores) for path, scores in paths.items()}
    floors = (
        {path: min(scores.values(), default=0.0) for path, scores in paths.items()}
        if method is Fusion.FLOOR_SUM
        else {}
    )
    found: dict[str, list[str]] = {}  # candidate → the paths that found it, in path order
    for path, scores in paths.items():
        for candidate in scores:
            found.setdefault(candidate, []).append(path)
    weight_of = {path: weights.get(path, 1.0) for path in paths}
    fused: dict[str, FusedScore] = {}
    for candidate, found_by in found.items():
        ranks = {path: ranks_by_path[path][candidate] for path in found_by}
        weighted = {path: weight_of[path] * paths[path][candidate] for path in found_by}
        match method:
            case Fusion.WEIGHTED_SUM:
                contributions = weighted
            case Fusion.FLOOR_SUM:
                contributions = {
                    path: weight_of[path] * (paths[path][candidate] - floors[path])
                    for path in found_by
                }
            case Fusion.MAX:
                winner = min(weighted, key=lambda path: (-weighted[path], path))
                contributions = {p: (weighted[p] if p == winner else 0.0) for p in found_by}
            case Fusion.MEAN:
                total_weight = math.fsum(weight_of[path] for path in found_by)
                contributions = {
                    path: (term / total_weight if total_weight > 0.0 else 0.0)
                    for path, term in weighted.items()
                }
            case Fusion.RRF:
                contributions = {path: weight_of[path] / (rrf_k + ranks[path]) for path in found_by}
        fused[candidate] = FusedScore(
            score=math.fsum(contributions.values()),
            contributions=MappingProxyType(contributions),
            ranks=MappingProxyType(ranks),
        )
    return {candidate: fused[candidate] for candidate in rank(fused)}


def rank(fused: Mapping[str, FusedScore]) -> list[str]:
    """Order candidates by fused score, highest first, ties by ascending candidate id.

    Args:
        fused: Candidate id → fused score, as returned by ``fuse``.

    Returns:
        The candidate ids, best first.
    """
    return sorted(fused, key=lambda candidate: (-fused[candidate].score, candidate))


def _ranks(scores: Mapping[str, float]) -> dict[str, int]:
    """1-based ordinal ranks within one path: descending score, then ascending id."""
    ordered = sorted(scores, key=lambda candidate: (-scores[candidate], candidate))
    return {candidate: position for position, candidate in enumerate(ordered, start=1)}
