"""FD* length bins and their statistics in the graph: fit them, refit when the corpus drifted,
read them.

A node's length bin is not stored: it is the bin its ``n_tokens`` falls in under its level's
bounds (``factual_density.length_bin``), which every ``(:FdStats)`` of the level holds, and each
statement that reads a bin derives it so. The invariant the statements of ``cypher/fd`` keep:
where a level of a collection has statistics, each bin's ``n``, ``total`` and ``total_sq`` are
those of the ``fd_raw`` of every node of that level whose length falls in it. The write
transaction of an ingest or delete takes what it replaces out of its bin and puts what it writes
in (``graph_writer``, ``cypher/fd/count_documents.cypher``), so each bin's μ and σ follow the
corpus as it grows and shrinks, and FD* (computed from them when read) is always that of the
graph as it is.

The bounds between the bins stay those of the last fit, since moving them moves nodes between
bins. ``refit`` derives them again (the tertiles of the corpus's lengths, ``factual_density``,
unless bounds are configured) and counts everything again in one transaction;
``refit_if_drifted`` does so when the corpus was never fitted or has changed by more than a
share since (each add and each removal counts one change), which ingestion asks for after every
run.

Each collection has bins and statistics of its own (``(:FdStats {collection})``): collections
are different corpora, with lengths and densities of their own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import neo4j
from pydantic import BaseModel, ConfigDict

from anchorgraph.factual_density import BinStats, FdLevel, LengthBin, length_bin, tertile_bounds
from anchorgraph.graph.gateway import Graph, rows_in, run_in, single_in
from anchorgraph.graph.queries import Query

Bounds = tuple[float, float]
# Refit when this share of a level's fitted corpus has been added or removed since.
DEFAULT_REFIT_SHARE = 0.2


class FdBinRow(BaseModel):
    """One ``(:FdStats)`` node: a level's length bin, its bounds and statistics."""

    model_config = ConfigDict(frozen=True)

    collection: str
    level: FdLevel
    bin: LengthBin
    lower: float
    upper: float
    n: int
    total: float
    total_sq: float
    changes: int
    fitted_n: int

    @property
    def stats(self) -> BinStats:
        return BinStats(self.n, self.total, self.total_sq)


def bin_stats(graph: Graph, collection: str) -> list[FdBinRow]:
    """Every level's bins in ``collection``, short to long (none where it was never fitted)."""
    return graph.models(Query.FD_STATS, FdBinRow, {"collection": collection})


def refit(
    graph: Graph, collection: str, bounds: Mapping[FdLevel, Bounds | None] | None = None
) -> list[FdBinRow]:
    """Derive each level's bounds in ``collection`` again (``bounds`` where given, else the
    tertiles of its lengths) and write them with the bins' statistics, in one transaction.
    A level with no nodes has no statistics (any it had are removed). Returns the new bins.

    The bounds and statistics are computed here from every node's length and FD_raw, read as a
    stream of rows (``fitted_bins``), and only the six ``(:FdStats)`` are written: no node holds
    its bin. So a refit's transaction holds little at any size. (A Cypher statement binning and
    counting a whole corpus held SciFact's 35,000 nodes in its eager buffers past the
    transaction memory limit; setting a bin on each of a million chunks needed more than the
    2.8 GB a 4 GB heap allows a transaction: docs/benchmarks.md.)"""

    scope = {"collection": collection}

    def work(tx: neo4j.ManagedTransaction) -> None:
        lock = single_in(tx, Query.FD_LOCK_COLLECTION, scope)
        if lock is None or not lock["found"]:
            return  # no such collection: nothing to fit
        lengths: dict[FdLevel, list[tuple[int, float]]] = {level: [] for level in FdLevel}
        for row in rows_in(tx, Query.FD_LENGTHS, scope):
            lengths[FdLevel(row["level"])].append((int(row["n_tokens"]), float(row["fd_raw"])))
        empty = [str(level) for level, rows in lengths.items() if not rows]
        if empty:
            run_in(tx, Query.FD_DROP_STATS, {"levels": empty, "collection": collection})
        fits = {
            level: fitted_bins(rows, (bounds or {}).get(level))
            for level, rows in lengths.items()
            if rows
        }
        if fits:
            stats_rows = [
                {
                    "level": str(level),
                    "bin": str(b),
                    "lower": fit.bounds[0],
                    "upper": fit.bounds[1],
                    "n": stats.n,
                    "total": stats.total,
                    "total_sq": stats.total_sq,
                    "fitted_n": len(lengths[level]),
                }
                for level, fit in fits.items()
                for b, stats in fit.stats.items()
            ]
            run_in(tx, Query.FD_RESET_STATS, {"bins": stats_rows, "collection": collection})
        unchanged = {"documents": 0, "chunks": 0, "collection": collection, "language_changes": []}
        run_in(tx, Query.COUNT_COLLECTION, unchanged)

    graph.write(work)
    return bin_stats(graph, collection)


@dataclass(frozen=True)
class FittedBins:
    """One level's fit: its bounds and each bin's statistics."""

    bounds: Bounds
    stats: dict[LengthBin, BinStats]


def fitted_bins(nodes: Sequence[tuple[int, float]], bounds: Bounds | None = None) -> FittedBins:
    """The fit of ``(n_tokens, fd_raw)`` rows: ``bounds``, else the tertiles of the lengths
    (``tertile_bounds``), and each bin's ``BinStats`` of FD_raw over the nodes ``length_bin``
    puts in it (every bin present, empty ones too)."""
    fit = bounds or tertile_bounds([n_tokens for n_tokens, _ in nodes])
    members: dict[LengthBin, list[float]] = {b: [] for b in LengthBin}
    for n_tokens, raw in nodes:
        members[length_bin(n_tokens, fit)].append(raw)
    return FittedBins(fit, {b: BinStats.of(values) for b, values in members.items()})


class SourceAuthority(BaseModel):
    """``a_source`` of one source type, and why it has that value (by hand, or fitted)."""

    model_config = ConfigDict(frozen=True)

    source_type: str
    a_source: float
    reason: str = ""


def authorities(graph: Graph) -> list[SourceAuthority]:
    """The source types given an authority (every other one counts 1.0)."""
    return graph.models(Query.FD_AUTHORITIES, SourceAuthority)


def set_authorities(graph: Graph, rows: list[SourceAuthority]) -> None:
    """Store each row's ``a_source`` on its ``(:SourceAuthority)``; FD* reads it from there."""
    authorities_rows = [row.model_dump() for row in rows]

    def work(tx: neo4j.ManagedTransaction) -> None:
        run_in(tx, Query.FD_SET_AUTHORITY, {"authorities": authorities_rows})

    graph.write(work)


def needs_refit(rows: list[FdBinRow], share: float = DEFAULT_REFIT_SHARE) -> bool:
    """Whether bins fitted as ``rows`` say should be fitted again: a level without statistics
    while it has nodes, or one whose changes since the fit exceed ``share`` of its fitted size.
    (A level with no statistics and no nodes has none in ``rows`` either: ``refit`` skips it.)
    """
    levels = {row.level for row in rows}
    if levels != set(FdLevel):
        return True
    for level in FdLevel:
        own = [row for row in rows if row.level is level]
        changes = sum(row.changes for row in own)
        if changes > share * max(own[0].fitted_n, 1):
            return True
    return False


def refit_if_drifted(
    graph: Graph,
    collection: str,
    share: float = DEFAULT_REFIT_SHARE,
    bounds: Mapping[FdLevel, Bounds | None] | None = None,
) -> bool:
    """Refit ``collection`` (``refit``) when ``needs_refit`` says so; returns whether bins were
    fitted (an empty collection gets none)."""
    if not needs_refit(bin_stats(graph, collection), share):
        return False
    return bool(refit(graph, collection, bounds))
