"""anchorgraph: knowledge retrieval on Neo4j.

The public surface for notebooks and scripts. Names are imported lazily so that ``import service``
stays instant: torch, spaCy and the driver load only when used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from service.app import create_app
    from service.library import open_search
    from service.retrieval.types import SearchOptions, SearchResult
    from service.settings import Settings

__all__ = ["SearchOptions", "SearchResult", "Settings", "create_app", "open_search"]

_LAZY = {
    "create_app": "service.app",
    "open_search": "service.library",
    "SearchOptions": "service.retrieval.types",
    "SearchResult": "service.retrieval.types",
    "Settings": "service.settings",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'service' has no attribute {name!r}")
