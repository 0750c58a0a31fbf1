"""anchorgraph: knowledge retrieval on Neo4j.

The public surface for notebooks and scripts. Names are imported lazily so that ``import service``
stays instant: torch, spaCy and the driver load only when used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from service.app import create_app
    from service.settings import Settings

__all__ = ["Settings", "create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from service.app import create_app

        return create_app
    if name == "Settings":
        from service.settings import Settings

        return Settings
    raise AttributeError(f"module 'service' has no attribute {name!r}")
