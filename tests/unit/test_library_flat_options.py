"""The library still takes the flat option names of API 0.1 (``expand=True``), as ``POST
/search`` does, and says so as the REST API does with its ``Deprecation`` header: a
``DeprecationWarning`` on the caller's line naming each flat name's place in its group."""

from __future__ import annotations

import warnings

import pytest

from anchorgraph import ExpandOptions, SearchOptions
from anchorgraph.library import Searcher
from anchorgraph.retrieval.context import SearchContext
from anchorgraph.retrieval.stage_options import FdOptions


class SearchesNothing(Searcher):
    """A searcher with no graph: a call can only validate its options, then fail."""

    @property
    def context(self) -> SearchContext:
        raise LookupError("no graph here")


def test_flat_keywords_mean_their_grouped_options_and_warn_on_the_callers_line() -> None:
    with pytest.warns(DeprecationWarning) as caught:
        flat = Searcher.options("q", expand=True, fd_lambda=0.2)
    assert flat == Searcher.options("q", expand=ExpandOptions(links=True), fd=FdOptions(weight=0.2))
    (warning,) = caught
    assert warning.filename == __file__
    message = str(warning.message)
    assert "expand → expand=ExpandOptions(links=…)" in message
    assert "fd_lambda → fd=FdOptions(weight=…)" in message


def test_a_call_warns_on_the_callers_line_before_it_searches() -> None:
    with (
        pytest.warns(DeprecationWarning, match="bridge → expand=ExpandOptions") as caught,
        pytest.raises(LookupError),
    ):
        SearchesNothing(runtime=None)("q", bridge=True)  # type: ignore[arg-type]
    assert [w.filename for w in caught] == [__file__]


def test_grouped_keywords_and_options_objects_do_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        grouped = Searcher.options("q", expand={"links": True}, fd={"weight": 0.2}, k=3)
        updated = Searcher.options(SearchOptions(query="q", k=3), expand={"links": True})
    assert grouped.expand.links and updated.expand.links and grouped.fd.weight == 0.2
