"""/graph/neighbourhood: a result's neighbourhood in the graph, bounded, for visual exploration.

One read (``cypher/graph/neighbourhood.cypher``) gives the nodes within one or two hops of a
document or chunk over the content relationships, and the relationships between them. What goes
out is bounded: at most ``limit`` nodes; no embedding (the statement leaves them on the server,
and ``visible_properties`` drops any that would still come); strings cut to ``TEXT_CHARS``
characters and lists to ``LIST_ITEMS`` items.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, datetime, time
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, ConfigDict

from anchorgraph.api.deps import AccessDep, RuntimeDep
from anchorgraph.api.errors import problems
from anchorgraph.errors import NotFound
from anchorgraph.graph.gateway import Graph, row_values
from anchorgraph.graph.queries import Query as Cypher
from anchorgraph.graph.shards import index_labels
from anchorgraph.scope import COLLECTION_PATTERN, DEFAULT_COLLECTION, scoped

router = APIRouter(prefix="/graph", tags=["graph"])

TEXT_CHARS = 300
LIST_ITEMS = 50
CAPTION_CHARS = 80
# At depth 2, how many relationships each neighbour of the centre reads at most: a hub (the root
# folder, a common entity) costs this many rows, not its degree.
FANOUT = 1000
# What names a node in a picture, by label: the first of these properties that is not empty.
_CAPTIONS: dict[str, tuple[str, ...]] = {
    "Document": ("title", "id"),
    "Chunk": ("id",),
    "Entity": ("name", "id"),
    "Claim": ("text", "id"),
    "Folder": ("path", "name"),
    "Collection": ("name",),
    "Tag": ("name",),
    "Unresolved": ("key",),
}
_ANY_LABEL = ("title", "name", "id", "key", "path", "text")

Scalar = bool | int | float | str | datetime | date | time
Property = Scalar | list[Scalar]


class GraphNode(BaseModel):
    """A node: ``id`` is Neo4j's element id (unique in the answer; the stable key, such as a
    document's id, is among ``properties``)."""

    model_config = ConfigDict(frozen=True)

    id: str
    labels: list[str]
    caption: str
    properties: dict[str, Property]


class GraphRelationship(BaseModel):
    """A relationship between two nodes of the answer (``start`` → ``end``, element ids)."""

    model_config = ConfigDict(frozen=True)

    id: str
    type: str
    start: str
    end: str
    properties: dict[str, Property]


class Neighbourhood(BaseModel):
    """The nodes within ``depth`` hops of ``center`` (its element id), at most ``limit`` of them,
    and the relationships between them; ``truncated`` when more nodes were within reach."""

    model_config = ConfigDict(frozen=True)

    center: str
    nodes: list[GraphNode]
    relationships: list[GraphRelationship]
    truncated: bool


_EXAMPLE = {
    "center": "4:3bcc0d79:506",
    "nodes": [
        {
            "id": "4:3bcc0d79:506",
            "labels": ["Document"],
            "caption": "Aerograph AG-2048 wireless sensor",
            "properties": {"id": "climate/ag-2048.md", "folder": "climate", "n_tokens": 408},
        },
        {
            "id": "4:3bcc0d79:375",
            "labels": ["Chunk"],
            "caption": "climate/ag-2048.md#0",
            "properties": {"id": "climate/ag-2048.md#0", "ordinal": 0, "n_tokens": 171},
        },
    ],
    "relationships": [
        {
            "id": "5:3bcc0d79:900",
            "type": "HAS_CHUNK",
            "start": "4:3bcc0d79:506",
            "end": "4:3bcc0d79:375",
            "properties": {},
        }
    ],
    "truncated": True,
}


@router.get(
    "/neighbourhood/{node_id:path}",
    response_model=Neighbourhood,
    responses={
        200: {"content": {"application/json": {"example": _EXAMPLE}}},
        **problems(404, 422, 503),
    },
)
def get_neighbourhood(
    node_id: Annotated[
        str,
        Path(
            description="A document's or chunk's id within its collection.",
            examples=["climate/ag-2048.md"],
        ),
    ],
    runtime: RuntimeDep,
    access: AccessDep,
    collection: Annotated[
        str,
        Query(pattern=COLLECTION_PATTERN, description="Its collection.", examples=["sample"]),
    ] = DEFAULT_COLLECTION,
    depth: Annotated[
        int, Query(ge=1, le=2, description="Hops from the document or chunk.", examples=[1])
    ] = 1,
    limit: Annotated[
        int, Query(ge=1, le=500, description="Nodes, the centre included.", examples=[100])
    ] = 100,
) -> Neighbourhood:
    """The neighbourhood of a document or chunk (by id): nearest nodes first, then by how they
    were reached (reading order, links, claims and mentions, triples, tags, folders), and the
    relationships between them; properties without embeddings and with texts cut to 300
    characters. Nothing in it belongs to another collection (every relationship followed stays
    within one). 404 when no document or chunk of the collection has the id."""
    found = None
    if access.can_read(collection):
        found = neighbourhood(runtime.graph, collection, node_id, depth=depth, limit=limit)
    if found is None:
        raise NotFound(f"No document or chunk with id {node_id!r} in collection {collection!r}.")
    return found


def neighbourhood(
    graph: Graph, collection: str, node_id: str, *, depth: int = 1, limit: int = 100
) -> Neighbourhood | None:
    """The neighbourhood of ``node_id`` (a document or chunk id within ``collection``), or None
    when there is none. Node properties are as the graph stores them (ids are keys,
    ``collection/id``)."""
    parameters = {
        "id": scoped(collection, node_id),
        "depth": depth,
        "limit": limit,
        "fanout": FANOUT,
        "index_labels": list(index_labels()),
    }
    rows = graph.read(Cypher.GRAPH_NEIGHBOURHOOD, parameters)
    if not rows:
        return None
    # Temporal values made native; the embeddings the statement projected as null left out.
    row = row_values(rows[0])
    return Neighbourhood(
        center=row["center"],
        nodes=[_node(node) for node in row["nodes"]],
        relationships=[_relationship(relationship) for relationship in row["relationships"]],
        truncated=row["truncated"],
    )


def _node(node: Mapping[str, Any]) -> GraphNode:
    properties = visible_properties(node["properties"])
    labels = sorted(node["labels"])
    return GraphNode(
        id=node["id"], labels=labels, caption=caption(labels, properties), properties=properties
    )


def _relationship(relationship: Mapping[str, Any]) -> GraphRelationship:
    return GraphRelationship(
        id=relationship["id"],
        type=relationship["type"],
        start=relationship["start"],
        end=relationship["end"],
        properties=visible_properties(relationship["properties"]),
    )


def is_embedding(key: str) -> bool:
    """``embedding``, ``context_embedding`` and any other ``*_embedding`` property."""
    return key == "embedding" or key.endswith("_embedding")


def bounded(value: Any) -> Any:
    """A property value cut to size: a string to ``TEXT_CHARS`` characters, a list to
    ``LIST_ITEMS`` items (each bounded)."""
    if isinstance(value, str):
        return value[:TEXT_CHARS]
    if isinstance(value, list | tuple):
        return [bounded(item) for item in value[:LIST_ITEMS]]
    return value


def visible_properties(properties: Mapping[str, Any]) -> dict[str, Any]:
    """The properties shown: no embeddings, every value bounded, keys in order."""
    return {
        key: bounded(value)
        for key, value in sorted(properties.items())
        if not is_embedding(key) and value is not None
    }


def caption(labels: Sequence[str], properties: Mapping[str, Any]) -> str:
    """What to write on a node: by label (a document's title, else its id; an entity's name; a
    claim's text; …), the first non-empty of those properties, cut to ``CAPTION_CHARS``; the
    label when there is none."""
    keys = next((_CAPTIONS[label] for label in labels if label in _CAPTIONS), _ANY_LABEL)
    text = next((str(properties[key]) for key in keys if properties.get(key)), "")
    return text[:CAPTION_CHARS] or (labels[0] if labels else "")
