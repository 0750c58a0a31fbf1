"""anchorgraph: knowledge retrieval on Neo4j, as a Python library (docs/library.md).

The public API is the names below; everything else is internal (``anchorgraph.engine`` is what the
evaluation and the benchmarks replay the engine with). Names are imported lazily so that
``import anchorgraph`` stays instant: torch, spaCy and the driver load only when used.

Searching and writing, each context manager owning one runtime::

    from anchorgraph import ExpandOptions, SearchOptions, open_library, open_search

    with open_search() as searcher:                      # read-only: a callable Searcher
        result = searcher("who founded the museum?", k=5)  # a SearchResult of Hits
    with open_library() as library:                      # a Library: a Searcher that writes
        library.add_text("notes/tour.md", "# Tours\\n\\nSaturdays at 11:00.", collection="mine")
        library(SearchOptions(query="tours", expand=ExpandOptions(links=True)))

* ``open_search``, ``open_library``: the context managers; ``Searcher``, ``Library``: what they
  yield.
* ``SearchOptions`` (what ``POST /search`` validates; keywords of a search are its fields),
  ``Filters`` (its ``filters``) and the options of the stages that have some:
  ``FusionOptions``, ``FeedbackOptions``, ``FdOptions``, ``ExpandOptions``; ``SearchResult``
  and ``Hit`` (what a search answers).
* ``SourceDocument`` (a document to add), ``read_all`` (a folder or file read into them, as
  ``anchorgraph ingest`` reads it), ``IngestStats`` (what a write did).
* ``Settings`` (every ``ANCHORGRAPH_*`` setting), ``open_runtime`` and ``Runtime`` (the
  connection, model and search context, built once: ``open_runtime(Settings())``),
  ``create_app`` (the FastAPI app, to mount: ``create_app(Settings())``).
* ``AnchorgraphError`` and the errors a caller handles: ``InvalidInput`` (a bad document or
  option, HTTP 400/422), ``NotFound`` (404), ``GraphUnavailable`` (Neo4j unreachable, 503).

Framework adapters are in ``anchorgraph.adapters`` (docs/adapters.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from anchorgraph.app import create_app as create_app
    from anchorgraph.errors import AnchorgraphError as AnchorgraphError
    from anchorgraph.errors import GraphUnavailable as GraphUnavailable
    from anchorgraph.errors import InvalidInput as InvalidInput
    from anchorgraph.errors import NotFound as NotFound
    from anchorgraph.ingestion import read_all as read_all
    from anchorgraph.library import Library as Library
    from anchorgraph.library import Searcher as Searcher
    from anchorgraph.library import open_library as open_library
    from anchorgraph.library import open_search as open_search
    from anchorgraph.loaders.ingest import IngestStats as IngestStats
    from anchorgraph.loaders.model import SourceDocument as SourceDocument
    from anchorgraph.retrieval.options import SearchOptions as SearchOptions
    from anchorgraph.retrieval.results import Hit as Hit
    from anchorgraph.retrieval.results import SearchResult as SearchResult
    from anchorgraph.retrieval.stage_options import ExpandOptions as ExpandOptions
    from anchorgraph.retrieval.stage_options import FdOptions as FdOptions
    from anchorgraph.retrieval.stage_options import FeedbackOptions as FeedbackOptions
    from anchorgraph.retrieval.stage_options import Filters as Filters
    from anchorgraph.retrieval.stage_options import FusionOptions as FusionOptions
    from anchorgraph.runtime import Runtime as Runtime
    from anchorgraph.runtime import open_runtime as open_runtime
    from anchorgraph.settings import Settings as Settings

# Where each public name lives; tests/unit/test_public_api.py checks that it names the same as
# the imports above, which give the names their types.
_LAZY = {
    "create_app": "anchorgraph.app",
    "AnchorgraphError": "anchorgraph.errors",
    "GraphUnavailable": "anchorgraph.errors",
    "InvalidInput": "anchorgraph.errors",
    "NotFound": "anchorgraph.errors",
    "read_all": "anchorgraph.ingestion",
    "Library": "anchorgraph.library",
    "Searcher": "anchorgraph.library",
    "open_library": "anchorgraph.library",
    "open_search": "anchorgraph.library",
    "IngestStats": "anchorgraph.loaders.ingest",
    "SourceDocument": "anchorgraph.loaders.model",
    "ExpandOptions": "anchorgraph.retrieval.stage_options",
    "FdOptions": "anchorgraph.retrieval.stage_options",
    "FeedbackOptions": "anchorgraph.retrieval.stage_options",
    "Filters": "anchorgraph.retrieval.stage_options",
    "FusionOptions": "anchorgraph.retrieval.stage_options",
    "Hit": "anchorgraph.retrieval.results",
    "SearchOptions": "anchorgraph.retrieval.options",
    "SearchResult": "anchorgraph.retrieval.results",
    "Runtime": "anchorgraph.runtime",
    "open_runtime": "anchorgraph.runtime",
    "Settings": "anchorgraph.settings",
}
__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'anchorgraph' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
