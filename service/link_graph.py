"""The document link graph in networkx: a GraphML export, and PageRank as a document prior.

The graph has one node per document (attribute ``title``) and an edge u → v when chunks of u
link to v or to one of v's chunks, with ``weight`` = how many such links there are
(``cypher/graph/document_links.cypher``). Links to ``Unresolved`` placeholders and links within
one document are left out: a placeholder is no document to rank, and a page citing itself
endorses nothing. Isolated documents are nodes without edges.

PageRank (Page, Brin, Motwani and Winograd, *The PageRank Citation Ranking: Bringing Order to
the Web*, Stanford InfoLab 1999-66), as ``networkx.pagerank`` computes it (networkx docs,
``networkx.algorithms.link_analysis.pagerank_alg.pagerank``), over N documents with damping d::

    PR(v) = (1 − d)/N + d · ( Σ_{u → v} PR(u) · w(u, v) / W(u)  +  Σ_{u dangling} PR(u) / N )

where W(u) = Σ_x w(u, x) is u's weighted out-degree. A *dangling* document (no outgoing links)
spreads its score evenly over every document, itself included, as if it linked to all of them
(networkx's ``dangling=None`` with the uniform personalisation), so no score leaks away and the
scores sum to 1. Power iteration stops when the L1 change of the score vector is below N·tol.

``anchorgraph graph pagerank`` stores each document's score and rank (``d.pagerank``,
``d.pagerank_rank``, 1 = highest) as a query-independent prior that fusion may add
(``search/document_priors.cypher``); docs/link_graph.md says what it is for.

Links never leave their collection, so each collection is a link graph of its own, read and
ranked on its own; node ids are document ids within it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

import neo4j
import networkx as nx
from pydantic import BaseModel, ConfigDict

from anchorgraph.errors import InvalidInput
from anchorgraph.graph.gateway import Graph, GraphReader, single_in
from anchorgraph.graph.queries import Query
from anchorgraph.graph.rows import DocumentLinksRow

DEFAULT_DAMPING = 0.85  # the PageRank paper's (Page, Brin, Motwani, Winograd), networkx's default
TOLERANCE = 1e-6  # networkx's default: stop when the L1 change is below N · TOLERANCE
TOP = 10
WRITE_BATCH = 5000  # documents per UNWIND of set_pagerank.cypher
# Characters XML 1.0 cannot carry (C0 controls other than tab, newline, carriage return;
# surrogates; U+FFFE, U+FFFF): a title holding one would make the GraphML unreadable.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


class RankedDocument(BaseModel):
    """One document of the PageRank table."""

    model_config = ConfigDict(frozen=True)

    rank: int
    id: str
    title: str
    score: float
    in_links: int  # links pointing at it (the weighted in-degree)


class PageRankSummary(BaseModel):
    """What a PageRank run computed, and how."""

    model_config = ConfigDict(frozen=True)

    documents: int
    links: int  # resolved links between two different documents (Σ weight)
    edges: int  # ordered document pairs with at least one link
    dangling: int  # documents without outgoing links
    damping: float
    tolerance: float  # per document: iteration stopped at an L1 change below documents × this
    max_iterations: int
    top: list[RankedDocument]
    written: int  # documents whose prior was stored (0 with --no-write)


# --- the graph ------------------------------------------------------------------------------------
def read_link_graph(graph: GraphReader, collection: str) -> nx.DiGraph:
    """The document link graph of ``collection`` (one read)."""
    return build_digraph(graph.read(Query.GRAPH_DOCUMENT_LINKS, {"collection": collection}))


def build_digraph(rows: Iterable[DocumentLinksRow]) -> nx.DiGraph:
    """A ``DiGraph`` from rows of ``document_links.cypher``: ``{id, title, links: [{target,
    links}]}``, nodes with ``title``, edges with ``weight`` = links."""
    digraph = nx.DiGraph()
    for row in rows:
        digraph.add_node(row["id"], title=row["title"])
        for link in row["links"]:
            digraph.add_edge(row["id"], link["target"], weight=int(link["links"]))
    return digraph


def export_graphml(digraph: nx.DiGraph, path: Path) -> Path:
    """Write ``digraph`` as GraphML (node attribute ``title``, edge attribute ``weight``);
    characters XML cannot carry are dropped from titles. Returns ``path``."""
    safe = nx.DiGraph()
    for node, data in digraph.nodes(data=True):
        safe.add_node(node, title=xml_safe(str(data.get("title", ""))))
    for source, target, data in digraph.edges(data=True):
        safe.add_edge(source, target, weight=int(data.get("weight", 1)))
    nx.write_graphml(safe, path)
    return path


def xml_safe(text: str) -> str:
    """``text`` without the characters XML 1.0 forbids."""
    return _NOT_XML.sub("", text)


# --- PageRank ------------------------------------------------------------------------------------
def pagerank(digraph: nx.DiGraph, damping: float = DEFAULT_DAMPING) -> dict[str, float]:
    """PageRank of every node, edge weights used (the formula and the handling of dangling nodes
    are in the module docstring); empty for an empty graph.

    Raises:
        InvalidInput: ``damping`` is not within (0, 1).
    """
    if not 0 < damping < 1:
        raise InvalidInput(f"The damping factor must be within (0, 1), got {damping}")
    if digraph.number_of_nodes() == 0:
        return {}
    scores = nx.pagerank(
        digraph,
        alpha=damping,
        tol=TOLERANCE,
        max_iter=iterations_bound(damping),
        weight="weight",
    )
    return {str(node): float(score) for node, score in scores.items()}


def iterations_bound(damping: float, tolerance: float = TOLERANCE) -> int:
    """Iterations after which power iteration has surely met networkx's stopping rule.

    Each iteration is a contraction of factor d in L1 (the Google matrix is stochastic), and the
    first change is at most 2 (two distributions), so the k-th change is at most 2·d^(k−1). The
    smallest k with 2·d^(k−1) < tol ≤ N·tol is ⌊log(tol/2) / log d⌋ + 2 (91 for d = 0.85), so
    ``networkx.PowerIterationFailedConvergence`` cannot happen, whatever d < 1 is asked for.
    """
    return math.floor(math.log(tolerance / 2) / math.log(damping)) + 2


def ranked(scores: Mapping[str, float]) -> list[tuple[int, str, float]]:
    """``(rank, id, score)`` by score, highest first (rank 1); equal scores by id."""
    order = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    return [(rank, node, score) for rank, (node, score) in enumerate(order, start=1)]


def summarise(
    digraph: nx.DiGraph,
    scores: Mapping[str, float],
    damping: float,
    written: int = 0,
    top: int = TOP,
) -> PageRankSummary:
    """The summary of a run: sizes, parameters and the ``top`` documents with their titles."""
    in_links = dict(digraph.in_degree(weight="weight"))
    return PageRankSummary(
        documents=digraph.number_of_nodes(),
        links=int(digraph.size(weight="weight")),
        edges=digraph.number_of_edges(),
        dangling=sum(1 for _, degree in digraph.out_degree() if degree == 0),
        damping=damping,
        tolerance=TOLERANCE,
        max_iterations=iterations_bound(damping),
        top=[
            RankedDocument(
                rank=rank,
                id=node,
                title=str(digraph.nodes[node].get("title", "")),
                score=score,
                in_links=int(in_links.get(node, 0)),
            )
            for rank, node, score in ranked(scores)[:top]
        ],
        written=written,
    )


def write_pagerank(
    graph: Graph, collection: str, scores: Mapping[str, float], batch: int = WRITE_BATCH
) -> int:
    """Store ``d.pagerank`` and ``d.pagerank_rank`` of every scored document of ``collection``
    in one transaction (all or none), ``batch`` documents per statement. Returns how many
    documents were updated."""
    rows = [{"id": node, "pagerank": score, "rank": rank} for rank, node, score in ranked(scores)]

    def work(tx: neo4j.ManagedTransaction) -> int:
        written = 0
        for start in range(0, len(rows), batch):
            parameters = {"scores": rows[start : start + batch], "collection": collection}
            row = single_in(tx, Query.GRAPH_SET_PAGERANK, parameters)
            written += row["written"] if row else 0
        return written

    return graph.write(work) if rows else 0


def run_pagerank(
    graph: Graph, collection: str, damping: float = DEFAULT_DAMPING, *, write: bool = True
) -> PageRankSummary:
    """Read ``collection``'s link graph, compute PageRank, store it as the documents' prior
    unless ``write`` is off, and summarise."""
    digraph = read_link_graph(graph, collection)
    scores = pagerank(digraph, damping)
    written = write_pagerank(graph, collection, scores) if write else 0
    return summarise(digraph, scores, damping, written)
