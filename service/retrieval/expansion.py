"""Hyperlink expansion (docs/design.md §4), the second pass of a search: after the ranking,
follow the top hits' links to the chunks they name, keep those the anchor context validates,
and attach them to their hit.

From each hit's chunk the ``LINKS_TO`` links are followed depth-first, up to ``expand_depth``
links away, with **one visited registry for the whole answer**: each chunk is integrated once, by
the first hit (in rank order) that reaches it, so cycles (A → B → A) end by themselves and no
two hits carry the same supporting chunk. A link lands on the chunk it names (a fragment link
on its heading's chunk) or, when it names a whole document, on that document's chunk closest to
the anchor context; it is kept only when its *validation*, 2·cos − 1 between that chunk and the
anchor context (the anchor text's sentence, embedded at ingest), reaches ``expand_threshold``
(0.2). Budgets bound the answer: ``expand_per_hit`` supporting chunks per hit and
``expand_tokens`` in all.

A supporting chunk that passed validation inherits (``inherited_score``)::

    s(child) = s(parent) × (1 − w + w·FD*_rescaled(anchor)) × γ

where the parent is the hit (or the supporting chunk one hop nearer), ``anchor`` the chunk
holding the link, FD*_rescaled ∈ [0, 1] its factual density (``service.factual_density``),
w = ``expand_fd_weight`` (0.25) and γ = ``expand_decay`` (0.95) per hop, so a chunk ``h`` links
away keeps at most γ^h of its hit's score. The anchor weight ``1 − w + w·FD*_rescaled`` is
increasing in FD* (for w > 0) and never below 1 − w: a link from a dense, well-sourced passage
is trusted more, but a sparse one still leads somewhere (factual density as the
anchor node's weight). The validation decides *whether* a chunk is kept, not how much it
inherits: multiplying the score by the cosine ranked second-hop passages lower.

How these were chosen, on the tune part of HotpotQA dev500 only (the fixed 70 %,
``evaluation.metrics.held_aside``; docs/benchmarks.md has the tables): gated beats × cos
(0.865 against 0.843–0.847, flat 0.843); then, with the gate, threshold 0.2 beats 0.3–0.5
(0.867 against 0.865, 0.857, 0.850; every value below 0.2 ties it) and w = 0.25 with γ = 0.95
(0.871) is the largest FD* weight within 0.001 of the best (w = 0.1, 0.871; w = 0.5 gives 0.869).

The database is read once for the whole answer, whatever the depth and the number of hits
(``cypher/expand/links_reached.cypher`` computes the levels inside one statement).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from service.graph.gateway import Row
from service.graph.queries import Query
from service.retrieval.context import SearchRun
from service.retrieval.fd_read import fd_score
from service.retrieval.types import LinkHop, Ranked, Ranking, SearchOptions, Supporting


def inherited_score(parent: float, anchor_fd: float, decay: float, fd_weight: float) -> float:
    """``s(parent) × (1 − fd_weight + fd_weight·anchor_fd) × decay`` (module docstring).

    Raises:
        ValueError: ``anchor_fd`` or ``fd_weight`` outside [0, 1].
    """
    if not 0.0 <= anchor_fd <= 1.0:
        raise ValueError(f"FD*_rescaled must be within [0, 1], got {anchor_fd!r}")
    if not 0.0 <= fd_weight <= 1.0:
        raise ValueError(f"the FD* weight must be within [0, 1], got {fd_weight!r}")
    return parent * (1.0 - fd_weight + fd_weight * anchor_fd) * decay


@dataclass(frozen=True)
class Edge:
    """A link out of a chunk, as ``links_reached.cypher`` gives it."""

    source_id: str
    href: str
    anchor_text: str
    landing_id: str
    landing_document_id: str
    landing_tokens: int
    document_tokens: int
    validation: float
    anchor_fd: float  # FD*_rescaled of the source chunk

    @classmethod
    def of(cls, row: Row) -> Edge:
        return cls(
            source_id=row["source_id"],
            href=row["href"] or "",
            anchor_text=row["anchor_text"] or "",
            landing_id=row["landing_id"],
            landing_document_id=row["landing_document_id"],
            landing_tokens=int(row["landing_tokens"] or 0),
            document_tokens=int(row["document_tokens"] or 0),
            validation=float(row["validation"]),
            anchor_fd=_anchor_fd(row["source_fd"], float(row["a_max"])),
        )


def _anchor_fd(node: Mapping[str, Any], a_max: float) -> float:
    """FD*_rescaled of a link's source chunk, as every hit's is computed (``fd_read``)."""
    source_type, a_source = str(node["source_type"]), float(node["a_source"])
    return fd_score(node, "chunk", source_type, a_source, a_max).rescaled


@dataclass(frozen=True)
class Budget:
    depth: int
    per_hit: int
    tokens: int
    threshold: float
    decay: float
    fd_weight: float

    @classmethod
    def of(cls, options: SearchOptions) -> Budget:
        return cls(
            depth=options.expand_depth,
            per_hit=options.expand_per_hit,
            tokens=options.expand_tokens,
            threshold=options.expand_threshold,
            decay=options.expand_decay,
            fd_weight=options.expand_fd_weight,
        )


def expand(
    hits: Sequence[tuple[str, float]], edges: Mapping[str, Sequence[Edge]], budget: Budget
) -> list[list[Supporting]]:
    """The supporting chunks of each hit (``(chunk_id, score)``, in rank order), by the rules of
    the module docstring. Deterministic: a chunk's links are tried by descending validation,
    then landing id; a node's valid links are claimed together, then the first is followed
    deeper before the next (depth-first)."""
    visited = {chunk_id for chunk_id, _ in hits}
    tokens_left = budget.tokens
    answer: list[list[Supporting]] = []
    for chunk_id, score in hits:
        found: list[Supporting] = []
        stack: list[tuple[str, float, tuple[LinkHop, ...]]] = [(chunk_id, score, ())]
        while stack and len(found) < budget.per_hit:
            node, node_score, path = stack.pop()
            if len(path) == budget.depth:
                continue
            claimed: list[tuple[str, float, tuple[LinkHop, ...]]] = []
            for edge in _ordered(edges.get(node, ())):
                if edge.landing_id in visited or edge.validation < budget.threshold:
                    continue
                if edge.landing_tokens > tokens_left or len(found) == budget.per_hit:
                    continue
                visited.add(edge.landing_id)
                tokens_left -= edge.landing_tokens
                hop = LinkHop(
                    from_chunk_id=node,
                    anchor_text=edge.anchor_text,
                    href=edge.href,
                    to_chunk_id=edge.landing_id,
                    validation=edge.validation,
                    anchor_fd=edge.anchor_fd,
                )
                child_score = inherited_score(
                    node_score, edge.anchor_fd, budget.decay, budget.fd_weight
                )
                found.append(
                    Supporting(
                        chunk_id=edge.landing_id,
                        document_id=edge.landing_document_id,
                        n_tokens=edge.landing_tokens,
                        document_tokens=edge.document_tokens,
                        hop=len(path) + 1,
                        score=child_score,
                        parent_score=node_score,
                        path=[*path, hop],
                    )
                )
                claimed.append((edge.landing_id, child_score, (*path, hop)))
            stack.extend(reversed(claimed))  # the first claimed is followed first
        answer.append(found)
    return answer


def _ordered(edges: Iterable[Edge]) -> list[Edge]:
    return sorted(edges, key=lambda edge: (-edge.validation, edge.landing_id, edge.href))


class Expand:
    """The expansion stage: read the links the hits reach, then ``expand`` (module docstring)."""

    name = "expand"

    def wanted(self, options: SearchOptions) -> bool:
        return options.expand

    def __call__(self, run: SearchRun, ranking: Ranking) -> Ranking:
        budget = Budget.of(run.options)
        seeds = ranking.hits[: run.options.expand_top]
        sources = list(dict.fromkeys(hit.chunk_id for hit in seeds))
        rows = run.trace.read(
            Query.EXPAND_LINKS,
            {"sources": sources, "depth": budget.depth, "threshold": budget.threshold},
        )
        edges: dict[str, list[Edge]] = {}
        for edge in map(Edge.of, rows):
            edges.setdefault(edge.source_id, []).append(edge)
        found = expand([(h.chunk_id, h.score) for h in seeds], edges, budget)
        expanded = [replace(hit, supporting=s) for hit, s in zip(seeds, found, strict=True)]
        hits = expanded + ranking.hits[len(seeds) :]
        if run.options.expand_rank:
            hits = ranked_with_supporting(hits, document_level=run.options.document_level)
        return replace(ranking, hits=hits)


def ranked_with_supporting(hits: list[Ranked], *, document_level: bool) -> list[Ranked]:
    """The hits and their supporting chunks in one ranking by score, each chunk (or document,
    at document level) once at the best score it has: a lower hit that a link reached moves up
    to the score it inherits when that is higher (its explanation is then the supporting entry
    under its parent); a supporting chunk keeps its place under its hit too."""
    extra = [
        Ranked(chunk_id=s.chunk_id, document_id=s.document_id, score=s.score, paths={})
        for hit in hits
        for s in hit.supporting
    ]
    best: dict[str, Ranked] = {}
    for hit in hits + extra:
        key = hit.document_id if document_level else hit.chunk_id
        known = best.get(key)
        if known is None or hit.score > known.score:
            best[key] = hit
    merged = list(best.values())
    merged.sort(key=lambda hit: -hit.score)  # stable: a hit stays before its ties
    return merged
