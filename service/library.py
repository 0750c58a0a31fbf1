"""The library API for notebooks, scripts and framework adapters, without the HTTP server.

``open_search`` gives a read-only ``Searcher``; ``open_library`` a ``Library``, a searcher that
also adds, replaces and deletes documents. Each is one context manager that owns the runtime
(the connection and the model) and closes it on exit. A search takes the same ``SearchOptions``
the REST API validates, as an object or as keywords, and returns the same ``SearchResult``::

    from service import SearchOptions, open_library

    with open_library() as library:
        library.ingest("loaders/sample_corpus")
        result = library("who founded the museum?", level="document", k=3, explain=True)
        options = SearchOptions(query="who founded the museum?", mode="multisignal", k=3)
        for hit in library(options).hits:
            print(hit.rank, round(hit.score, 3), hit.title, hit.signals)

``docs/library.md`` has the full example (the test suite runs it).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from loaders.ingest import IngestStats
from loaders.model import SourceDocument
from loaders.read import read_bytes
from service.graph.gateway import Graph
from service.graph.schema import SchemaMode
from service.ingestion import read_all
from service.retrieval.context import SearchContext
from service.retrieval.pipeline import search
from service.retrieval.types import SearchOptions, SearchResult
from service.runtime import (
    EmbedderFactory,
    Runtime,
    default_embedder,
    open_runtime,
    startup_objects_frozen,
)
from service.settings import Settings


class Searcher:
    """Call it with a query and any ``SearchOptions`` field as a keyword, or with options (and
    keywords that override them); every keyword is validated by ``SearchOptions``."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    @property
    def context(self) -> SearchContext:
        return self.runtime.search

    @property
    def graph(self) -> Graph:
        """The graph, for reads the search does not make (a document, a neighbourhood)."""
        return self.runtime.graph

    def __call__(self, query: str | SearchOptions, **options: Any) -> SearchResult:
        return search(self.context, self.options(query, **options))

    @staticmethod
    def options(query: str | SearchOptions, **options: Any) -> SearchOptions:
        """The validated options of a call (raises pydantic's ``ValidationError``)."""
        if isinstance(query, SearchOptions):
            if not options:
                return query
            # Validated again: model_copy(update=...) would skip the field rules.
            return SearchOptions.model_validate({**query.model_dump(), **options})
        return SearchOptions.model_validate({**options, "query": query})


class Library(Searcher):
    """A searcher that also writes: ``add``, ``add_text``, ``ingest`` and ``delete`` go through
    the runtime's ``Ingestor``, so unchanged documents are skipped, a changed one is replaced
    whole and each batch is one transaction."""

    def add(self, documents: Iterable[SourceDocument]) -> IngestStats:
        """Add or replace documents (``SourceDocument``s, as ``read_all`` or a loader gives)."""
        return self.runtime.ingestor.ingest(list(documents))

    def add_text(
        self,
        id: str,
        text: str,
        *,
        format: str = "markdown",
        title: str = "",
        tags: Iterable[str] = (),
        source: str = "",
        source_type: str = "",
        folder: str = "",
    ) -> IngestStats:
        """Add or replace one document given as text, read as ``POST /documents`` reads it
        (``format``: text, markdown or html; the title taken from the text when empty).

        Raises:
            InvalidInput: no text is left after normalisation.
            UnsupportedFormat: ``format`` is not text, markdown or html.
            DocumentTooLarge: longer than ``ANCHORGRAPH_MAX_DOCUMENT_BYTES``.
        """
        document = read_bytes(
            text.encode("utf-8"),
            doc_id=id,
            fmt=format,
            title=title,
            source=source,
            source_type=source_type,
            folder=folder,
            tags=tags,
            max_bytes=self.runtime.settings.max_document_bytes,
        )
        return self.add([document])

    def ingest(
        self, path: Path | str, *, fmt: str | None = None, source_type: str = ""
    ) -> IngestStats:
        """Read a file or a folder tree (as ``anchorgraph ingest`` does) and add it; files no
        reader takes are listed in the stats' ``warnings``. Everything is read before anything
        is written, so a file that cannot be read fails the call with the graph unchanged."""
        documents, skipped = read_all(
            self.runtime.settings, Path(path), fmt=fmt, source_type=source_type
        )
        stats = self.add(documents)
        stats.warnings.extend(f"skipped {item.path}: {item.reason}" for item in skipped)
        return stats

    def delete(self, ids: Iterable[str]) -> int:
        """Remove documents by id (with their chunks and the entities nothing else mentions);
        returns how many existed."""
        return self.runtime.ingestor.delete(list(ids))


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
        yield Searcher(rt)


@contextmanager
def open_library(
    settings: Settings | None = None,
    *,
    embedder_factory: EmbedderFactory = default_embedder,
    gazetteer: Path | None = None,
) -> Iterator[Library]:
    """Connect, load the model, create the schema where it is missing, and search and write
    as often as needed; everything is closed on exit."""
    with (
        open_runtime(
            settings,
            schema=SchemaMode.APPLY,
            embedder_factory=embedder_factory,
            gazetteer=gazetteer,
        ) as rt,
        startup_objects_frozen(),
    ):
        yield Library(rt)
