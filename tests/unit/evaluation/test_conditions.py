"""The pure parts of the conditions: in-memory fusion, tokenisation, chunk → document mapping,
condition specs."""

from __future__ import annotations

import pytest

from anchorgraph import SearchOptions
from anchorgraph.evaluation import conditions
from anchorgraph.evaluation.conditions import (
    Ranked,
    Spec,
    best_chunk_per_document,
    expand,
    min_max_top,
    plain_hybrid_scores,
    rrf_scores,
    search_options,
    tokenize,
)
from anchorgraph.retrieval.defaults import DOCUMENT_PATH_WEIGHTS
from anchorgraph.retrieval.paths.base import PathName


def test_tokenisation_is_lowercase_word_runs() -> None:
    assert tokenize("IL-6 levels, in β-cells (n=12)!") == [
        "il", "6", "levels", "in", "β", "cells", "n", "12",
    ]  # fmt: skip


def test_min_max_over_a_sides_own_list() -> None:
    assert min_max_top([(0, 4.0), (1, 2.0), (2, 3.0)]) == {0: 1.0, 1: 0.0, 2: 0.5}
    assert min_max_top([(7, 0.3)]) == {7: 1.0}
    assert min_max_top([]) == {}


def test_plain_hybrid_sums_half_of_each_side_and_zero_for_a_missing_side() -> None:
    bm25 = [(0, 10.0), (1, 5.0), (2, 0.0)]
    dense = [(1, 0.9), (3, 0.5), (0, 0.1)]
    fused = dict(plain_hybrid_scores(bm25, dense))
    assert fused[0] == pytest.approx(0.5 * 1.0 + 0.5 * 0.0)
    assert fused[1] == pytest.approx(0.5 * 0.5 + 0.5 * 1.0)
    assert fused[3] == pytest.approx(0.5 * 0.5)  # not in the BM25 list
    assert fused[2] == 0.0
    assert [i for i, _ in plain_hybrid_scores(bm25, dense)][:2] == [1, 0]


def test_rrf_of_two_rankings() -> None:
    fused = dict(rrf_scores([(0, 9.0), (1, 8.0)], [(1, 0.9), (2, 0.8)], k=60))
    assert fused[1] == pytest.approx(1 / 62 + 1 / 61)
    assert fused[0] == pytest.approx(1 / 61)
    assert fused[2] == pytest.approx(1 / 62)


def test_chunks_map_to_documents_by_their_best_chunk() -> None:
    rows = [("d1", 0.5, "a b"), ("d2", 0.9, "c d e"), ("d1", 0.7, "f"), ("d3", 0.7, "")]
    assert best_chunk_per_document(rows) == [
        Ranked("d2", 0.9, 3),
        Ranked("d1", 0.7, 1),
        Ranked("d3", 0.7, 0),
    ]


def test_specs_expand_groups_and_keep_order() -> None:
    assert expand(["cosine,bm25", "bm25,plain-hybrid"]) == ["cosine", "bm25", "plain-hybrid"]
    assert expand(["ours"]) == [
        "cosine",
        "bm25",
        "tfidf",
        "hybrid",
        "multisignal",
        "fd-rerank",
        "hybrid+fd",
        "hybrid+fd-rerank",
        "hybrid+expand",
        "cosine+expand",
        "hybrid+bridge",
        "hybrid+expand+bridge",
        "hybrid+walk",
        "hybrid+walk+expand+bridge",
    ]
    assert "hybrid:z_score:mean" in expand(["fusions"])
    assert "hybrid:rrf" in expand(["fusions"])
    assert set(expand(["peers"])) == set(conditions.PEERS)
    assert {"plain-hybrid", "graphrag-vector", "hybrid"} <= set(expand(["all"]))


def test_overrides_become_search_options() -> None:
    options = search_options(
        {"k_over": "300", "paths": "dense+bm25", "weights": "bm25:0.5", "fusion": "rrf"}
    )
    assert options["k_over"] == 300
    assert options["paths"] == ["dense", "bm25"]
    assert options["weights"] == {"bm25": 0.5}
    assert options["fusion"] == "rrf"
    resolved = SearchOptions(query="q", level="document", **options).path_weights()
    assert resolved[PathName.BM25] == 0.5
    assert resolved[PathName.DENSE] == DOCUMENT_PATH_WEIGHTS[PathName.DENSE]  # defaults kept
    feedback = search_options({"feedback": "0", "feedback_weight": "0.5"})
    assert feedback == {"feedback": 0, "feedback_weight": 0.5}
    assert SearchOptions(query="q", level="document", **feedback).feedback_documents() == 0
    with pytest.raises(ValueError, match="unknown search option"):
        search_options({"colour": "blue"})


def test_every_condition_name_is_registered_and_every_group_holds_names() -> None:
    assert set(conditions.REGISTRY) == set(conditions.ConditionName)
    assert set(conditions.GROUPS) == set(conditions.Group)
    assert conditions.ConditionName.GRAPHRAG_HYBRID_LINEAR_UNIONALL not in expand(["all"])


def test_a_spec_is_a_name_and_its_overrides() -> None:
    spec = Spec.parse("hybrid@k_over=400; paths=dense+bm25")
    assert spec.name is conditions.ConditionName.HYBRID
    assert spec.overrides == {"k_over": "400", "paths": "dense+bm25"}
    assert spec.text == "hybrid@k_over=400; paths=dense+bm25"  # names the condition's results
    assert Spec.parse("plain-hybrid").overrides == {}
    with pytest.raises(ValueError, match="unknown condition 'hybrd'"):
        Spec.parse("hybrd@k_over=400")
    with pytest.raises(ValueError, match="is not key=value"):
        Spec.parse("hybrid@k_over")


def test_override_names_are_checked_against_the_enums() -> None:
    options = search_options({"paths": "dense+doc_bm25", "mode": "multisignal"})
    assert options["paths"] == [PathName.DENSE, PathName.DOC_BM25]
    assert all(isinstance(path, PathName) for path in options["paths"])
    with pytest.raises(ValueError, match="'dens'"):
        search_options({"weights": "dens:1"})
