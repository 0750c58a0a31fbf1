"""The dense paths step back by the share of the query that is a code; the lexical paths follow
the dense path's confidence."""

from __future__ import annotations

import pytest

from anchorgraph.retrieval.defaults import DOCUMENT_PATH_WEIGHTS
from anchorgraph.retrieval.options import SearchOptions
from anchorgraph.retrieval.paths.base import PathName
from anchorgraph.retrieval.query_weights import (
    LEXICAL_PATH_NAMES,
    code_share,
    dense_confidence,
    is_code,
    lexical_scale,
    query_weights,
)
from anchorgraph.retrieval.stages import lexical_scale_of, rank_candidates
from anchorgraph.retrieval.values import AnalyzedQuery, Candidate
from anchorgraph.text.language import Language


def analysed(text: str, written: dict[str, str]) -> AnalyzedQuery:
    return AnalyzedQuery(
        text=text, fulltext=text, terms=[], identifier_candidates=list(written),
        entity_candidates=[], language=Language.ENGLISH, vector=[], identifiers=list(written),
        entities=[], identifiers_as_written=written,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("ZQ-4471-B", True), ("AG-2048", True), ("SN 123A", True),
        ("COVID-19", False), ("IL-6", False), ("2019", False), ("ALS", False), ("p53", False),
    ],
)  # fmt: skip
def test_a_code_is_letters_with_three_digits_or_more(text: str, code: bool) -> None:
    assert is_code(text) is code


def test_the_share_counts_the_words_of_the_codes_the_query_names() -> None:
    assert code_share(analysed("ZQ-4471-B", {"k": "ZQ-4471-B"})) == 1.0
    assert code_share(analysed("AG-2048 battery life", {"k": "AG-2048"})) == pytest.approx(1 / 3)
    assert code_share(analysed("ALS and diet", {"k": "ALS"})) == 0.0  # an acronym is a word
    assert code_share(analysed("SN 123A spare", {"k": "SN 123A"})) == pytest.approx(2 / 3)
    assert code_share(analysed("pump", {})) == 0.0


def test_only_the_dense_paths_step_back_and_by_the_share() -> None:
    third = query_weights(DOCUMENT_PATH_WEIGHTS, analysed("AG-2048 battery life", {"k": "AG-2048"}))
    for path, weight in DOCUMENT_PATH_WEIGHTS.items():
        dense = path in (PathName.DENSE, PathName.DOC_DENSE)
        assert third[path] == pytest.approx(weight * (2 / 3 if dense else 1.0))
    only_code = query_weights(DOCUMENT_PATH_WEIGHTS, analysed("ZQ-4471-B", {"k": "ZQ-4471-B"}))
    assert only_code[PathName.DENSE] == only_code[PathName.DOC_DENSE] == 0.0
    assert only_code[PathName.METADATA] == DOCUMENT_PATH_WEIGHTS[PathName.METADATA]
    assert query_weights(DOCUMENT_PATH_WEIGHTS, None) == DOCUMENT_PATH_WEIGHTS


def test_the_confidence_is_the_mean_of_the_ten_best_cosines() -> None:
    cosines = [0.1 * i for i in range(12)]  # 0.0 … 1.1, in no order that matters
    assert dense_confidence(reversed(cosines)) == pytest.approx(sum(cosines[2:]) / 10)
    assert dense_confidence([0.4, 0.6]) == pytest.approx(0.5)
    assert dense_confidence([]) is None


def test_the_lexical_scale_falls_as_the_confidence_rises_within_its_bounds() -> None:
    # m = clip(((1 − c) / 0.5)^a, 0.25, 4): 1 at the pivot, (0.6 / 0.5)^1.5 below it.
    assert lexical_scale(0.5, 1.5) == pytest.approx(1.0)
    assert lexical_scale(0.4, 1.5) == pytest.approx(1.2**1.5)
    scales = [lexical_scale(c / 20, 1.5) for c in range(-10, 21)]
    assert scales == sorted(scales, reverse=True)
    assert min(scales) == 0.25 and max(scales) == 4.0
    assert lexical_scale(0.9, 0.0) == lexical_scale(None, 1.5) == 1.0


def test_only_the_lexical_paths_follow_the_scale() -> None:
    scaled = query_weights(DOCUMENT_PATH_WEIGHTS, None, lexical=0.5)
    for path, weight in DOCUMENT_PATH_WEIGHTS.items():
        assert scaled[path] == pytest.approx(weight * (0.5 if path in LEXICAL_PATH_NAMES else 1))


def candidate(chunk: str, document: str, score: float) -> Candidate:
    return Candidate(chunk_id=chunk, document_id=document, score=score)


def test_a_confident_dense_path_shrinks_the_lexical_share_of_a_document_search() -> None:
    # Document level: each document by its best chunk; the first ten documents' mean is 0.8.
    dense = [candidate(f"c{i}", f"d{i}", 0.8) for i in range(10)]
    dense += [candidate("c0b", "d0", 0.79), candidate("far", "d99", -0.5)]
    found = {
        PathName.DENSE: dense,
        PathName.DOC_BM25: [candidate("c9", "d9", 12.0), candidate("c0", "d0", 3.0)],
    }
    options = SearchOptions(query="q", level="document", explain=True)
    expected = lexical_scale(0.8, 1.5)
    assert lexical_scale_of(found, options) == pytest.approx(expected) == pytest.approx(0.4**1.5)
    hits = {hit.document_id: hit for hit in rank_candidates(found, options)}
    off = {
        hit.document_id: hit
        for hit in rank_candidates(found, options.updated({"confidence_exponent": 0}))
    }
    lexical = str(PathName.DOC_BM25)
    share = hits["d9"].paths[lexical].contribution
    assert share == pytest.approx(off["d9"].paths[lexical].contribution * expected)
    for hit in hits.values():  # the parts still add up to the score
        assert sum(part.contribution for part in hit.paths.values()) == pytest.approx(hit.score)
    # Off at chunk level and outside hybrid searches unless asked for.
    assert lexical_scale_of(found, SearchOptions(query="q")) == 1.0
    assert lexical_scale_of(found, SearchOptions(query="q", level="document", mode="dense")) == 1.0
    asked = SearchOptions(query="q", confidence_exponent=1.0)
    assert lexical_scale_of(found, asked) == pytest.approx(0.4)  # chunk level: ten chunks at 0.8
