"""What the length and tier audits are computed from: every chunk's and document's length,
FD_raw, length bin and source type, and the FD* those give (``cypher/audit/fd_nodes.cypher``).

FD* is computed here as retrieval computes it (``anchorgraph.factual_density``, the same formula as
``anchorgraph.retrieval.fd_read``): ``((fd_raw − μ_bin) / σ_bin) × a_source`` with the bin's running
statistics ``n``, ``Σ fd_raw``, ``Σ fd_raw²`` as the graph holds them, so an audit sees the FD*
a search would use.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict

from anchorgraph.factual_density import BinStats, FdLevel, LengthBin, fd_star
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.queries import Query


class FdNode(BaseModel):
    """One chunk or document: its length, FD_raw, bin (with the bin's statistics) and source."""

    model_config = ConfigDict(frozen=True)

    level: FdLevel
    id: str
    source_type: str = ""
    n_tokens: int
    fd_raw: float
    length_bin: LengthBin | None = None
    a_source: float = 1.0
    n: int | None = None
    total: float | None = None
    total_sq: float | None = None

    @property
    def fd_star(self) -> float | None:
        """FD* of the node; None when it has no bin yet (the graph's bins are not fitted)."""
        if self.length_bin is None or self.n is None:
            return None
        stats = BinStats(self.n, self.total or 0.0, self.total_sq or 0.0)
        return fd_star(self.fd_raw, stats, self.a_source)


def read_nodes(graph: Graph, collection: str) -> list[FdNode]:
    """Every chunk and document of ``collection`` with an ``n_tokens``, chunks first, each level
    by id (ids within the collection)."""
    return graph.models(Query.AUDIT_FD_NODES, FdNode, {"collection": collection})


def of_level(nodes: Iterable[FdNode], level: FdLevel) -> list[FdNode]:
    return [node for node in nodes if node.level is level]
