"""Priors fused with the paths of a hybrid search: scores that say something about a candidate
whatever the query, each entering the fusion as one more scored list (normalised and weighted
like a path, ``stages.rank_candidates``'s ``signals``), so that it moves hits on the fusion's
own scale and finds no candidates of its own:

* ``fd`` (``fusion.fd_weight``): FD*_rescaled of the candidate, its chunk's at chunk level and its
  document's at document level (``anchorgraph.factual_density``; docs/design.md §3);
* ``pagerank`` (``fusion.pagerank_weight``): the PageRank of the candidate's document in the link
  graph (``anchorgraph graph pagerank`` writes it; ``anchorgraph.link_graph``);
* ``walk`` (``fusion.walk_weight``): the candidate's Personalized PageRank in the chunk–entity–link
  graph around the first ranking's top hits and the query's entities
  (``anchorgraph.retrieval.walk``; it depends on the query, unlike the other two).

A hit's FD* share is in its ``fd.contribution``; every prior's share in
``signal_contributions``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from anchorgraph.graph.queries import Query
from anchorgraph.retrieval.context import SearchRun
from anchorgraph.retrieval.fd_read import fd_scores, level_of
from anchorgraph.retrieval.options import Mode, SearchOptions
from anchorgraph.retrieval.results import FdScore
from anchorgraph.retrieval.stages import rank_candidates
from anchorgraph.retrieval.values import Ranked, Ranking
from anchorgraph.retrieval.walk import walk_scores

FD_SIGNAL = "fd"
PAGERANK_SIGNAL = "pagerank"
WALK_SIGNAL = "walk"


class FusedPriors:
    """The priors of the module docstring, fused with the paths."""

    name = "priors"

    def wanted(self, options: SearchOptions) -> bool:
        weighted = (
            options.fusion.fd_weight > 0
            or options.fusion.pagerank_weight > 0
            or options.fusion.walk_weight > 0
        )
        return weighted and options.mode is Mode.HYBRID

    def __call__(self, run: SearchRun, ranking: Ranking) -> Ranking:
        options = run.options
        # One chunk per candidate key: itself, or at document level one of the document's.
        shown = _representatives(ranking, options)
        signals: dict[str, dict[str, float]] = {}
        weights: dict[str, float] = {}
        fd_of: dict[str, FdScore] = {}
        if options.fusion.fd_weight > 0:
            scores = fd_scores(run.trace.read, list(shown.values()), level_of(options))
            fd_of = {key: scores[chunk] for key, chunk in shown.items() if chunk in scores}
            signals[FD_SIGNAL] = {key: fd.rescaled for key, fd in fd_of.items()}
            weights[FD_SIGNAL] = options.fusion.fd_weight
        if options.fusion.pagerank_weight > 0:
            signals[PAGERANK_SIGNAL] = _pageranks(run, ranking, options)
            weights[PAGERANK_SIGNAL] = options.fusion.pagerank_weight
        if options.fusion.walk_weight > 0:
            signals[WALK_SIGNAL] = walk_scores(run, ranking)
            weights[WALK_SIGNAL] = options.fusion.walk_weight
        hits = rank_candidates(
            ranking.found, options, signals=signals, signal_weights=weights, query=ranking.query
        )
        return replace(ranking, hits=[_with_fd(hit, fd_of, options) for hit in hits])


def _pageranks(run: SearchRun, ranking: Ranking, options: SearchOptions) -> dict[str, float]:
    """Candidate key → its document's PageRank."""
    owner = {
        (c.document_id if options.document_level else c.chunk_id): c.document_id
        for candidates in ranking.found.values()
        for c in candidates
    }
    rows = run.trace.read(Query.DOCUMENT_PRIORS, {"document_ids": sorted(set(owner.values()))})
    pagerank = {row["document_id"]: float(row["pagerank"]) for row in rows}
    return {key: pagerank.get(document, 0.0) for key, document in owner.items()}


def _representatives(ranking: Ranking, options: SearchOptions) -> dict[str, str]:
    shown: dict[str, str] = {}
    for candidates in ranking.found.values():
        for candidate in candidates:
            key = candidate.document_id if options.document_level else candidate.chunk_id
            shown.setdefault(key, candidate.chunk_id)
    return shown


def _with_fd(hit: Ranked, fd_of: Mapping[str, FdScore], options: SearchOptions) -> Ranked:
    fd = fd_of.get(hit.document_id if options.document_level else hit.chunk_id)
    if fd is None:
        return hit
    contribution = hit.signal_contributions.get(FD_SIGNAL, 0.0)
    return replace(hit, fd=fd.model_copy(update={"contribution": contribution}))
