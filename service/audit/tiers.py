"""Tier-variance audit (the "ghost audit", docs/design.md §3): does FD* tell the source tiers apart,
or has the signal collapsed?

For each level (chunks, documents), over the nodes that have a length bin, per source type ``t``
with nodes ``N_t``:

* ``mean_t = Σ_{d ∈ N_t} FD*(d) / |N_t|`` and ``sd_t``, the population SD of FD* within ``t``;
* the tier variance ``SD_between = sqrt(Σ_t (mean_t − m)² / T)`` with ``m`` the mean of the ``T``
  per-type means (each tier counts once, whatever its size).

The method asks for ``SD_between ≥ 0.10``, so that the reranking signal does not collapse; below
it the audit flags the level. With one source type ``SD_between`` is 0 and the level is flagged:
FD* cannot separate tiers that are not there.

FD* is a z-score within length bins, so a tier whose texts all fall in one bin and make up all
of it has mean FD* 0 by construction: when tier and length are confounded completely, the length
correction removes the tier signal with the length signal, and this audit shows it.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from anchorgraph.audit.nodes import FdNode, of_level
from anchorgraph.audit.plotting import colours, figure, label, save
from anchorgraph.factual_density import FdLevel

# The least spread of FD* across source tiers that still separates them.
DEFAULT_THRESHOLD = 0.10


class TierRow(BaseModel):
    """FD* of one source type's nodes."""

    model_config = ConfigDict(frozen=True)

    source_type: str = Field(description="'' for documents that declare none.")
    n: int
    mean: float = Field(description="Mean FD*.")
    sd: float = Field(description="Population SD of FD* within the type.")


class TierLevel(BaseModel):
    """One level's tiers and the SD of their means."""

    model_config = ConfigDict(frozen=True)

    level: FdLevel
    n: int = Field(description="Nodes with FD* (a length bin).")
    tiers: list[TierRow]
    sd_between: float = Field(description="Population SD of the per-type mean FD*.")
    flagged: bool = Field(description="sd_between is below the threshold: FD* has collapsed.")


class TierAudit(BaseModel):
    model_config = ConfigDict(frozen=True)

    threshold: float
    levels: list[TierLevel]


def tier_rows(values: Sequence[tuple[str, float]]) -> list[TierRow]:
    """Per source type (sorted by name): n, mean and population SD of the FD* values given as
    ``(source_type, fd_star)`` pairs."""
    by_type: dict[str, list[float]] = defaultdict(list)
    for source_type, star in values:
        by_type[source_type].append(star)
    return [
        TierRow(
            source_type=source_type,
            n=len(stars),
            mean=statistics.fmean(stars),
            sd=statistics.pstdev(stars),
        )
        for source_type, stars in sorted(by_type.items())
    ]


def sd_between(rows: Sequence[TierRow]) -> float:
    """Population SD of the tiers' means (0.0 for one tier)."""
    return statistics.pstdev([row.mean for row in rows]) if rows else 0.0


def tier_audit(nodes: Sequence[FdNode], threshold: float = DEFAULT_THRESHOLD) -> TierAudit:
    """Per level: each source type's FD* and the SD across their means, flagged when below
    ``threshold`` (module docstring). A level whose nodes have no FD* yet is left out.

    Raises:
        ValueError: a negative threshold.
    """
    if threshold < 0:
        raise ValueError(f"threshold must be >= 0, got {threshold!r}")
    levels = []
    for level in FdLevel:
        values = [
            (node.source_type, star)
            for node in of_level(nodes, level)
            if (star := node.fd_star) is not None
        ]
        if not values:
            continue
        rows = tier_rows(values)
        spread = sd_between(rows)
        levels.append(
            TierLevel(
                level=level,
                n=len(values),
                tiers=rows,
                sd_between=spread,
                flagged=spread < threshold,
            )
        )
    return TierAudit(threshold=threshold, levels=levels)


def plot_tiers(nodes: Sequence[FdNode], audit: TierAudit, path: Path) -> Path:
    """One panel per level: a box of FD* per source type with its mean (a diamond), and the SD
    across the means against the threshold in the title."""
    drawn = figure(max(6.0, 4.5 * len(audit.levels)), 4.8)
    axes = drawn.subplots(1, max(1, len(audit.levels)), squeeze=False)[0]
    for ax, level in zip(axes, audit.levels, strict=False):
        names = [row.source_type for row in level.tiers]
        palette = colours(names)
        own = [node for node in of_level(nodes, level.level) if node.fd_star is not None]
        groups = [[node.fd_star or 0.0 for node in own if node.source_type == n] for n in names]
        boxes = ax.boxplot(groups, patch_artist=True, showfliers=True)
        for patch, name in zip(boxes["boxes"], names, strict=True):
            patch.set_facecolor(palette[name])
            patch.set_alpha(0.5)
        ax.set_xticks(range(1, len(names) + 1), [label(name) for name in names], rotation=20)
        ax.scatter(
            range(1, len(names) + 1),
            [row.mean for row in level.tiers],
            marker="D",
            color="black",
            zorder=3,
            label="mean FD*",
        )
        ax.axhline(0.0, color="grey", linewidth=0.8, linestyle="--")
        verdict = "FLAGGED" if level.flagged else "ok"
        ax.set_title(
            f"{level.level}s: SD of means = {level.sd_between:.3f} "
            f"(≥ {audit.threshold:g}? {verdict})"
        )
        ax.set_ylabel("FD*")
        ax.legend(fontsize="small")
    drawn.suptitle("Tier variance of FD* across source types")
    return save(drawn, path)
