"""Each hit's FD* as the graph gives it: ``fd_raw``, the length bin and its running statistics,
and the source type's authority (``cypher/fd/fd_inputs.cypher``), made into FD* by
``anchorgraph.factual_density``. Read by the FD* stages (``density``) and multi-signal scoring;
hydration reads the same inputs with the hits' texts, so every hit of every search shows its
FD*."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, Literal

from anchorgraph.factual_density import BinStats, fd_star, rescale
from anchorgraph.graph.queries import Query
from anchorgraph.graph.rows import FdInputsRow
from anchorgraph.retrieval.options import SearchOptions
from anchorgraph.retrieval.paths.base import Reader
from anchorgraph.retrieval.results import FdScore

Level = Literal["chunk", "document"]


def fd_scores(read: Reader, chunk_ids: Collection[str], level: Level) -> dict[str, FdScore]:
    """FD* of the given chunks (``level`` chunk) or of their documents (``level`` document), by
    chunk id; one round trip."""
    if not chunk_ids:
        return {}
    records = read(Query.FD_INPUTS, {"chunk_ids": list(dict.fromkeys(chunk_ids))})
    return {record["chunk_id"]: fd_of(record, level) for record in records}


def fd_of(record: FdInputsRow, level: Level) -> FdScore:
    """FD* at ``level`` from a row that carries FD*'s inputs (``fd_inputs.cypher``, and
    ``hydrate_chunks.cypher``, which reads them beside the text)."""
    return fd_score(
        record[level],
        level,
        record["source_type"],
        float(record["a_source"]),
        float(record["a_max"]),
    )


def fd_score(
    node: Mapping[str, Any],
    level: Level,
    source_type: str,
    a_source: float,
    a_max: float = 1.0,
) -> FdScore:
    """FD* of one node from ``fd_inputs.cypher``'s map (``fd_raw``, ``n_tokens``, ``n_claims``,
    ``bin`` and the bin's ``n``, ``total``, ``total_sq``); unknown when it has no bin yet (its
    rescaled value then takes Φ(z) = 0.5, the bin's mean)."""
    raw = float(node["fd_raw"])
    binned = node["bin"] is not None and node["n"] is not None
    stats = BinStats(node["n"], node["total"], node["total_sq"]) if binned else None
    z = None if stats is None else fd_star(raw, stats)
    return FdScore(
        level=level,
        fd_raw=raw,
        n_claims=int(node["n_claims"]),
        n_tokens=int(node["n_tokens"] or 0),
        length_bin=node["bin"],
        bin_mean=None if stats is None else stats.mean,
        bin_sd=None if stats is None else stats.sd,
        source_type=source_type,
        a_source=a_source,
        a_max=a_max,
        z=z,
        fd_star=None if z is None else z * a_source,
        rescaled=rescale(0.0 if z is None else z, a_source, a_max),
    )


def level_of(options: SearchOptions) -> Level:
    return "document" if options.document_level else "chunk"
