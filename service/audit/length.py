"""Length-confound audit: does factual density depend on how long a text is, before and after the
correction?

For each level (chunks, documents), over the nodes that have a length bin:

* before: Pearson's r of ``FD_raw = Σ prob_fact / n_tokens`` against ``n_tokens``, and its
  two-sided p;
* after: the same for ``FD* = ((FD_raw − μ_bin) / σ_bin) × a_source``.

FD_raw is expected to be confounded by length (the denominator favours short texts), and the
within-bin z-score to bring the correlation down to a non-significant one (docs/design.md §3).
The correction works when it leaves FD* uncorrelated with length (p above ``alpha``) where
FD_raw was correlated.

What z-scoring within bins removes is the part of the correlation *between* bins: each bin's FD*
has mean 0. What it keeps is the part *within* each bin, so a correlation inside the bins (long
texts of a bin sparser than short ones) survives it.

Pearson's r is ``cov(x, y) / (σ_x σ_y)``, and its two-sided p comes from
``t = r √(n − 2) / √(1 − r²)`` on ``n − 2`` degrees of freedom (exact under normality), computed
here rather than by ``scipy.stats.pearsonr``, whose import alone took a second of the
``anchorgraph audit length`` command (the test checks the two agree).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from anchorgraph.audit.nodes import FdNode, of_level
from anchorgraph.audit.plotting import BIN_COLOURS, figure, save
from anchorgraph.factual_density import FdLevel

DEFAULT_ALPHA = 0.05


class Correlation(BaseModel):
    """Pearson's r of two series and its two-sided p, over ``n`` pairs."""

    model_config = ConfigDict(frozen=True)

    r: float
    p: float
    n: int


def pearson(x: Sequence[float], y: Sequence[float]) -> Correlation | None:
    """Pearson's r and its two-sided p (module docstring); None where r is undefined: fewer
    than 3 pairs (2 points always lie on a line, r = ±1 and p = 1), or a constant series.

    Raises:
        ValueError: series of different lengths.
    """
    if len(x) != len(y):
        raise ValueError(f"series of different lengths: {len(x)} and {len(y)}")
    if len(x) < 3 or _constant(x) or _constant(y):
        return None
    mean_x, mean_y = math.fsum(x) / len(x), math.fsum(y) / len(y)
    dx, dy = [v - mean_x for v in x], [v - mean_y for v in y]
    covariance = math.fsum(a * b for a, b in zip(dx, dy, strict=True))
    spread = math.sqrt(math.fsum(a * a for a in dx) * math.fsum(b * b for b in dy))
    r = max(-1.0, min(1.0, covariance / spread))
    return Correlation(r=r, p=_two_sided_p(r, len(x) - 2), n=len(x))


def _two_sided_p(r: float, df: int) -> float:
    """P(|T| ≥ |t|) for Student's T on ``df`` degrees of freedom, ``t = r √df / √(1 − r²)``:
    ``I_{df / (df + t²)}(df / 2, 1 / 2)``, the regularised incomplete beta function, which
    with ``df / (df + t²) = 1 − r²`` needs no t at all (and gives p = 0 at r = ±1)."""
    return _incomplete_beta(df / 2, 0.5, 1.0 - r * r)


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function ``I_x(a, b)``, by its continued fraction
    (Numerical Recipes, 3rd ed., §6.4: ``I_x(a, b) = x^a (1 − x)^b / (a B(a, b)) · 1 / (1 + d₁ /
    (1 + d₂ / (1 + …))))``, evaluated by Lentz's method), which converges fast for
    ``x < (a + 1) / (a + b + 2)``; above it, ``I_x(a, b) = 1 − I_{1−x}(b, a)``."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    if x > (a + 1) / (a + b + 2):
        return 1.0 - _incomplete_beta(b, a, 1.0 - x)
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    return math.exp(log_front) * _beta_fraction(a, b, x) / a


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of ``_incomplete_beta``, with its coefficients
    ``d_{2m+1} = −(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1))`` and
    ``d_{2m} = m (b − m) x / ((a + 2m − 1)(a + 2m))``."""
    tiny = 1e-300

    def step(value: float) -> float:
        return value if abs(value) > tiny else tiny

    c, d = 1.0, 1.0 / step(1.0 - (a + b) * x / (a + 1))
    fraction = d
    for m in range(1, 1000):
        for coefficient in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 / step(1.0 + coefficient * d)
            c = step(1.0 + coefficient / c)
            fraction *= c * d
        if abs(c * d - 1.0) < 1e-15:
            break
    return fraction


def _constant(values: Sequence[float]) -> bool:
    first = values[0]
    return all(math.isclose(value, first, rel_tol=1e-12, abs_tol=1e-15) for value in values)


class LengthLevel(BaseModel):
    """One level's correlations of FD_raw and FD* with length (None: undefined, see
    ``pearson``)."""

    model_config = ConfigDict(frozen=True)

    level: FdLevel
    n: int = Field(description="Nodes with a length bin: the pairs of both correlations.")
    unbinned: int = Field(description="Nodes left out: no length bin yet (bins not fitted).")
    raw: Correlation | None = Field(description="FD_raw against n_tokens (before).")
    star: Correlation | None = Field(description="FD* against n_tokens (after).")
    raw_confounded: bool = Field(description="FD_raw's p is below alpha.")
    star_confounded: bool = Field(description="FD*'s p is below alpha.")


class LengthAudit(BaseModel):
    """The length-confound audit of every level that has nodes."""

    model_config = ConfigDict(frozen=True)

    alpha: float
    levels: list[LengthLevel]


def length_audit(nodes: Sequence[FdNode], alpha: float = DEFAULT_ALPHA) -> LengthAudit:
    """Pearson's r and p of FD_raw and of FD* against ``n_tokens`` per level (module docstring).

    Raises:
        ValueError: ``alpha`` outside (0, 1).
    """
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be within (0, 1), got {alpha!r}")
    levels = []
    for level in FdLevel:
        own = of_level(nodes, level)
        if not own:
            continue
        binned = [(node, value) for node in own if (value := node.fd_star) is not None]
        lengths = [float(node.n_tokens) for node, _ in binned]
        raw = pearson([node.fd_raw for node, _ in binned], lengths)
        star = pearson([value for _, value in binned], lengths)
        levels.append(
            LengthLevel(
                level=level,
                n=len(binned),
                unbinned=len(own) - len(binned),
                raw=raw,
                star=star,
                raw_confounded=raw is not None and raw.p < alpha,
                star_confounded=star is not None and star.p < alpha,
            )
        )
    return LengthAudit(alpha=alpha, levels=levels)


def plot_length(nodes: Sequence[FdNode], audit: LengthAudit, path: Path) -> Path:
    """One row per level: FD_raw against length (left) and FD* against length (right), each
    node a dot coloured by its length bin, with r and p in the panel's title."""
    rows = max(1, len(audit.levels))
    height = 4.2 * rows
    # Margins set by hand (in inches, whatever the number of rows): a plot the CLI draws in a
    # process of its own, where the layout engine's second drawing was a sixth of the time.
    drawn = figure(11, height, fitted=False)
    drawn.subplots_adjust(
        left=0.07, right=0.98, top=1 - 0.75 / height, bottom=0.55 / height, wspace=0.22,
        hspace=1.0 / 4.2,
    )  # fmt: skip
    axes = drawn.subplots(rows, 2, squeeze=False)
    for row, level in enumerate(audit.levels):
        own = [node for node in of_level(nodes, level.level) if node.fd_star is not None]
        for column, (name, correlation) in enumerate((("FD_raw", level.raw), ("FD*", level.star))):
            ax = axes[row][column]
            for bin_name, colour in BIN_COLOURS.items():
                members = [node for node in own if node.length_bin == bin_name]
                values = [
                    node.fd_raw if name == "FD_raw" else (node.fd_star or 0.0) for node in members
                ]
                ax.scatter(
                    [node.n_tokens for node in members],
                    values,
                    s=14,
                    alpha=0.7,
                    color=colour,
                    label=f"{bin_name} bin",
                )
            ax.set_title(f"{level.level}s: {name} vs length, {_describe(correlation)}")
            ax.set_xlabel("n_tokens")
            ax.set_ylabel(name)
            if name == "FD*":
                ax.axhline(0.0, color="grey", linewidth=0.8, linestyle="--")
            ax.legend(fontsize="small")
    drawn.suptitle(f"Length confound: Pearson r against n_tokens (alpha = {audit.alpha:g})")
    return save(drawn, path)


def _describe(correlation: Correlation | None) -> str:
    if correlation is None:
        return "r undefined"
    return f"r = {correlation.r:+.3f}, p = {correlation.p:.3g}"
