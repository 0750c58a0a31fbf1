"""A framework retriever's options: flat names of API 0.1 warn once, on the line that made the
retriever (not at each question, from inside the adapter), and a call's override of a group
changes only the fields it names, as the library's overrides do (docs/library.md)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest

from anchorgraph import library
from anchorgraph.adapters import graphrag, langchain, llamaindex
from anchorgraph.adapters.hits import run
from anchorgraph.library import Searcher
from anchorgraph.retrieval.options import SearchOptions

MakeRetriever = Callable[..., Any]
RETRIEVERS: dict[str, MakeRetriever] = {
    "langchain": langchain.AnchorgraphRetriever,
    "llamaindex": llamaindex.AnchorgraphRetriever,
    "graphrag": graphrag.AnchorgraphRetriever,
}


@pytest.fixture
def searcher(monkeypatch: pytest.MonkeyPatch) -> Searcher:
    """A searcher whose search hands back the options it was given (no graph: plumbing only)."""
    monkeypatch.setattr(library, "search", lambda context, options: options)
    settings = SimpleNamespace(neo4j_database="neo4j")
    return Searcher(runtime=SimpleNamespace(search=None, settings=settings))  # type: ignore[arg-type]


@pytest.mark.parametrize("framework", sorted(RETRIEVERS))
def test_flat_options_warn_once_on_the_line_that_made_the_retriever(
    framework: str, searcher: Searcher
) -> None:
    with pytest.warns(DeprecationWarning, match="expand → expand=ExpandOptions") as caught:
        retriever = RETRIEVERS[framework](searcher, expand=True, k=3)
    assert [w.filename for w in caught] == [__file__]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        asked: SearchOptions = run(searcher, "q", retriever.options, {})  # type: ignore[assignment]
    assert asked.expand.links and asked.k == 3 and asked.explain


def test_a_calls_override_of_a_group_keeps_the_retrievers_other_fields(
    searcher: Searcher,
) -> None:
    retriever = langchain.AnchorgraphRetriever(searcher, expand={"links": True, "top": 2})
    asked: SearchOptions = run(searcher, "q", retriever.options, {"expand": {"depth": 2}})  # type: ignore[assignment]
    assert (asked.expand.links, asked.expand.top, asked.expand.depth) == (True, 2, 2)
    assert asked.query == "q"
