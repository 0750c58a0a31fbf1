"""Factual density FD*: verified claims per token, corrected for length (docs/design.md §3).

The formulas, for a document (or chunk) ``d`` with atomic claims ``c`` of ``prob_fact(c)`` in
[0.2, 1.0] and ``n_tokens(d)`` model tokens:

* ``FD_raw(d) = Σ_c prob_fact(c) / n_tokens(d)``, confounded by length: the denominator
  favours short texts (``anchorgraph audit length`` measures Pearson's r against length).
* Length bins: short / medium / long, split at the tertiles of ``n_tokens`` over the corpus
  unless bounds are configured.
* ``FD*(d) = ((FD_raw(d) − μ_bin) / σ_bin) × a_source(d)``, the z-score within ``d``'s length
  bin times its source's authority, so that it no longer follows length (the same audit).

* ``FD*_rescaled = Φ(z) × a_source / a_max``, in [0, 1]: each factor of FD* rescaled on its own,
  the z-score to its percentile under the standard normal CDF Φ, the authority to its share of
  the largest one in the graph (``a_max``, at least 1.0). Not ``Φ(FD*)``: a z-score below 0
  times a higher authority is *lower*, so a review a little sparser than its bin's mean would
  sink below an ordinary article, while the reviews and trials in SciFact train's cosine top 20
  are relevant 1.3 and 1.8 times as often as the rest (``docs/benchmarks.md``, "FD* (λ and
  a_source)", where ``Φ(z·a_source)`` ranks worse at every λ). This form is monotonic in the
  z-score and in the authority, and independent of whichever other candidates a search found
  (a min-max over the top 20 would give the weakest of 20 strong texts 0).
* The FD* rerank (docs/design.md §3): ``(1 − λ)·score + λ·FD*_rescaled`` over the top hits;
  λ = 0.1 by default, chosen on relevance judgements (``docs/benchmarks.md``).

Pure functions over floats, shared by ingestion (FD_raw), graph maintenance (bins and their
statistics) and retrieval (FD*, its rescaling and the rerank). ``BinStats`` adds and removes
values, so a bin's μ and σ stay right as documents come and go without a pass over the corpus.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum


class FdLevel(StrEnum):
    """What FD* is computed for: each chunk, and each whole document."""

    CHUNK = "chunk"
    DOCUMENT = "document"


class LengthBin(StrEnum):
    SHORT = "short"
    MEDIUM = "medium"
    LONG = "long"


def fd_raw(prob_facts: Iterable[float], n_tokens: int) -> float:
    """``Σ prob_fact / n_tokens``; 0.0 for a text without tokens.

    Raises:
        ValueError: a ``prob_fact`` outside [0, 1], or a negative ``n_tokens``.
    """
    if n_tokens < 0:
        raise ValueError(f"n_tokens must be >= 0, got {n_tokens}")
    total = 0.0
    for value in prob_facts:
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"prob_fact must be within [0, 1], got {value!r}")
        total += value
    return total / n_tokens if n_tokens else 0.0


def tertile_bounds(lengths: Sequence[int]) -> tuple[float, float]:
    """The lengths that split a corpus into three bins of (nearly) equal size: the 1/3 and 2/3
    quantiles, by the nearest-rank method (each bound is a length that occurs), so a text of
    exactly a bound's length falls in the lower bin.

    Raises:
        ValueError: no lengths.
    """
    if not lengths:
        raise ValueError("tertiles of an empty corpus")
    ordered = sorted(lengths)
    n = len(ordered)
    return float(ordered[math.ceil(n / 3) - 1]), float(ordered[math.ceil(2 * n / 3) - 1])


def length_bin(n_tokens: int, bounds: tuple[float, float]) -> LengthBin:
    """Short up to the first bound, medium up to the second, long above."""
    low, high = bounds
    if n_tokens <= low:
        return LengthBin.SHORT
    return LengthBin.MEDIUM if n_tokens <= high else LengthBin.LONG


@dataclass(frozen=True)
class BinStats:
    """Count, sum and sum of squares of one bin's FD_raw values: μ and the population σ follow,
    and a value is added or removed without the others (as a document is ingested or deleted)."""

    n: int = 0
    total: float = 0.0
    total_sq: float = 0.0

    @classmethod
    def of(cls, values: Iterable[float]) -> BinStats:
        stats = cls()
        for value in values:
            stats = stats.add(value)
        return stats

    def add(self, value: float) -> BinStats:
        return BinStats(self.n + 1, self.total + value, self.total_sq + value * value)

    def remove(self, value: float) -> BinStats:
        if self.n == 0:
            raise ValueError("remove from an empty bin")
        if self.n == 1:
            return BinStats()
        return BinStats(self.n - 1, self.total - value, self.total_sq - value * value)

    @property
    def mean(self) -> float:
        return self.total / self.n if self.n else 0.0

    @property
    def sd(self) -> float:
        """Population σ = sqrt(E[x²] − μ²), clamped at 0 against rounding."""
        if self.n == 0:
            return 0.0
        return math.sqrt(max(0.0, self.total_sq / self.n - self.mean**2))


def fd_star(raw: float, stats: BinStats, authority: float = 1.0) -> float:
    """``((raw − μ_bin) / σ_bin) × a_source``; 0.0 (the bin's mean) when σ_bin is 0, as when the
    bin holds one document or equal values.

    Raises:
        ValueError: a negative or non-finite authority.
    """
    if not math.isfinite(authority) or authority < 0.0:
        raise ValueError(f"authority must be finite and >= 0, got {authority!r}")
    sd = stats.sd
    # Relative to the mean's size: E[x²] − μ² leaves rounding noise where the values are equal.
    if sd <= 1e-12 * max(1.0, abs(stats.mean)):
        return 0.0
    return (raw - stats.mean) / sd * authority


def rescale(z: float, authority: float = 1.0, top_authority: float = 1.0) -> float:
    """``FD*_rescaled = Φ(z) × a_source / a_max`` with ``Φ(z) = (1 + erf(z / √2)) / 2`` (see
    the module docstring for why); ``z`` is the z-score within the bin, before authority.

    Raises:
        ValueError: an authority outside [0, top_authority].
    """
    if not 0.0 <= authority <= top_authority or top_authority <= 0.0:
        raise ValueError(f"authority {authority!r} must be within [0, {top_authority!r}]")
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0))) * authority / top_authority


def fd_blend(score: float, rescaled: float, weight: float) -> float:
    """``(1 − λ)·score + λ·FD*_rescaled`` with ``λ = weight``.

    Raises:
        ValueError: ``weight`` outside [0, 1].
    """
    if not 0.0 <= weight <= 1.0:
        raise ValueError(f"the FD* weight must be within [0, 1], got {weight!r}")
    return (1.0 - weight) * score + weight * rescaled
