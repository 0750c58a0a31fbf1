"""FD* in a search, without a database: FD* from the graph's bin statistics, the rerank of the
pool and its tail, and the options that ask for them."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from anchorgraph.factual_density import BinStats, fd_star, rescale
from anchorgraph.retrieval.density import fd_reranked
from anchorgraph.retrieval.fd_read import fd_score
from anchorgraph.retrieval.options import SearchOptions
from anchorgraph.retrieval.results import FdScore
from anchorgraph.retrieval.values import Ranked

STATS = BinStats.of([0.01, 0.02, 0.03, 0.04])


def node(fd_raw: float, bin_: str | None = "short") -> dict[str, object]:
    return {
        "fd_raw": fd_raw,
        "n_tokens": 100,
        "n_claims": 2,
        "bin": bin_,
        "n": STATS.n if bin_ else None,
        "total": STATS.total if bin_ else None,
        "total_sq": STATS.total_sq if bin_ else None,
    }


def test_fd_score_is_the_z_score_in_the_bin_times_authority() -> None:
    score = fd_score(node(0.04), "chunk", "systematic_review", 1.5, 2.0)
    assert score.bin_mean == pytest.approx(0.025)
    assert score.z == pytest.approx((0.04 - 0.025) / STATS.sd)
    assert score.fd_star == pytest.approx(fd_star(0.04, STATS, 1.5))
    assert score.rescaled == pytest.approx(rescale(score.z, 1.5, 2.0))
    assert score.rescaled == pytest.approx(0.75 * rescale(score.z))
    assert score.source_type == "systematic_review" and score.length_bin == "short"


def test_an_unbinned_node_has_no_fd_star_and_the_neutral_rescaled_value() -> None:
    score = fd_score(node(0.04, None), "document", "", 1.0)
    assert score.fd_star is None and score.z is None and score.bin_sd is None
    assert score.rescaled == 0.5


def fd(rescaled: float) -> FdScore:
    return fd_score(node(0.025), "chunk", "", 1.0).model_copy(update={"rescaled": rescaled})


def hit(chunk_id: str, score: float) -> Ranked:
    return Ranked(chunk_id=chunk_id, document_id=chunk_id, score=score, paths={})


def test_the_rerank_blends_the_pool_and_keeps_the_tail_below_it() -> None:
    pool = [hit("long", 0.70), hit("dense", 0.62), hit("mid", 0.60)]
    tail = [hit("t1", 0.59), hit("t2", 0.40)]
    scores = {"long": fd(0.10), "dense": fd(0.95), "mid": fd(0.50)}
    ranked = fd_reranked(pool, tail, scores, 0.5)
    assert [h.chunk_id for h in ranked] == ["dense", "mid", "long", "t1", "t2"]
    first = ranked[0]
    assert first.score == pytest.approx(0.5 * 0.62 + 0.5 * 0.95)
    assert first.fd is not None and first.fd.reranked_from == 0.62
    # The breakdown adds up: score = (1 − λ)·before + contribution.
    assert first.score == pytest.approx(0.5 * first.fd.reranked_from + first.fd.contribution)
    assert ranked[3].score == pytest.approx(0.5 * 0.59)  # the tail as if FD*_rescaled were 0
    assert min(h.score for h in ranked[:3]) > max(h.score for h in ranked[3:])


def test_lambda_zero_keeps_the_order_and_one_sorts_by_fd_alone() -> None:
    pool = [hit("a", 0.9), hit("b", 0.8), hit("c", 0.7)]
    scores = {"a": fd(0.2), "b": fd(0.9), "c": fd(0.5)}
    assert [h.chunk_id for h in fd_reranked(pool, [], scores, 0.0)] == ["a", "b", "c"]
    assert [h.chunk_id for h in fd_reranked(pool, [], scores, 1.0)] == ["b", "c", "a"]


def test_options_bound_the_fd_fields_and_keep_fd_weight_to_hybrid() -> None:
    with pytest.raises(ValidationError):
        SearchOptions(query="q", fd_lambda=1.5)
    with pytest.raises(ValidationError):
        SearchOptions(query="q", fd_pool=0)
    with pytest.raises(ValidationError, match=r"signal_weights\.fd"):
        SearchOptions(query="q", mode="multisignal", fd_weight=0.2)
    assert 0 < SearchOptions(query="q", mode="dense", fd_rerank=True).fd.weight <= 0.5
