"""The MCP server of ``anchorgraph mcp`` (the ``mcp`` extra): anchorgraph as tools an agent calls.

Tools, each answering with a typed model (structured content, and its JSON as text):

* ``search``: every ``SearchOptions`` field as an argument (validated as ``POST /search``
  validates them), the ``SearchResult`` with each hit's score breakdown (``explain`` is on by
  default here: an agent should see why a hit ranks where it does);
* ``get_document``: a document with its chunks, links and entities (``GET /documents/{id}``);
* ``neighbourhood``: a document's or chunk's neighbourhood (``GET /graph/neighbourhood/{id}``);
* ``explain_fd``: FD* of a document and of each of its chunks (or of one chunk), with what it
  was computed from.

Over stdio (the default, for a desktop agent that spawns it) or streamable HTTP. It is
read-only: the schema is verified, never changed, and no tool writes.
"""

from __future__ import annotations

import inspect
from typing import Annotated, Any, Literal

import anyio
from mcp.server.fastmcp import FastMCP
from pydantic import BaseModel, ConfigDict, Field

from service.adapters.notebook import neighbourhood_of
from service.api.graph import Neighbourhood
from service.api.schemas import DocumentOut
from service.errors import NotFound
from service.graph.gateway import Graph
from service.graph.queries import Query as Cypher
from service.library import Searcher
from service.retrieval.fd_read import fd_scores
from service.retrieval.types import FdScore, SearchOptions, SearchResult

_ANNOTATED: Any = Annotated
Transport = Literal["stdio", "streamable-http"]

INSTRUCTIONS = (
    "anchorgraph searches a knowledge graph of documents, chunks, entities and hyperlinks in "
    "Neo4j. Call `search` with a question (level 'document' for whole documents, expand true "
    "to follow the hits' hyperlinks); every hit explains its score. Then `get_document` reads "
    "a hit's document whole, `neighbourhood` shows what it is linked to, and `explain_fd` how "
    "factually dense it is."
)


class FdExplanation(BaseModel):
    """FD* of a document and of its chunks (of the one chunk, when asked about a chunk)."""

    model_config = ConfigDict(frozen=True)

    document_id: str
    document: FdScore = Field(description="The document's FD*, from its own length bin.")
    chunks: dict[str, FdScore] = Field(description="Each chunk's FD*, by chunk id.")


def build_server(searcher: Searcher, *, host: str = "127.0.0.1", port: int = 8001) -> FastMCP:
    """The server with its four tools over ``searcher`` (``host`` and ``port``: HTTP only)."""
    server = FastMCP("anchorgraph", instructions=INSTRUCTIONS, host=host, port=port)

    async def search(**arguments: Any) -> SearchResult:
        options = SearchOptions.model_validate(arguments)
        return await anyio.to_thread.run_sync(searcher, options)

    # The tool's arguments are SearchOptions' fields, so that an agent sees each one (type,
    # bounds, description) in the tool's schema and the two stay the same as fields change.
    search.__signature__ = _search_signature()  # type: ignore[attr-defined]
    server.add_tool(
        search,
        name="search",
        description="Hybrid search over the graph with every score explained: the hits (chunks, "
        "or documents with their best chunk), each with its per-path scores, FD* and the "
        "supporting chunks its hyperlinks reached (expand), and the entities the query names.",
        structured_output=True,
    )

    @server.tool()
    async def get_document(id: str) -> DocumentOut:
        """A document by id, with its chunks, its outgoing links and the entities it names."""
        return await anyio.to_thread.run_sync(document, searcher.graph, id)

    @server.tool()
    async def neighbourhood(
        id: str,
        depth: Annotated[int, Field(ge=1, le=2, description="Hops from the node.")] = 1,
        limit: Annotated[int, Field(ge=1, le=500, description="Nodes, the centre too.")] = 100,
    ) -> Neighbourhood:
        """A document's or chunk's neighbourhood: the nodes within depth hops over chunks,
        links, entities, claims, triples, tags and folders, and the relationships between
        them (texts cut to 300 characters, no embeddings)."""
        return await anyio.to_thread.run_sync(
            lambda: neighbourhood_of(searcher, id, depth=depth, limit=limit)
        )

    @server.tool()
    async def explain_fd(id: str) -> FdExplanation:
        """FD* (factual density: verified claims per token against texts of the same length,
        times the source's authority) of a document and each of its chunks, or of one chunk
        and its document, with the length bin's mean and sd, z, a_source and FD*_rescaled."""
        return await anyio.to_thread.run_sync(fd_explanation, searcher.graph, id)

    return server


def serve(searcher: Searcher, transport: Transport, *, host: str, port: int) -> None:
    """Serve until the client goes away (stdio) or the process is stopped (HTTP)."""
    build_server(searcher, host=host, port=port).run(transport)


def document(graph: Graph, document_id: str) -> DocumentOut:
    found = graph.model(Cypher.GET_DOCUMENT, DocumentOut, {"id": document_id})
    if found is None:
        raise NotFound(f"No document with id {document_id!r}")
    return found


def fd_explanation(graph: Graph, node_id: str) -> FdExplanation:
    """By document id (every chunk) or by chunk id (that chunk)."""
    found = graph.model(Cypher.GET_DOCUMENT, DocumentOut, {"id": node_id})
    chunk_ids = [chunk.id for chunk in found.chunks] if found is not None else [node_id]
    chunks = fd_scores(graph.read, chunk_ids, "chunk")
    if not chunks:
        raise NotFound(f"No document with chunks, and no chunk, has the id {node_id!r}")
    first = next(iter(chunks))
    documents = fd_scores(graph.read, [first], "document")
    # A chunk's id is its document's id, '#', its ordinal (loaders.model.Chunk).
    document_id = found.id if found is not None else first.rpartition("#")[0]
    return FdExplanation(document_id=document_id, document=documents[first], chunks=chunks)


def _search_signature() -> inspect.Signature:
    parameters = []
    for name, field in SearchOptions.model_fields.items():
        if field.is_required():
            default: Any = inspect.Parameter.empty
        else:
            default = True if name == "explain" else field.get_default(call_default_factory=True)
        # Built at run time, so spelled through a name mypy does not read as a type.
        annotation = _ANNOTATED[
            (field.annotation, *field.metadata, Field(description=field.description))
        ]
        parameters.append(
            inspect.Parameter(
                name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation
            )
        )
    return inspect.Signature(parameters, return_annotation=SearchResult)
