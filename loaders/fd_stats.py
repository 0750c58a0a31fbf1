"""FD* length bins and their statistics in the graph: fit them, refit when the corpus drifted,
read them.

The invariant the statements of ``cypher/fd`` keep: a chunk or document has a ``length_bin``
exactly when the ``(:FdStats)`` of its level and bin counts its ``fd_raw`` (``n``, ``total``,
``total_sq``). The write transaction of an ingest or delete takes what it replaces out of its bin
and puts what it writes in (``graph_writer``), so each bin's μ and σ follow the corpus as it
grows and shrinks, and FD* (computed from them when read) is always that of the graph as it is.

The bounds between the bins stay those of the last fit, since moving them would move every node.
``refit`` derives them again (the tertiles of the corpus's lengths, ``factual_density``, unless
bounds are configured) and rebins everything in one transaction; ``refit_if_drifted`` does so
when the corpus was never fitted or has changed by more than a share since (each add and each
removal counts one change), which ingestion asks for after every run.

Each collection has bins and statistics of its own (``(:FdStats {collection})``): collections
are different corpora, with lengths and densities of their own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import neo4j
from pydantic import BaseModel, ConfigDict

from service.factual_density import BinStats, FdLevel, LengthBin, length_bin, tertile_bounds
from service.graph.gateway import Graph
from service.graph.queries import Query, cypher

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
    tertiles of its lengths), rebin its every chunk and document and write the bins'
    statistics, in one transaction.
    A level with no nodes has no statistics (any it had are removed). Returns the new bins.

    The bins and statistics are computed here, from one read of every node's length and FD_raw
    (``fitted_bins``), and written back as plain rows: a Cypher statement binning a whole corpus
    held SciFact's 35,000 nodes in its eager buffers past the transaction memory limit."""

    scope = {"collection": collection}

    def work(tx: neo4j.ManagedTransaction) -> None:
        lock = tx.run(cypher(Query.FD_LOCK_COLLECTION), scope).single()
        if lock is None or not lock["found"]:
            return  # no such collection: nothing to fit
        record = tx.run(cypher(Query.FD_NODES), scope).single()
        nodes = {
            FdLevel.CHUNK: [tuple(row) for row in record["chunks"]] if record else [],
            FdLevel.DOCUMENT: [tuple(row) for row in record["documents"]] if record else [],
        }
        empty = [str(level) for level, rows in nodes.items() if not rows]
        if empty:
            tx.run(cypher(Query.FD_DROP_STATS), levels=empty, collection=collection).consume()
        assigned: dict[FdLevel, list[dict[str, str]]] = {}
        stats_rows: list[dict[str, Any]] = []
        for level, rows in nodes.items():
            if not rows:
                continue
            fitted = fitted_bins(rows, (bounds or {}).get(level))
            assigned[level] = [{"id": node_id, "bin": str(b)} for node_id, b in fitted.bins]
            stats_rows += [
                {
                    "level": str(level),
                    "bin": str(b),
                    "lower": fitted.bounds[0],
                    "upper": fitted.bounds[1],
                    "n": stats.n,
                    "total": stats.total,
                    "total_sq": stats.total_sq,
                    "fitted_n": len(rows),
                }
                for b, stats in fitted.stats.items()
            ]
        if stats_rows:
            tx.run(
                cypher(Query.FD_SET_BINS),
                chunks=assigned.get(FdLevel.CHUNK, []),
                documents=assigned.get(FdLevel.DOCUMENT, []),
            ).consume()
            tx.run(cypher(Query.FD_RESET_STATS), bins=stats_rows, collection=collection).consume()
        tx.run(
            cypher(Query.COUNT_COLLECTION),
            documents=0,
            chunks=0,
            collection=collection,
            language_changes=[],
        ).consume()

    graph.write(work)
    return bin_stats(graph, collection)


@dataclass(frozen=True)
class FittedBins:
    """One level's fit: its bounds, each node's bin, and each bin's statistics."""

    bounds: Bounds
    bins: list[tuple[str, LengthBin]]  # (node id, bin)
    stats: dict[LengthBin, BinStats]


def fitted_bins(nodes: Sequence[tuple[Any, ...]], bounds: Bounds | None = None) -> FittedBins:
    """Bins for ``(id, n_tokens, fd_raw)`` rows: ``bounds``, else the tertiles of the lengths
    (``tertile_bounds``); each node in the bin ``length_bin`` gives it; each bin's
    ``BinStats`` of FD_raw (every bin present, empty ones too)."""
    fit = bounds or tertile_bounds([int(n_tokens) for _, n_tokens, _ in nodes])
    members: dict[LengthBin, list[float]] = {b: [] for b in LengthBin}
    assigned: list[tuple[str, LengthBin]] = []
    for node_id, n_tokens, raw in nodes:
        b = length_bin(int(n_tokens), fit)
        assigned.append((str(node_id), b))
        members[b].append(float(raw))
    return FittedBins(fit, assigned, {b: BinStats.of(values) for b, values in members.items()})


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
        tx.run(cypher(Query.FD_SET_AUTHORITY), authorities=authorities_rows).consume()

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
