"""FastAPI dependencies: the runtime the app's lifespan opened, shared by every request, and
what the caller's key may do."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.routing import APIRoute

from anchorgraph.api.security import ACCESS_STATE
from anchorgraph.errors import Forbidden, NotFound, UnsupportedFormat
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


def json_bodies_only(request: Request) -> None:
    """Every route that reads a JSON body (a model parameter) refuses a body of another content
    type with 415, as ``POST /documents`` does, rather than with a 422 about a field it never
    read. Installed on the whole app (``anchorgraph.app``); a route without a body model, such
    as ``POST /documents``, reads its body itself and says what it takes.

    Raises:
        UnsupportedFormat: the request names a content type that is not JSON.
    """
    route = request.scope.get("route")
    if not isinstance(route, APIRoute) or route.body_field is None:
        return
    media_type = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if media_type and media_type != "application/json" and not media_type.endswith("+json"):
        raise UnsupportedFormat(
            f"{request.method} {route.path} takes a JSON body (application/json), not {media_type}."
        )
