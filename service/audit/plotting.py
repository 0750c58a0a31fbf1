"""The PNGs of the audits: matplotlib's object API on its Agg canvas (no pyplot, so no global
figure state and no GUI backend, safe in a server thread), imported only when a plot is drawn."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# One colour per length bin and per source tier, the same in every plot.
BIN_COLOURS = {"short": "#1b9e77", "medium": "#d95f02", "long": "#7570b3"}
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f")


def figure(width: float, height: float, *, fitted: bool = True) -> Figure:
    """A new figure of ``width`` × ``height`` inches on an Agg canvas, its panels fitted to their
    labels by matplotlib's constrained layout unless ``fitted`` is off (the caller then sets the
    margins: the layout engine draws the figure once more, about half a second of CPU)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    drawn = Figure(figsize=(width, height), layout="constrained" if fitted else None)
    FigureCanvasAgg(drawn)
    return drawn


def save(drawn: Figure, path: Path) -> Path:
    """Write ``drawn`` as a PNG at ``path`` (its folder created), and return the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    drawn.savefig(path, format="png", dpi=110)
    return path


def label(source_type: str) -> str:
    """How a source type is shown: its name, or ``(none)`` when the document declares none."""
    return source_type or "(none)"


def colours(names: list[str]) -> dict[str, str]:
    """A stable colour per name, in the order given."""
    return {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(names)}
