"""A search as explicit stages: retrieve (filter, analyse, candidate paths) → fuse → ranking
stages (pseudo-relevance feedback, FD* fused as a signal, multi-signal document scoring, the
FD* rerank, threshold and top k; an expansion is one more in ``DEFAULT_STAGES``) → hydrate →
evidence (what speaks for each hit, and whether anything matches: ``evidence``).

Each stage is a function over typed values (``stages``) and gets its own timing entry; this
module only runs them in order. The maths stays in the pure functions of ``normalise``,
``fusion`` and ``scoring``; the paths are the thin classes of ``paths``.
"""

from __future__ import annotations

import time

from anchorgraph.retrieval.context import RankingStage, SearchContext, SearchRun, Trace
from anchorgraph.retrieval.density import FdRerank
from anchorgraph.retrieval.expansion import Expand, graph_parts
from anchorgraph.retrieval.fd_read import level_of
from anchorgraph.retrieval.options import SearchOptions
from anchorgraph.retrieval.priors import FusedPriors
from anchorgraph.retrieval.results import Hit, SearchResult, TokenAccount
from anchorgraph.retrieval.stages import (
    Cut,
    Feedback,
    MultiSignal,
    fuse_candidates,
    hydrate,
    retrieve,
    with_evidence,
)
from anchorgraph.retrieval.tuning import ranking_for
from anchorgraph.retrieval.values import DetectedEntity
from anchorgraph.scope import FULL_ACCESS, Access, local_id

__all__ = ["DEFAULT_STAGES", "SearchContext", "search"]

DEFAULT_STAGES: tuple[RankingStage, ...] = (
    Feedback(),
    FusedPriors(),
    MultiSignal(),
    FdRerank(),
    Cut(),
    Expand(),
)


def search(
    context: SearchContext, options: SearchOptions, access: Access = FULL_ACCESS
) -> SearchResult:
    """Run one search in the collections ``options`` names, or in every one ``access`` may
    read; see the module docstring for the stages.

    Raises:
        NotFound: a requested collection does not exist, or ``access`` may not read it.
    """
    started = time.perf_counter()
    trace = Trace(context.graph)
    retrieved = retrieve(context, options, trace, access)
    ranking_used, options = ranking_for(options, retrieved.scope)
    options = graph_parts(options, retrieved.scope)
    run = SearchRun(context, options, trace, retrieved.scope)
    with trace.stage("fuse"):
        ranking = fuse_candidates(retrieved, options)
    for stage in DEFAULT_STAGES if context.stages is None else context.stages:
        if stage.wanted(options) and ranking.hits:
            with trace.stage(stage.name):
                ranking = stage(run, ranking)
    with trace.stage("hydrate"):
        hits = hydrate(trace.read, ranking.hits, level_of(options), ranking.hydrated)
    with trace.stage("evidence"):
        hits = with_evidence(hits, ranking, options)
    return SearchResult(
        query=options.query,
        mode=options.mode,
        level="document" if options.document_level else "chunk",
        collections=list(retrieved.scope.collections),
        hits=hits,
        matched=any(hit.evidence is not None and hit.evidence.matched for hit in hits),
        entities=[_local_entity(entity) for entity in ranking.query.entities],
        identifiers=list(dict.fromkeys(map(local_id, ranking.query.identifiers))),
        identifiers_as_written={
            local_id(key): text for key, text in ranking.query.identifiers_as_written.items()
        },
        ranking=ranking_used,
        lexical_scale=round(ranking.lexical_scale, 4),
        candidates={str(path): len(candidates) for path, candidates in ranking.found.items()},
        feedback_documents=[local_id(key) for key in ranking.feedback_documents],
        tokens=token_account(hits) if options.expand.active else None,
        cut_short=list(ranking.cut_short),
        timings=trace.timings,
        round_trips=trace.round_trips,
        total_ms=round((time.perf_counter() - started) * 1000, 3),
    )


def _local_entity(entity: DetectedEntity) -> DetectedEntity:
    return entity.model_copy(update={"id": local_id(entity.id)})


def token_account(hits: list[Hit]) -> TokenAccount:
    """Tokens of the hits with their supporting chunks, of the hits alone, and of the hits with
    the whole text of every document the expansion reached, by links or bridges (each counted
    once)."""
    own = sum(hit.n_tokens for hit in {(h.collection, h.chunk_id): h for h in hits}.values())
    supporting = {(hit.collection, s.chunk_id): s for hit in hits for s in hit.supporting}
    documents = {(c, s.document_id): s.document_tokens for (c, _), s in supporting.items()}
    return TokenAccount(
        returned=own + sum(s.n_tokens for s in supporting.values()),
        without_expansion=own,
        parent_windows=own + sum(documents.values()),
    )
