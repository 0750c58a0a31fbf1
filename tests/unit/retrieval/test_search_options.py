"""What a search request resolves to: paths and weights per level."""

from __future__ import annotations

import pytest

from service.retrieval.types import DOCUMENT_PATHS, Mode, PathName, SearchOptions


def test_chunk_level_runs_no_document_path() -> None:
    options = SearchOptions(query="q")
    assert not DOCUMENT_PATHS & set(options.active_paths())
    assert not DOCUMENT_PATHS & set(options.path_weights())


def test_document_level_and_multisignal_run_every_path() -> None:
    for options in (SearchOptions(query="q", level="document"),
                    SearchOptions(query="q", mode=Mode.MULTISIGNAL)):  # fmt: skip
        assert set(options.active_paths()) == set(PathName)
        assert set(options.path_weights()) == set(PathName)


def test_a_partial_weight_map_keeps_the_other_defaults() -> None:
    default = SearchOptions(query="q", level="document").path_weights()
    options = SearchOptions(query="q", level="document", weights={PathName.BM25: 2.0})
    assert options.path_weights() == {**default, PathName.BM25: 2.0}
    # The levels differ: the document level hands most of BM25's share to whole documents.
    chunk = SearchOptions(query="q").path_weights()
    assert chunk[PathName.BM25] > default[PathName.BM25]


def test_document_paths_need_document_level() -> None:
    with pytest.raises(ValueError, match="level 'document'"):
        SearchOptions(query="q", paths=[PathName.DENSE, PathName.DOC_BM25])
    assert SearchOptions(query="q", level="document", paths=[PathName.DOC_BM25])


def test_feedback_defaults_to_hybrid_document_searches() -> None:
    assert SearchOptions(query="q", level="document").feedback_documents() == 3
    assert SearchOptions(query="q").feedback_documents() == 0  # chunk level: off
    assert SearchOptions(query="q", mode=Mode.MULTISIGNAL).feedback_documents() == 0
    lexical = SearchOptions(query="q", level="document", paths=[PathName.BM25, PathName.DOC_BM25])
    assert lexical.feedback_documents() == 0  # nothing dense to run again
    assert SearchOptions(query="q", feedback=5).feedback_documents() == 5
    assert SearchOptions(query="q", level="document", feedback=0).feedback_documents() == 0


def test_feedback_needs_a_dense_path() -> None:
    with pytest.raises(ValueError, match="no dense or doc_dense path"):
        SearchOptions(query="q", mode=Mode.BM25, feedback=3)
    with pytest.raises(ValueError, match="no dense or doc_dense path"):
        SearchOptions(query="q", paths=[PathName.BM25, PathName.TFIDF], feedback=2)
    assert SearchOptions(query="q", mode=Mode.DENSE, feedback=2).feedback_documents() == 2
