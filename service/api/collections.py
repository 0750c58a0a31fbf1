"""/collections: the collections a key may read, with what they hold, and deleting one."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path
from fastapi.concurrency import run_in_threadpool

from anchorgraph.api.deps import AccessDep, RuntimeDep, writable
from anchorgraph.api.errors import problems
from anchorgraph.api.schemas import CollectionOut
from anchorgraph.errors import NotFound
from anchorgraph.loaders.collections import delete_collection, list_collections
from anchorgraph.scope import COLLECTION_PATTERN

router = APIRouter(prefix="/collections", tags=["collections"])

_COLLECTIONS: list[dict[str, Any]] = [
    {
        "name": "sample",
        "documents": 12,
        "chunks": 31,
        "entities": 64,
        "created": "2026-12-02T10:00:00Z",
    }
]
_EXAMPLE: dict[str, Any] = {"content": {"application/json": {"example": _COLLECTIONS[0]}}}
CollectionPath = Annotated[
    str, Path(pattern=COLLECTION_PATTERN, description="A collection name.", examples=["wiki"])
]


@router.get(
    "",
    response_model=list[CollectionOut],
    responses={200: {"content": {"application/json": {"example": _COLLECTIONS}}}, **problems(503)},
)
def collections(runtime: RuntimeDep, access: AccessDep) -> list[CollectionOut]:
    """Every collection the key may read (all of them without keys), with its counts of
    documents, chunks and entities, by name."""
    return [
        CollectionOut.model_validate(info.model_dump())
        for info in list_collections(runtime.graph)
        if access.can_read(info.name)
    ]


@router.get(
    "/{name}",
    response_model=CollectionOut,
    responses={200: _EXAMPLE, **problems(404, 422, 503)},
)
def collection(name: CollectionPath, runtime: RuntimeDep, access: AccessDep) -> CollectionOut:
    """One collection with its counts (404 for one the key may not read, as for none)."""
    if access.can_read(name):
        for info in list_collections(runtime.graph):
            if info.name == name:
                return CollectionOut.model_validate(info.model_dump())
    raise NotFound(f"No collection named {name!r}.")


@router.delete(
    "/{name}",
    response_model=CollectionOut,
    responses={200: _EXAMPLE, **problems(403, 404, 422, 503)},
)
async def remove_collection(
    name: CollectionPath, runtime: RuntimeDep, access: AccessDep
) -> CollectionOut:
    """Delete a collection with every document, chunk and entity in it; answers what it held.
    The key must be allowed to write it."""
    writable(access, name)
    held = await run_in_threadpool(delete_collection, runtime.graph, name)
    runtime.search.sizes.forget()
    return CollectionOut.model_validate(held.model_dump())
