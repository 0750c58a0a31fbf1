"""The dense paths step back by the share of the query that is a code."""

from __future__ import annotations

import pytest

from service.retrieval.query_weights import code_share, is_code, query_weights
from service.retrieval.types import DOCUMENT_PATH_WEIGHTS, AnalyzedQuery, Language, PathName


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
