"""The registry of candidate paths: a module per path, and every list of paths derived from
their declarations (the weights, the families, the groups a search starts, the docs' table)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import get_type_hints

import pytest

from anchorgraph.retrieval.paths import (
    CHUNK_PATH_WEIGHTS,
    DENSE_PATHS,
    DOCUMENT_PATH_WEIGHTS,
    DOCUMENT_PATHS,
    LEXICAL_PATH_NAMES,
    LEXICAL_PATHS,
    PATHS,
    REGISTERED,
    SMALL_PATH_NAMES,
)
from anchorgraph.retrieval.paths.base import (
    DenseSearchPath,
    Family,
    Level,
    LexicalSearchPath,
    PathName,
    SearchPath,
)
from anchorgraph.retrieval.query_weights import query_weights
from anchorgraph.retrieval.tuning import Scales
from anchorgraph.retrieval.values import AnalyzedQuery, EmbeddedQuery, LexicalQuery

SEARCH_MD = Path(__file__).parents[3] / "docs" / "search.md"
READS = {LexicalSearchPath: LexicalQuery, DenseSearchPath: EmbeddedQuery, SearchPath: AnalyzedQuery}


def test_every_path_name_has_one_declared_path() -> None:
    assert sorted(path.name for path in REGISTERED) == sorted(PathName)
    assert PATHS.keys() == set(PathName)


@pytest.mark.parametrize("path", REGISTERED, ids=lambda path: str(path.name))
def test_a_paths_family_is_what_its_finder_reads(path: SearchPath) -> None:
    hints = get_type_hints(type(path.finder).retrieve)
    assert hints["query"] is READS[type(path)]


@pytest.mark.parametrize("path", REGISTERED, ids=lambda path: str(path.name))
def test_a_path_is_weighted_at_the_levels_it_ranks(path: SearchPath) -> None:
    assert path.weights.document is not None
    assert (path.weights.chunk is None) == (path.level is Level.DOCUMENT)
    assert (path.name in CHUNK_PATH_WEIGHTS) == (path.name not in DOCUMENT_PATHS)
    assert DOCUMENT_PATH_WEIGHTS[path.name] == path.weights.document


def test_the_groups_a_search_starts_follow_the_families() -> None:
    assert set(LEXICAL_PATHS) == LEXICAL_PATH_NAMES
    assert set(DENSE_PATHS) == {p.name for p in REGISTERED if p.family is Family.DENSE}


def test_tfidf_is_lexical_at_search_time_and_small_when_tuned() -> None:
    """TF-IDF reads the query's words and starts with BM25; its weight follows the dense path's
    confidence as BM25's does, while ``anchorgraph tune`` scales it with the small paths."""
    assert PathName.TFIDF in LEXICAL_PATHS and PathName.TFIDF in SMALL_PATH_NAMES
    scaled = query_weights(DOCUMENT_PATH_WEIGHTS, None, lexical=2.0)
    assert scaled[PathName.TFIDF] == 2 * DOCUMENT_PATH_WEIGHTS[PathName.TFIDF]
    assert scaled[PathName.BM25] == 2 * DOCUMENT_PATH_WEIGHTS[PathName.BM25]
    tuned = Scales(lexical=3.0, small=0.5).weights("document")
    assert tuned[PathName.TFIDF] == 0.5 * DOCUMENT_PATH_WEIGHTS[PathName.TFIDF]
    assert tuned[PathName.BM25] == 3.0 * DOCUMENT_PATH_WEIGHTS[PathName.BM25]


def test_the_docs_table_lists_every_path() -> None:
    text = SEARCH_MD.read_text(encoding="utf-8")
    listed = re.findall(r"^\| `(\w+)` \|", text.split("| path | how | Cypher |")[1], re.M)
    assert listed == [str(name) for name in PathName]
