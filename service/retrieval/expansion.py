"""Expansion along the graph (docs/design.md §4), the second pass of a search: after the
ranking, follow the top hits' hops to the chunks they reach, keep those their context validates,
and attach them to their hit. Two kinds of hop, read together:

* **links** (``expand.links``): a ``LINKS_TO`` link lands on the chunk it names (a fragment link
  on its heading's chunk) or, when it names a whole document, on that document's chunk closest to
  the anchor context; its *validation* is 2·cos − 1 between that chunk and the anchor context
  (the anchor text's sentence, embedded at ingest).
* **entity bridges** (``expand.bridges``): an entity a hit's chunk mentions leads to another
  document's chunk that mentions it too. Only *specific* entities bridge: at most
  ``expand.bridge_max_mentions`` chunks, and at most √N of the collection's N, name them
  (``mention_bound``: a person, a work, a place named in a few passages; "United States" in
  hundreds never bridges). A bridge's validation is 2·cos − 1 between the landing chunk and the
  chunk it leaves (the context the entity was named in). Of several entities joining the same
  two chunks, the rarest names the hop. A chunk bridges only where none of its links is valid
  (unless ``expand.bridges_beside_links``): the author's own links come first, and where they
  exist bridges out of every hit crowd them out. Bridges
  leave the hits only, and a bridge's landing is a leaf (``reached.cypher`` says why).

From each hit's chunk the hops are followed depth-first, up to ``expand.depth`` hops away, with
**one visited registry for the whole answer**: each chunk is integrated once, by the first hit
(in rank order) that reaches it, so cycles (A → B → A) end by themselves and no two hits carry
the same supporting chunk. A hop is kept only when its validation reaches its kind's threshold
(``expand.threshold`` 0.2, ``expand.bridge_threshold`` 0.1). Budgets bound the answer:
``expand.per_hit`` supporting chunks per hit and ``expand.tokens`` in all.

A supporting chunk's score (``Budget.score``) combines what it inherits with its own similarity
to the question::

    s(child) = s(parent) × (1 − w + w·FD*_rescaled(anchor)) × γ × b × (1 − β + β·q(child))

where the parent is the hit (or the supporting chunk one hop nearer), ``anchor`` the chunk the
hop leaves, FD*_rescaled ∈ [0, 1] its factual density (``anchorgraph.factual_density``),
w = ``expand.fd_weight`` (0.25), γ = ``expand.decay`` (0.95) per hop, b = 1 for a link and
``bridge_weight`` = (1 − ln m / ln N)² for a bridge through an entity m of the N chunks name,
q(child) = (1 + cos)/2 ∈ [0, 1] of the child's chunk and the query vector (Neo4j's
``vector.similarity.cosine``) and β = ``expand.query_weight`` (0.5). Each factor is
non-decreasing in its part (strictly, for w, β > 0): a hop from a dense, well-sourced passage is
trusted more, a sparse one still leads somewhere (factual density as the anchor node's weight),
a rarer entity is a surer bridge, and of two chunks a hop reaches, the one closer to the
question scores higher. The validation decides *whether* a chunk is kept, not how much it
inherits: multiplying the score by the validation ranked second-hop passages lower.

How the link defaults were chosen, on the tune part of HotpotQA dev500 only (the fixed 70 %,
``anchorgraph.evaluation.metrics.held_aside``; docs/benchmarks.md, "The expansion", has the
tables): gated beats × cos (0.865 against 0.843–0.847, flat 0.843); then, with the gate,
threshold 0.2 beats 0.3–0.5 (0.867 against 0.865, 0.857, 0.850; every value below 0.2 ties it)
and w = 0.25 with γ = 0.95 (0.871) is the largest FD* weight within 0.001 of the best (w =
0.1, 0.871; w = 0.5 gives 0.869).
The bridge defaults (β, ``expand.bridge_threshold``, ``expand.bridge_max_mentions``, b,
bridging only where no link is valid) by replaying the hops collected for every question of the
tune parts of MuSiQue dev and HotpotQA dev500 (spaCy entities, title links) with the sum of their
NDCG@10 gains; the held parts are reported beside them (docs/benchmarks.md, "Bridges"). The
mention bound (12) on the tune parts of both sets with spaCy's entities and with names by
casing, each bound searched in turn per question.

The database is read once for the whole answer, whatever the depth, the kinds and the number of
hits (``cypher/expand/reached.cypher`` computes the levels inside one statement), and not at all
where the searched collections hold neither links nor entity mentions (``graph_parts``). The
same read hydrates the hits and every chunk a hop lands on (``Ranking.hydrated``), so the
hydration that follows makes no round trip of its own. Within
a request's deadline (``ANCHORGRAPH_REQUEST_DEADLINE_S``) the read may take ``EXPANSION_SHARE`` of
the time left: past that it is left to end on the server, and the search answers with its hits
unexpanded and says so (``cut_short``), rather than not at all.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from anchorgraph.errors import DeadlineExceeded
from anchorgraph.graph.deadline import Deadline, current, propagating, within
from anchorgraph.graph.queries import Query
from anchorgraph.graph.rows import HydratedChunk, ReachedHop, ReachedRow, ReachedSource
from anchorgraph.retrieval.context import SearchRun
from anchorgraph.retrieval.defaults import BRIDGE_FANOUT, DEFAULT_BRIDGE_THRESHOLD
from anchorgraph.retrieval.fd_read import fd_of
from anchorgraph.retrieval.options import SearchOptions
from anchorgraph.retrieval.results import EntityHop, Hop, LinkHop, Supporting
from anchorgraph.retrieval.values import Ranked, Ranking, Scope

# The share of a request's time left that the expansion's read may take: the hydration after it
# (one read by ids) has the rest, so that a search whose expansion would overrun the deadline
# still answers by it, unexpanded.
EXPANSION_SHARE = 0.5
# What a chunk placed by its inherited score shows as its score's one part (a hit's ``priors``),
# so that every hit's parts still add up to its score.
EXPANSION = "expansion"


def graph_parts(options: SearchOptions, scope: Scope) -> SearchOptions:
    """``options`` without the parts of the expansion the searched collections give nothing to:
    links where none holds a link, bridges where none holds an entity mention, and bridges where
    none holds a link unless ``expand.bridges_without_links`` (the default's rule, chosen on the
    dev corpora: bridges paid where a collection is linked, and cost a little where it is
    not). Where neither part is left the stage does not run, and the search makes no round trip
    for it."""
    expand = options.expand
    links = expand.links and scope.links
    bridges = expand.bridges and scope.mentions and (scope.links or expand.bridges_without_links)
    if (links, bridges) == (expand.links, expand.bridges):
        return options
    update = {"links": links, "bridges": bridges}
    return options.model_copy(update={"expand": expand.model_copy(update=update)})


def _reached(run: SearchRun, parameters: Mapping[str, Any]) -> ReachedRow | None:
    """The expansion's read, or None when it would take more than ``EXPANSION_SHARE`` of the
    time the request has left (a search without a deadline, the library's, waits for it).

    The read goes to Neo4j with that share as its timeout, and is waited for no longer, in a
    worker of the search's pool: Neo4j ends a statement past its timeout only between rows, and
    the expansion computes its levels inside one expression (``reached.cypher``), so a read of a
    huge neighbourhood would otherwise hold the answer until the expression ends. The abandoned
    read then ends on the server."""
    request = current()
    if request is None:
        (reached,) = run.trace.read(Query.EXPAND_REACHED, parameters)
        return reached
    share = Deadline(EXPANSION_SHARE * request.remaining())

    def read() -> ReachedRow:
        with within(share):
            (reached,) = run.trace.read(Query.EXPAND_REACHED, parameters)
            return reached

    future = run.context.executor.submit(propagating(read))
    try:
        return future.result(timeout=max(share.remaining(), 0.0))
    except (TimeoutError, DeadlineExceeded):
        return None


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


def bridge_weight(mentions: int, chunks: int) -> float:
    """``(1 − ln m / ln N)²`` for an entity that ``m`` of the collection's ``N`` chunks mention:
    IDF normalised to [0, 1] (``ln(N/m) / ln N``), squared. 1 for an entity only one chunk names
    (or N ≤ 2), falling as more chunks name it: m = 3 of 3,328 keeps 0.75, m = 20 keeps 0.40.
    """
    if chunks <= 2 or mentions <= 1:
        return 1.0
    specificity = 1.0 - math.log(min(mentions, chunks)) / math.log(chunks)
    return specificity * specificity


def mention_bound(max_mentions: int, chunks: int) -> int:
    """The most chunks that may mention a bridging entity: ``max_mentions``, and at most ⌊√N⌋
    of the collection's ``N`` chunks (IDF at least half its maximum, ``ln(N/m) ≥ ½·ln N``), so
    that in a small collection an entity most passages name never bridges; at least 2."""
    return max(2, min(max_mentions, math.isqrt(max(chunks, 0))))


def supporting_score(inherited: float, query_similarity: float, query_weight: float) -> float:
    """``inherited × (1 − β + β·q)`` with q = ``query_similarity`` ((1 + cos)/2, clipped to
    [0, 1]) and β = ``query_weight`` (module docstring): non-decreasing in both, and the
    inherited score itself when β = 0.

    Raises:
        ValueError: ``query_weight`` outside [0, 1].
    """
    if not 0.0 <= query_weight <= 1.0:
        raise ValueError(f"the query weight must be within [0, 1], got {query_weight!r}")
    own = min(1.0, max(0.0, query_similarity))
    return inherited * (1.0 - query_weight + query_weight * own)


@dataclass(frozen=True)
class Edge:
    """A hop out of a chunk, as ``reached.cypher`` gives it: a link or an entity bridge."""

    source_id: str
    landing_id: str
    landing_document_id: str
    landing_tokens: int
    validation: float
    anchor_fd: float  # FD*_rescaled of the source chunk
    query_similarity: float = 0.0  # (1 + cos)/2 of the landing chunk and the query
    kind: Literal["link", "entity"] = "link"
    href: str = ""
    anchor_text: str = ""  # the anchor text of a link, the entity's name for a bridge
    entity_id: str = ""
    mentions: int = 0  # chunks mentioning the bridge's entity
    weight: float = 1.0  # what the hop passes on: 1 for a link, ``bridge_weight`` for a bridge

    @classmethod
    def of(cls, hop: ReachedHop, source_id: str, anchor_fd: float, chunks: int) -> Edge:
        """One of a ``reached.cypher`` row's ``hops``, out of ``source_id`` (whose FD*_rescaled
        is ``anchor_fd``), in collections of ``chunks`` chunks."""
        kind: Literal["link", "entity"] = "entity" if hop["kind"] == "entity" else "link"
        mentions = int(hop["mentions"] or 0)
        return cls(
            kind=kind,
            source_id=source_id,
            href=hop["href"] or "",
            anchor_text=hop["anchor_text"] or "",
            entity_id=hop["entity_id"] or "",
            mentions=mentions,
            weight=bridge_weight(mentions, chunks) if kind == "entity" else 1.0,
            landing_id=hop["landing_id"],
            landing_document_id=hop["landing_document_id"],
            landing_tokens=int(hop["landing_tokens"] or 0),
            validation=float(hop["validation"]),
            query_similarity=float(hop["query_similarity"] or 0.0),
            anchor_fd=anchor_fd,
        )

    @classmethod
    def all_of(
        cls,
        sources: Iterable[ReachedSource],
        hydrated: Mapping[str, HydratedChunk],
        chunks: int,
    ) -> dict[str, list[Edge]]:
        """Each source chunk's hops, from ``reached.cypher``'s ``sources`` (an entry per source
        chunk), its FD*_rescaled from its hydration (``hydrated``, by chunk key: every chunk a
        hop leaves is a hit or a hop's landing, which the read hydrates), once for all its hops.
        A chunk the read did not hydrate (one without its document) leads nowhere."""
        edges: dict[str, list[Edge]] = {}
        for source in sources:
            source_id = source["source_id"]
            detail = hydrated.get(source_id)
            if detail is None:
                continue
            anchor_fd = fd_of(detail, "chunk").rescaled
            edges.setdefault(source_id, []).extend(
                cls.of(hop, source_id, anchor_fd, chunks) for hop in source["hops"]
            )
        return edges

    def hop(self, from_chunk_id: str) -> Hop:
        if self.kind == "entity":
            return EntityHop(
                from_chunk_id=from_chunk_id,
                entity_id=self.entity_id,
                entity=self.anchor_text,
                mentions=self.mentions,
                to_chunk_id=self.landing_id,
                validation=self.validation,
                anchor_fd=self.anchor_fd,
            )
        return LinkHop(
            from_chunk_id=from_chunk_id,
            anchor_text=self.anchor_text,
            href=self.href,
            to_chunk_id=self.landing_id,
            validation=self.validation,
            anchor_fd=self.anchor_fd,
        )


@dataclass(frozen=True)
class Budget:
    depth: int
    per_hit: int
    tokens: int
    threshold: float
    decay: float
    fd_weight: float
    query_weight: float = 0.0
    bridge_threshold: float = DEFAULT_BRIDGE_THRESHOLD
    bridges_beside_links: bool = False

    @classmethod
    def of(cls, options: SearchOptions) -> Budget:
        return cls(
            depth=options.expand.depth,
            per_hit=options.expand.per_hit,
            tokens=options.expand.tokens,
            threshold=options.expand.threshold,
            decay=options.expand.decay,
            fd_weight=options.expand.fd_weight,
            query_weight=options.expand.query_weight,
            bridge_threshold=options.expand.bridge_threshold,
            bridges_beside_links=options.expand.bridges_beside_links,
        )

    def valid(self, edge: Edge) -> bool:
        """Whether the hop's validation reaches its kind's threshold."""
        threshold = self.bridge_threshold if edge.kind == "entity" else self.threshold
        return edge.validation >= threshold

    def score(self, parent: float, edge: Edge) -> float:
        """What a chunk reached by ``edge`` from a node scoring ``parent`` scores."""
        inherited = inherited_score(parent, edge.anchor_fd, self.decay, self.fd_weight)
        return supporting_score(inherited * edge.weight, edge.query_similarity, self.query_weight)


def expand(
    hits: Sequence[tuple[str, float]], edges: Mapping[str, Sequence[Edge]], budget: Budget
) -> list[list[Supporting]]:
    """The supporting chunks of each hit (``(chunk_id, score)``, in rank order), by the rules of
    the module docstring. Deterministic: a chunk's hops are tried by descending score, then
    validation, landing id and what names the hop; a node's valid hops are claimed together,
    then the first is followed deeper before the next (depth-first)."""
    visited = {chunk_id for chunk_id, _ in hits}
    tokens_left = budget.tokens
    answer: list[list[Supporting]] = []
    for chunk_id, score in hits:
        found: list[Supporting] = []
        stack: list[tuple[str, float, tuple[Hop, ...]]] = [(chunk_id, score, ())]
        while stack and len(found) < budget.per_hit:
            node, node_score, path = stack.pop()
            if len(path) == budget.depth:
                continue
            claimed: list[tuple[str, float, tuple[Hop, ...]]] = []
            for edge, child_score in _ordered(
                _hops(edges.get(node, ()), budget), node_score, budget
            ):
                if edge.landing_id in visited or not budget.valid(edge):
                    continue
                if edge.landing_tokens > tokens_left or len(found) == budget.per_hit:
                    continue
                visited.add(edge.landing_id)
                tokens_left -= edge.landing_tokens
                hop = edge.hop(node)
                found.append(
                    Supporting(
                        chunk_id=edge.landing_id,
                        document_id=edge.landing_document_id,
                        n_tokens=edge.landing_tokens,
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


def _hops(edges: Sequence[Edge], budget: Budget) -> Sequence[Edge]:
    """A chunk's hops to try: its bridges only where none of its links is valid, unless the
    budget bridges beside links (module docstring)."""
    if budget.bridges_beside_links:
        return edges
    if any(edge.kind == "link" and budget.valid(edge) for edge in edges):
        return [edge for edge in edges if edge.kind == "link"]
    return edges


def _ordered(edges: Iterable[Edge], parent: float, budget: Budget) -> list[tuple[Edge, float]]:
    """``edges`` with the scores they pass on, best first; every tie is decided here (the read
    gives a chunk's hops in no order), and hops equal in every key are the same hop."""
    scored = [(edge, budget.score(parent, edge)) for edge in edges]
    return sorted(
        scored,
        key=lambda pair: (
            -pair[1],
            -pair[0].validation,
            pair[0].landing_id,
            pair[0].kind,
            pair[0].mentions,
            pair[0].href,
            pair[0].entity_id,
            pair[0].anchor_text,  # two links to one place from one chunk, in other words
        ),
    )


class Expand:
    """The expansion stage: read the hops the hits reach, then ``expand`` (module docstring)."""

    name = "expand"

    def wanted(self, options: SearchOptions) -> bool:
        return options.expand.links or options.expand.bridges

    def __call__(self, run: SearchRun, ranking: Ranking) -> Ranking:
        options = run.options
        budget = Budget.of(options)
        seeds = ranking.hits[: options.expand.top]
        sources = list(dict.fromkeys(hit.chunk_id for hit in seeds))
        parameters = {
            "sources": sources,
            "hits": list(dict.fromkeys(hit.chunk_id for hit in ranking.hits)),
            "depth": budget.depth,
            "threshold": budget.threshold,
            "bridge_threshold": options.expand.bridge_threshold,
            "links": options.expand.links,
            "entities": options.expand.bridges,
            "beside_links": budget.bridges_beside_links,
            "max_mentions": mention_bound(options.expand.bridge_max_mentions, run.scope.chunks),
            "fanout": BRIDGE_FANOUT * budget.per_hit,
            "vector": ranking.query.vector,
        }
        reached = _reached(run, parameters)
        if reached is None:  # the hits as they are, by the request's deadline
            return replace(ranking, cut_short=(*ranking.cut_short, self.name))
        hydrated = {chunk["chunk_id"]: chunk for chunk in reached["chunks"]}
        edges = Edge.all_of(reached["sources"], hydrated, run.scope.chunks)
        edges = allowed(edges, run.scope.documents)
        found = expand([(h.chunk_id, h.score) for h in seeds], edges, budget)
        expanded = [replace(hit, supporting=s) for hit, s in zip(seeds, found, strict=True)]
        hits = expanded + ranking.hits[len(seeds) :]
        if options.expand.rank:  # still k hits: a chunk a hop reached may take a hit's place
            ranked = ranked_with_supporting(hits, document_level=options.document_level)
            threshold = options.threshold
            hits = [h for h in ranked if threshold is None or h.score >= threshold][: options.k]
        return replace(ranking, hits=hits, hydrated=ranking.hydrated | hydrated)


def allowed(
    edges: Mapping[str, Sequence[Edge]], documents: frozenset[str] | None
) -> dict[str, list[Edge]]:
    """The hops that land in a document the search's filters allow (``documents``: their keys;
    None, every document): what a search returns, supporting chunks included, obeys its filters."""
    return {
        source: [
            edge for edge in hops if documents is None or edge.landing_document_id in documents
        ]
        for source, hops in edges.items()
    }


def ranked_with_supporting(hits: list[Ranked], *, document_level: bool) -> list[Ranked]:
    """The hits and their supporting chunks in one ranking by score, each chunk (or document,
    at document level) once at the best score it has: a lower hit that a link reached moves up
    to the score it inherits when that is higher (its score is then all the expansion's,
    ``EXPANSION``, and the supporting entry under its parent says which hop); a supporting chunk
    keeps its place under its hit too."""
    extra = [
        Ranked(
            chunk_id=s.chunk_id,
            document_id=s.document_id,
            score=s.score,
            paths={},
            signal_contributions={EXPANSION: s.score},
        )
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
