"""The FD* formulas on hand-computed numbers, and bins that stay right as documents come and go."""

from __future__ import annotations

import math
import statistics

import pytest

from anchorgraph.factual_density import (
    BinStats,
    LengthBin,
    fd_blend,
    fd_raw,
    fd_star,
    length_bin,
    rescale,
    tertile_bounds,
)


def test_fd_raw_is_the_sum_of_prob_fact_per_token() -> None:
    assert fd_raw([1.0, 0.5, 0.2], 100) == pytest.approx(0.017)
    assert fd_raw([], 40) == 0.0
    assert fd_raw([0.9], 0) == 0.0  # no tokens: no density, not a division by zero


@pytest.mark.parametrize(("values", "tokens"), [([1.2], 10), ([-0.1], 10), ([0.5], -1)])
def test_fd_raw_refuses_impossible_input(values: list[float], tokens: int) -> None:
    with pytest.raises(ValueError):
        fd_raw(values, tokens)


def test_tertiles_split_nine_lengths_three_by_three() -> None:
    lengths = [10, 20, 30, 40, 50, 60, 70, 80, 90]
    bounds = tertile_bounds(lengths)
    assert bounds == (30.0, 60.0)
    bins = [length_bin(n, bounds) for n in lengths]
    assert bins.count(LengthBin.SHORT) == bins.count(LengthBin.MEDIUM) == 3
    assert length_bin(31, bounds) is LengthBin.MEDIUM and length_bin(61, bounds) is LengthBin.LONG
    with pytest.raises(ValueError):
        tertile_bounds([])


def test_fd_star_is_the_z_score_in_the_bin_times_authority() -> None:
    stats = BinStats.of([0.01, 0.02, 0.03])  # μ = 0.02, population σ = sqrt(2/3)·0.01
    sigma = math.sqrt(2 / 3) * 0.01
    assert stats.mean == pytest.approx(0.02)
    assert stats.sd == pytest.approx(sigma)
    assert fd_star(0.03, stats) == pytest.approx(0.01 / sigma)  # ≈ 1.2247
    assert fd_star(0.03, stats, authority=1.5) == pytest.approx(1.5 * 0.01 / sigma)
    assert fd_star(0.02, stats, authority=3.0) == pytest.approx(0.0)
    assert fd_star(0.5, BinStats.of([0.04, 0.04])) == 0.0  # σ = 0: the mean
    with pytest.raises(ValueError):
        fd_star(0.03, stats, authority=-1.0)


def test_bin_stats_follow_adds_and_removes_exactly_as_a_fresh_pass() -> None:
    values = [0.011, 0.027, 0.004, 0.019, 0.033, 0.008]
    stats = BinStats.of(values)
    stats = stats.remove(0.027).remove(0.004).add(0.015)
    kept = [0.011, 0.019, 0.033, 0.008, 0.015]
    assert stats.n == len(kept)
    assert stats.mean == pytest.approx(statistics.fmean(kept))
    assert stats.sd == pytest.approx(statistics.pstdev(kept))
    assert BinStats.of([0.2]).remove(0.2) == BinStats()
    with pytest.raises(ValueError):
        BinStats().remove(0.1)


def test_fd_star_removes_the_length_confound_that_fd_raw_has() -> None:
    # Short texts score high on FD_raw by the denominator alone; within bins, no longer.
    lengths = [50, 60, 70, 400, 420, 440, 2000, 2100, 2200]
    claims = [3.0, 3.2, 3.4, 6.0, 6.4, 6.2, 10.0, 11.0, 10.5]  # Σ prob_fact per text
    raws = [c / n for c, n in zip(claims, lengths, strict=True)]
    bounds = tertile_bounds(lengths)
    bins = [length_bin(n, bounds) for n in lengths]
    stats = {
        b: BinStats.of(r for r, bb in zip(raws, bins, strict=True) if bb is b) for b in LengthBin
    }
    stars = [fd_star(r, stats[b]) for r, b in zip(raws, bins, strict=True)]
    assert statistics.correlation(lengths, raws) < -0.6
    assert abs(statistics.correlation(lengths, stars)) < 0.2


# --- rescaling and the rerank blend -----------------------------------------------------------
def test_rescale_is_the_normal_cdf() -> None:
    assert rescale(0.0) == 0.5
    assert rescale(1.0) == pytest.approx(0.841345, abs=1e-6)
    assert rescale(-1.96) == pytest.approx(0.025, abs=1e-4)
    values = [rescale(z / 4) for z in range(-40, 41)]
    assert values == sorted(values) and values[0] >= 0.0 and values[-1] <= 1.0


def test_rescaling_is_monotonic_in_the_authority_even_below_the_mean() -> None:
    # Φ(z × a) would rank a sparse review (z = -0.5, a = 2) below a sparse article (a = 1).
    review, article = rescale(-0.5, 2.0, 2.0), rescale(-0.5, 1.0, 2.0)
    assert review == pytest.approx(0.308538, abs=1e-6) and review == 2 * article
    assert rescale(1.0, 2.0, 2.0) == rescale(1.0)  # the top authority keeps Φ(z)
    with pytest.raises(ValueError, match="within"):
        rescale(0.0, 3.0, 2.0)


def test_blend_is_the_weighted_mean_of_score_and_density() -> None:
    # (1 − λ)·cos + λ·FD*_rescaled (docs/design.md §3), here the even blend.
    assert fd_blend(0.6, 0.9, 0.5) == pytest.approx(0.75)
    assert fd_blend(0.6, 0.9, 0.0) == 0.6
    assert fd_blend(0.6, 0.9, 1.0) == 0.9
    with pytest.raises(ValueError, match="within"):
        fd_blend(0.6, 0.9, 1.5)


def test_a_fit_bins_every_node_and_counts_each_bin() -> None:
    from anchorgraph.loaders.fd_stats import fitted_bins

    nodes = [(length, length / 1000) for length in [5, 9, 12, 20, 31, 40]]
    fit = fitted_bins(nodes)
    assert fit.bounds == (9.0, 20.0)  # nearest-rank tertiles of the six lengths
    assert {b: s.n for b, s in fit.stats.items()} == {"short": 2, "medium": 2, "long": 2}
    assert fit.stats[LengthBin.SHORT] == BinStats.of([0.005, 0.009])  # a bound is in its bin
    assert fit.stats[LengthBin.LONG] == BinStats.of([0.031, 0.040])
    configured = fitted_bins(nodes, (10, 35))
    assert {b: s.n for b, s in configured.stats.items()} == {"short": 2, "medium": 3, "long": 1}
    empty_bin = fitted_bins(nodes, (100, 200))
    assert empty_bin.stats[LengthBin.LONG] == BinStats()


def test_configured_length_bins_must_be_ordered(monkeypatch: pytest.MonkeyPatch) -> None:
    from pydantic import ValidationError

    from anchorgraph.settings import Settings

    monkeypatch.setenv("ANCHORGRAPH_FD_DOCUMENT_BOUNDS", "[120, 400]")
    assert Settings().fd_document_bounds == (120, 400)
    monkeypatch.setenv("ANCHORGRAPH_FD_DOCUMENT_BOUNDS", "[400, 120]")
    with pytest.raises(ValidationError, match="lower < upper"):
        Settings()
