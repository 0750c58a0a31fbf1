"""The pure half of fitting a collection's weights: NDCG@10 as trec_eval counts it, the split
into fitted and held queries, the grid of factors, the choice, and which ranking a search uses."""

from __future__ import annotations

import random

import ir_measures
import pytest
from ir_measures import nDCG

from anchorgraph.retrieval.defaults import (
    CHUNK_PATH_WEIGHTS,
    DEFAULT_RANKING,
    DOCUMENT_PATH_WEIGHTS,
)
from anchorgraph.retrieval.options import SearchOptions
from anchorgraph.retrieval.paths.base import PathName
from anchorgraph.retrieval.tuning import (
    CollectionRanking,
    LevelFit,
    Scales,
    fit,
    grid,
    held_out,
    ndcg_at,
    ranking_for,
)
from anchorgraph.retrieval.values import Scope


def test_ndcg_at_10_is_trec_eval_s() -> None:
    rng = random.Random(7)
    documents = [f"d{i}" for i in range(40)]
    qrels, run = {}, {}
    for q in range(60):
        judged = rng.sample(documents, rng.randint(1, 8))
        qrels[f"q{q}"] = {doc: rng.choice([0, 1, 1, 2, 3]) for doc in judged}
        ranking = rng.sample(documents, 25)
        run[f"q{q}"] = {doc: float(25 - i) for i, doc in enumerate(ranking)}
    expected = {m.query_id: m.value for m in ir_measures.iter_calc([nDCG @ 10], qrels, run)}
    for query, judged in qrels.items():
        ranking = sorted(run[query], key=lambda doc: -run[query][doc])
        assert ndcg_at(ranking, judged) == pytest.approx(expected.get(query, 0.0), abs=1e-9)


def test_ndcg_counts_a_document_once_and_nothing_without_a_relevant_one() -> None:
    assert ndcg_at(["a", "a", "b"], {"a": 1, "b": 1}) == pytest.approx(1.0)
    assert ndcg_at(["a"], {"a": 0}) == 0.0


def test_the_held_part_is_fixed_by_the_queries_alone() -> None:
    queries = [f"question {i}" for i in range(20)]
    held = held_out(queries)
    assert len(held) == 6  # ceil(0.3 * 20)
    assert held == held_out(reversed(queries)) == held_out(queries + queries[:5])
    assert held <= set(queries)
    assert len(held_out(queries[:10])) == 3


def test_factors_scale_the_default_weights_by_family() -> None:
    assert Scales().weights("document") == DOCUMENT_PATH_WEIGHTS
    assert Scales().weights("chunk") == CHUNK_PATH_WEIGHTS
    lexical = Scales(dense=0.0, lexical=1.0, small=4.0).weights("document")
    assert lexical[PathName.DENSE] == lexical[PathName.DOC_DENSE] == 0.0
    assert lexical[PathName.DOC_BM25] == DOCUMENT_PATH_WEIGHTS[PathName.DOC_BM25]
    assert lexical[PathName.TFIDF] == pytest.approx(4 * DOCUMENT_PATH_WEIGHTS[PathName.TFIDF])
    assert Scales(lexical=3.0).weights("chunk")[PathName.BM25] == pytest.approx(0.9)


def test_the_grid_starts_at_the_defaults_and_reaches_either_side_alone() -> None:
    settings = grid()
    assert settings[0] == Scales()
    assert len(settings) == len(set(settings)) == 30
    assert Scales(dense=0.0) in settings and Scales(lexical=0.0) in settings


def test_fit_takes_the_best_setting_and_the_defaults_on_a_tie() -> None:
    judgments = {"q1": {"a": 1}, "q2": {"b": 1}}
    good = {"q1": ["a", "b"], "q2": ["b", "a"]}
    bad = {"q1": ["b", "a"], "q2": ["a", "b"]}
    lexical = Scales(dense=0.0)
    chosen = fit({Scales(): bad, lexical: good, Scales(small=0.0): bad}, judgments)
    assert chosen.scales == lexical
    assert (chosen.fit_default, chosen.fit_tuned) == (pytest.approx(0.6309, abs=1e-4), 1.0)
    tie = fit({Scales(lexical=5.0): good, Scales(): good}, judgments)
    assert tie.scales == Scales()


def _ranking() -> CollectionRanking:
    level = LevelFit(weights={PathName.BM25: 2.0}, scales={}, fit_default=0.1, fit_tuned=0.2,
                     held_default=0.1, held_tuned=0.2)  # fmt: skip
    fitted = "2026-12-02T10:00:00+00:00"
    return CollectionRanking(name="wiki/tuned-2026-12-02", chunk=level, document=level,
                             queries=10, held_queries=3, fitted=fitted)  # fmt: skip


def test_a_search_of_one_tuned_collection_uses_its_weights_unless_it_brings_its_own() -> None:
    plain = SearchOptions(query="q")
    tuned_scope = Scope(collections=("wiki",), ranking=_ranking())
    assert ranking_for(plain, Scope(collections=("wiki",))) == (DEFAULT_RANKING, plain)
    name, options = ranking_for(plain, tuned_scope)
    assert (name, options.fusion.weights) == ("wiki/tuned-2026-12-02", {PathName.BM25: 2.0})
    own = SearchOptions(query="q", weights={PathName.DENSE: 1.0})
    assert ranking_for(own, tuned_scope) == ("custom", own)
    dense = SearchOptions(query="q", mode="dense")
    assert ranking_for(dense, tuned_scope) == (DEFAULT_RANKING, dense)


@pytest.mark.parametrize(
    ("request_options", "expected"),
    [
        ({"level": "document", "fusion": "floor_sum"}, DEFAULT_RANKING),  # the level's own
        ({"level": "chunk", "fusion": "weighted_sum"}, DEFAULT_RANKING),
        ({"level": "document", "fusion": "weighted_sum"}, "custom"),
        ({"level": "chunk", "fusion": "rrf"}, "custom"),
        ({"level": "document", "normalisation": "z_score"}, "custom"),
        ({"level": "document", "normalisation": "l2"}, DEFAULT_RANKING),
        ({"level": "document", "confidence_exponent": 1.5}, DEFAULT_RANKING),  # the default
        ({"level": "document", "confidence_exponent": 0}, "custom"),
        ({"level": "chunk", "confidence_exponent": 0}, DEFAULT_RANKING),
        ({"level": "chunk", "confidence_exponent": 1}, "custom"),
    ],
)
def test_a_fusion_or_normalisation_of_ones_own_is_a_custom_ranking(
    request_options: dict[str, str], expected: str
) -> None:
    options = SearchOptions.model_validate({"query": "q", **request_options})
    assert ranking_for(options, Scope(collections=("wiki",)))[0] == expected
