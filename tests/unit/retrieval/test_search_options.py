"""What a search request resolves to: paths and weights per level; and which requests the model
refuses, in which words, with a JSON schema that says the same."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator
from pydantic import ValidationError

from anchorgraph.retrieval.options import FLAT_NAMES, Mode, SearchOptions, nested
from anchorgraph.retrieval.paths import DOCUMENT_PATHS
from anchorgraph.retrieval.paths.base import PathName
from anchorgraph.retrieval.stage_options import ExpandOptions, FdOptions, FeedbackOptions


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


def test_feedback_is_off_unless_asked_for() -> None:
    assert SearchOptions(query="q", level="document").feedback_documents() == 0
    assert SearchOptions(query="q").feedback_documents() == 0
    assert SearchOptions(query="q", mode=Mode.MULTISIGNAL).feedback_documents() == 0
    assert SearchOptions(query="q", feedback=5).feedback_documents() == 5
    assert SearchOptions(query="q", level="document", feedback=3).feedback_documents() == 3
    assert SearchOptions(query="q", level="document", feedback=None).feedback_documents() == 0


def test_feedback_needs_a_dense_path() -> None:
    with pytest.raises(ValueError, match="no dense or doc_dense path"):
        SearchOptions(query="q", mode=Mode.BM25, feedback=3)
    with pytest.raises(ValueError, match="no dense or doc_dense path"):
        SearchOptions(query="q", paths=[PathName.BM25, PathName.TFIDF], feedback=2)
    assert SearchOptions(query="q", mode=Mode.DENSE, feedback=2).feedback_documents() == 2


# --- what the model refuses, and the schema with it --------------------------------------------
def refusal(**options: Any) -> dict[str, Any]:
    """The one error of a request the model refuses, and the JSON schema refusing it too."""
    with pytest.raises(ValidationError) as raised:
        SearchOptions.model_validate(options)
    (error,) = raised.value.errors()
    schema = Draft202012Validator(SearchOptions.model_json_schema())
    assert not schema.is_valid(options), options
    return dict(error)


def test_a_query_needs_a_visible_character() -> None:
    """Whitespace and invisible characters alone rank every chunk on nothing (before: accepted).
    A query with a visible character is kept as sent."""
    for blank in (" ", "\t\n\r ", "\u00a0\u3000\u2028", "\u200b\u2060\ufeff\u00ad", "\x1c\x85"):
        error = refusal(query=blank)
        assert (error["type"], error["loc"]) == ("string_blank", ("query",)), blank
        assert error["msg"] == "String should hold a visible character, not only whitespace"
    for query in ("q", "  padded  ", "\u200bzero-width first", "é", "?"):
        assert SearchOptions(query=query).query == query


def test_the_query_bounds_are_counted_in_characters() -> None:
    """Before: "Value should have at most 4096 items after validation, not 21000"."""
    too_long = refusal(query="x" * 21_000)
    assert too_long["type"] == "string_too_long"
    assert too_long["msg"] == "String should have at most 4096 characters"
    assert SearchOptions(query="x" * 4096).query


@pytest.mark.parametrize("mode", list(Mode))
def test_an_empty_list_of_paths_is_refused_with_the_reason(mode: Mode) -> None:
    """Before: accepted, and every path ran as if the list had been left out."""
    error = refusal(query="q", mode=mode, paths=[])
    assert (error["type"], error["loc"]) == ("paths_empty", ("paths",))
    assert "at least one path" in error["msg"] and "leave paths out" in error["msg"]
    # Left out, or null, is every path of the level.
    assert SearchOptions(query="q", mode=mode).active_paths()
    assert SearchOptions(query="q", mode=mode, paths=None).active_paths()


# --- the request's shapes: grouped by stage (0.2), flat (0.1, deprecated) ----------------------
def test_each_stage_reads_its_own_group_and_a_group_left_out_keeps_its_defaults() -> None:
    options = SearchOptions(query="q", expand=ExpandOptions(links=True, depth=1))
    assert (options.expand.links, options.expand.depth) == (True, 1)
    assert options.expand.per_hit == ExpandOptions().per_hit
    assert options.fd == FdOptions() and options.feedback == FeedbackOptions()


def test_every_flat_name_lands_on_its_field_and_is_recorded() -> None:
    values = {
        "fusion": "rrf", "normalisation": "min_max", "weights": {"bm25": 2.0}, "rrf_k": 7,
        "confidence_exponent": 0.5, "feedback": 2, "feedback_weight": 0.7, "fd_rerank": True,
        "fd_lambda": 0.2, "fd_pool": 9, "expand": True, "bridge": True, "expand_depth": 1,
        "expand_top": 4, "expand_per_hit": 2, "expand_tokens": 99, "expand_threshold": 0.1,
        "expand_decay": 0.5, "expand_fd_weight": 0.3, "expand_query_weight": 0.4,
        "bridge_threshold": 0.05, "bridge_max_mentions": 7, "bridge_beside_links": True,
        "bridge_without_links": True,
        "expand_rank": True,
    }  # fmt: skip
    priors = {"fd_weight": 0.1, "pagerank_weight": 0.2, "walk_weight": 0.3}
    assert set(values) | set(priors) == set(FLAT_NAMES)
    for flat in (values, priors):
        request = {"query": "q", **flat}
        assert set(nested(request)[1]) == set(flat)
        options = SearchOptions.model_validate(request)
        for name, value in flat.items():
            group, field = FLAT_NAMES[name]
            assert getattr(getattr(options, group), field) == value, name


def test_the_flat_and_the_grouped_request_are_the_same_search() -> None:
    flat = SearchOptions.model_validate(
        {"query": "q", "expand": True, "expand_depth": 1, "fd_lambda": 0.3, "fusion": "max"}
    )
    grouped = SearchOptions.model_validate(
        {
            "query": "q",
            "expand": {"links": True, "depth": 1},
            "fd": {"weight": 0.3},
            "fusion": {"method": "max"},
        }
    )
    assert flat == grouped
    assert flat.model_dump() == grouped.model_dump()


def test_one_option_named_both_ways_takes_the_grouped_value() -> None:
    both = {"query": "q", "expand": {"depth": 1}, "expand_depth": 2, "expand_top": 4}
    options = SearchOptions.model_validate(both)
    assert (options.expand.depth, options.expand.top) == (1, 4)
    with pytest.raises(ValidationError, match="expand_depth: Input should be less than"):
        SearchOptions.model_validate({**both, "expand_depth": 9})  # checked all the same
    with pytest.raises(ValidationError, match="fd"):  # a group that is no group: refused
        SearchOptions.model_validate({"query": "q", "fd": [None, None], "fd_lambda": 0.1})
    with pytest.raises(ValidationError, match="fd"):
        SearchOptions.model_validate({"query": "q", "fd": None, "fd_lambda": 0.1})


def test_an_update_changes_a_group_field_by_field() -> None:
    options = SearchOptions(query="q", expand=ExpandOptions(links=True, depth=1))
    updated = options.updated({"expand": {"top": 3}, "fd_lambda": 0.2})
    assert (updated.expand.links, updated.expand.depth, updated.expand.top) == (True, 1, 3)
    assert updated.fd.weight == 0.2
    with pytest.raises(ValidationError):
        options.updated({"expand": {"depth": 9}})
