"""FastAPI dependencies: the runtime the app's lifespan opened, shared by every request, and
what the caller's key may do."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from anchorgraph.api.security import ACCESS_STATE
from anchorgraph.errors import Forbidden, NotFound
from anchorgraph.runtime import Runtime
from anchorgraph.scope import FULL_ACCESS, Access


def get_runtime(request: Request) -> Runtime:
    runtime: Runtime = request.app.state.runtime
    return runtime


def get_access(request: Request) -> Access:
    """The key's access (``anchorgraph.api.security``); every collection when no keys are set."""
    access: Access = getattr(request.state, ACCESS_STATE, FULL_ACCESS)
    return access


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]
AccessDep = Annotated[Access, Depends(get_access)]


def readable(access: Access, collection: str) -> str:
    """``collection`` if the caller may read it.

    Raises:
        NotFound: it may not: the answer a collection that does not exist gets too, so that a
            key learns nothing of collections it may not see.
    """
    if not access.can_read(collection):
        raise NotFound(f"No collection named {collection!r}.")
    return collection


def writable(access: Access, collection: str) -> str:
    """``collection`` if the caller may write it.

    Raises:
        Forbidden: it may read the collection but not write it.
        NotFound: it may neither (as for a collection that does not exist).
    """
    if access.can_write(collection):
        return collection
    if access.can_read(collection):
        raise Forbidden(f"This key may read collection {collection!r} but not write it.")
    raise NotFound(f"No collection named {collection!r}.")
