"""FD* in a search: each hit's factual density read from the graph, the FD*-optimised rerank,
and (through ``priors``) FD* as a signal of the fusion.

The graph holds each chunk's and document's ``fd_raw`` and length bin, and each bin's running
statistics (``loaders/fd_stats.py``); FD* is computed here from them when a search reads it
(``anchorgraph.factual_density``), so it is always that of the corpus as it is now.

* ``FdRerank`` (docs/design.md §3): the top ``fd.pool`` hits scored again as
  ``(1 − λ)·score + λ·FD*_rescaled`` (with mode ``dense`` the score is the cosine; λ = 0.1
  and a pool of 20 by default). Hits below the
  pool keep their order at ``(1 − λ)·score``, as if their FD*_rescaled were 0, so they stay
  below every reranked hit.
* FD* as a signal of the fusion is one of the priors of ``priors.FusedPriors``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from anchorgraph.factual_density import fd_blend
from anchorgraph.retrieval.context import SearchRun
from anchorgraph.retrieval.fd_read import fd_scores, level_of
from anchorgraph.retrieval.options import SearchOptions
from anchorgraph.retrieval.results import FdScore
from anchorgraph.retrieval.values import Ranked, Ranking


class FdRerank:
    """The FD*-optimised rerank of the top ``fd.pool`` hits (module docstring)."""

    name = "fd rerank"

    def wanted(self, options: SearchOptions) -> bool:
        return options.fd.rerank

    def __call__(self, run: SearchRun, ranking: Ranking) -> Ranking:
        options = run.options
        pool, tail = ranking.hits[: options.fd.pool], ranking.hits[options.fd.pool :]
        scores = fd_scores(run.trace.read, [hit.chunk_id for hit in pool], level_of(options))
        return replace(ranking, hits=fd_reranked(pool, tail, scores, options.fd.weight))


def fd_reranked(
    pool: list[Ranked], tail: list[Ranked], scores: Mapping[str, FdScore], weight: float
) -> list[Ranked]:
    """``pool`` scored ``fd_blend(score, FD*_rescaled, weight)`` and sorted, then ``tail`` in
    its order at ``(1 − weight)·score``. A hit whose FD* could not be read counts 0.5 (the
    mean)."""
    reranked: list[Ranked] = []
    for hit in pool:
        fd = scores.get(hit.chunk_id)
        rescaled = fd.rescaled if fd is not None else 0.5
        explained = None
        if fd is not None:
            explained = fd.model_copy(
                update={"contribution": weight * rescaled, "reranked_from": hit.score}
            )
        reranked.append(
            replace(hit, score=fd_blend(hit.score, rescaled, weight), fd=explained or hit.fd)
        )
    reranked.sort(key=lambda hit: (-hit.score, hit.chunk_id))
    return reranked + [replace(hit, score=fd_blend(hit.score, 0.0, weight)) for hit in tail]
