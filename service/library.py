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
from pathlib import Path
from typing import Any

from service.app import default_embedder, startup_objects_frozen
from service.graph.driver import connect
from service.graph.schema import apply_schema
from service.ingestion import load_extractor
from service.retrieval.pipeline import SearchContext, search
from service.retrieval.types import SearchOptions, SearchResult
from service.settings import Settings


class Searcher:
    """Call it with a query and any ``SearchOptions`` field as a keyword."""

    def __init__(self, context: SearchContext) -> None:
        self.context = context

    def __call__(self, query: str, **options: Any) -> SearchResult:
        return search(self.context, SearchOptions(query=query, **options))


@contextmanager
def open_search(
    settings: Settings | None = None, *, gazetteer: Path | None = None
) -> Iterator[Searcher]:
    """Connect, load the model and the entity pipeline once, and search as often as needed."""
    settings = settings or Settings()
    embedder = default_embedder(settings)
    with connect(settings) as driver:
        apply_schema(
            driver, settings.neo4j_database, embedder.dimension, settings.index_online_timeout_s
        )
        extractor = load_extractor(settings, gazetteer or settings.gazetteer)
        context = SearchContext(driver, embedder, extractor, settings.neo4j_database)
        try:
            with startup_objects_frozen():
                yield Searcher(context)
        finally:
            context.close()
