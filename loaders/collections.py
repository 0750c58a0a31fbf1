"""Collections as a whole: what each holds, and deleting one with everything in it.

A collection comes into being with its first document (``cypher/load/lock_collection.cypher``)
and goes with ``delete_collection``; ``anchorgraph.scope`` has the names and keys, and
``docs/collections.md`` the whole story.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from anchorgraph.errors import NotFound
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.queries import Query, statements
from anchorgraph.scope import collection_name


class CollectionInfo(BaseModel):
    """One collection and what it holds."""

    model_config = ConfigDict(frozen=True)

    name: str
    documents: int = Field(description="Documents in the collection.")
    chunks: int = Field(description="Their chunks.")
    entities: int = Field(description="Entities its documents mention.")
    created: datetime | None = None
    ranking: str | None = Field(
        None, description="Its own fusion weights (anchorgraph tune); None: the defaults."
    )


def list_collections(graph: Graph) -> list[CollectionInfo]:
    """Every collection, by name."""
    return graph.models(Query.LIST_COLLECTIONS, CollectionInfo)


def collection_info(graph: Graph, name: str) -> CollectionInfo:
    """The collection ``name``, with its counts.

    Raises:
        InvalidInput: ``name`` is not a collection name.
        NotFound: there is no such collection.
    """
    name = collection_name(name)
    held = next((info for info in list_collections(graph) if info.name == name), None)
    if held is None:
        raise NotFound(f"No collection named {name!r}.")
    return held


def delete_collection(graph: Graph, name: str) -> CollectionInfo:
    """Delete the collection ``name`` and everything in it (in batches: a deletion cut short is
    finished by calling this again); returns what it held.

    Raises:
        InvalidInput: ``name`` is not a collection name.
        NotFound: there is no such collection.
    """
    held = collection_info(graph, name)
    for statement in statements(Query.DELETE_COLLECTION):
        graph.run(statement, {"collection": held.name})
    return held
