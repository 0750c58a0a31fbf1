"""Personalized PageRank over the chunk–entity–link graph around the top hits, fused as a prior
(``fusion.walk_weight``; ``priors.FusedPriors``).

The idea is HippoRAG 2's (Gutiérrez et al., 2025, "From RAG to Memory", arXiv:2502.14802): a
random walk that restarts at the question's own nodes reaches passages joined to them through
the entities they share, which is where multi-hop answers lie. HippoRAG builds its entity graph
with an LLM; here it is the graph ingestion already wrote without one, ``(:Chunk)-[:MENTIONS]->
(:Entity)`` and ``LINKS_TO``, read in one statement (``cypher/walk/neighbourhood.cypher``), with
the entities the bridges may cross only (``expansion.mention_bound``: a common entity would join
everything to everything).

The walk (``personalized_pagerank``) is the stationary distribution of::

    p = (1 − d)·r + d·P·p

over the undirected subgraph, where P moves from a node to one of its neighbours uniformly
(a node without neighbours sends its mass back to r), r is the restart distribution (the seeds,
each in proportion to its weight, summing to 1) and d the damping (0.5, HippoRAG's). Seeds: the
first ranking's top ``expand.top`` chunks, weighted by their fused score, and the entities the
query names, each at the seeds' mean weight. A candidate's walk score is its chunk's p (at
document level, its best chunk's); the fusion normalises it like a path.

Deterministic (the nodes in a fixed order, power iteration from r) and bounded: at most
``WALK_EDGE_LIMIT`` edges, ``WALK_ITERATIONS`` iterations.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from anchorgraph.graph.queries import Query
from anchorgraph.retrieval.context import SearchRun
from anchorgraph.retrieval.expansion import mention_bound
from anchorgraph.retrieval.options import SearchOptions
from anchorgraph.retrieval.values import Ranking

WALK_DAMPING = 0.5
WALK_ITERATIONS = 50
WALK_TOLERANCE = 1e-8
WALK_EDGE_LIMIT = 20_000


def personalized_pagerank(
    edges: Iterable[tuple[str, str]],
    seeds: Mapping[str, float],
    damping: float = WALK_DAMPING,
    iterations: int = WALK_ITERATIONS,
    tolerance: float = WALK_TOLERANCE,
) -> dict[str, float]:
    """``p = (1 − d)·r + d·P·p`` over the undirected graph of ``edges`` (module docstring), by
    power iteration from ``r``, stopping after ``iterations`` or when the L1 change falls
    below ``tolerance``. Seeds outside the graph are nodes of their own; non-positive seed
    weights are ignored. Returns every node's p (summing to 1); {} without a positive seed.

    Raises:
        ValueError: ``damping`` outside [0, 1).
    """
    if not 0.0 <= damping < 1.0:
        raise ValueError(f"the damping must be within [0, 1), got {damping!r}")
    neighbours: dict[str, set[str]] = {}
    for a, b in edges:
        if a != b:
            neighbours.setdefault(a, set()).add(b)
            neighbours.setdefault(b, set()).add(a)
    total = sum(weight for weight in seeds.values() if weight > 0)
    if total <= 0:
        return {}
    restart = {node: weight / total for node, weight in seeds.items() if weight > 0}
    nodes = sorted(set(neighbours) | set(restart))
    ordered = {node: sorted(neighbours.get(node, ())) for node in nodes}
    p = {node: restart.get(node, 0.0) for node in nodes}
    for _ in range(iterations):
        walked = dict.fromkeys(nodes, 0.0)
        stranded = 0.0
        for node in nodes:
            around = ordered[node]
            if not around:
                stranded += p[node]
                continue
            share = p[node] / len(around)
            for other in around:
                walked[other] += share
        following = {
            node: (1 - damping + damping * stranded) * restart.get(node, 0.0)
            + damping * walked[node]
            for node in nodes
        }
        change = sum(abs(following[node] - p[node]) for node in nodes)
        p = following
        if change < tolerance:
            break
    return p


def walk_scores(run: SearchRun, ranking: Ranking) -> dict[str, float]:
    """Candidate key (chunk id, or document id at document level) → its walk score."""
    options: SearchOptions = run.options
    seeds = {hit.chunk_id: max(hit.score, 0.0) for hit in ranking.hits[: options.expand.top]}
    entities = [entity.id for entity in ranking.query.entities]
    rows = run.trace.read(
        Query.WALK_NEIGHBOURHOOD,
        {
            "chunks": list(seeds),
            "entities": entities,
            "max_mentions": mention_bound(options.expand.bridge_max_mentions, run.scope.chunks),
            "limit": WALK_EDGE_LIMIT,
        },
    )
    mean_seed = sum(seeds.values()) / len(seeds) if seeds else 0.0
    restart = {_chunk(key): weight for key, weight in seeds.items()}
    restart.update({_entity(key): mean_seed for key in entities})
    edges = [
        (
            _chunk(row["source"]),
            _entity(row["target"]) if row["kind"] == "mentions" else _chunk(row["target"]),
        )
        for row in rows
    ]
    p = personalized_pagerank(edges, restart)
    scores: dict[str, float] = {}
    for candidates in ranking.found.values():
        for candidate in candidates:
            key = candidate.document_id if options.document_level else candidate.chunk_id
            score = p.get(_chunk(candidate.chunk_id), 0.0)
            scores[key] = max(scores.get(key, 0.0), score)
    return scores


def _chunk(chunk_id: str) -> str:
    return f"chunk:{chunk_id}"


def _entity(entity_id: str) -> str:
    return f"entity:{entity_id}"
