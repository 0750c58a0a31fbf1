"""One-call search for notebooks and scripts, without the HTTP server.

from service import open_search

with open_search() as search:
    result = search("who directed the museum in the 1970s?", mode="multisignal", k=5)
    for hit in result.hits:
        print(hit.rank, round(hit.score, 3), hit.title, hit.signals)
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from service.graph.schema import SchemaMode
from service.retrieval.context import SearchContext
from service.retrieval.pipeline import search
from service.retrieval.types import SearchOptions, SearchResult
from service.runtime import EmbedderFactory, default_embedder, open_runtime, startup_objects_frozen
from service.settings import Settings


class Searcher:
    """Call it with a query and any ``SearchOptions`` field as a keyword, or with options."""

    def __init__(self, context: SearchContext) -> None:
        self.context = context

    def __call__(self, query: str | SearchOptions, **options: Any) -> SearchResult:
        if isinstance(query, SearchOptions):
            if options:  # validated again: model_copy(update=...) would skip the field rules
                query = SearchOptions.model_validate({**query.model_dump(), **options})
            return search(self.context, query)
        return search(self.context, SearchOptions(query=query, **options))


@contextmanager
def open_search(
    settings: Settings | None = None, *, embedder_factory: EmbedderFactory = default_embedder
) -> Iterator[Searcher]:
    """Connect and load the model once, and search as often as needed. Read-only: the schema
    is verified, never changed."""
    with (
        open_runtime(settings, schema=SchemaMode.VERIFY, embedder_factory=embedder_factory) as rt,
        startup_objects_frozen(),
    ):
        yield Searcher(rt.search)
