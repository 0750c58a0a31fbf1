"""The MCP server of ``anchorgraph mcp`` (the ``mcp`` extra): anchorgraph as tools an agent calls.

Tools, each answering with a typed model (structured content, and its JSON as text), each
refusing an argument it does not take (its input schema is closed: ``additionalProperties``
false):

* ``search``: every ``SearchOptions`` field as an argument (validated as ``POST /search``
  validates them), the ``SearchResult`` with each hit's score breakdown (``explain`` is on by
  default here: an agent should see why a hit ranks where it does);
* ``get_document``: a document with its chunks, links and entities (``GET /documents/{id}``);
* ``neighbourhood``: a document's or chunk's neighbourhood (``GET /graph/neighbourhood/{id}``);
* ``explain_fd``: FD* of a document and of each of its chunks (or of one chunk), with what it
  was computed from.

Over stdio (the default, for a desktop agent that spawns it) or streamable HTTP. It is
read-only: the schema is verified, never changed, and no tool writes. It reads the collections
its ``Access`` allows (``anchorgraph mcp --collection NAME``; every one by default): a tool asked
about another answers as for a document that does not exist.
"""

from __future__ import annotations

import inspect
from typing import Annotated, Any, Literal

import anyio
from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.tools import Tool
from pydantic import BaseModel, ConfigDict, Field, create_model

from anchorgraph.adapters.notebook import neighbourhood_of
from anchorgraph.api.graph import Neighbourhood
from anchorgraph.api.schemas import DocumentOut
from anchorgraph.errors import NotFound
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.queries import Query as Cypher
from anchorgraph.library import Searcher
from anchorgraph.retrieval.fd_read import fd_scores
from anchorgraph.retrieval.options import SearchOptions
from anchorgraph.retrieval.pipeline import search as run_search
from anchorgraph.retrieval.results import FdScore, SearchResult
from anchorgraph.scope import DEFAULT_COLLECTION, FULL_ACCESS, Access, local_id, scoped

_ANNOTATED: Any = Annotated
Transport = Literal["stdio", "streamable-http"]

INSTRUCTIONS = (
    "anchorgraph searches a knowledge graph of documents, chunks, entities and hyperlinks in "
    "Neo4j. Call `search` with a question (level 'document' for whole documents; the hits' "
    "hyperlinks and entity bridges are followed unless expand {links: false, bridges: false} "
    "says otherwise); every hit explains its score. When the answer's `matched` is false no hit "
    "has evidence (none holds enough of the question's words or an entity it names, none is "
    "nearer than unrelated texts are): say that nothing was found rather than answer from the "
    "hits. Then "
    "`get_document` reads a hit's document whole, `neighbourhood` shows what it is linked to, "
    "and `explain_fd` how factually dense it is."
)


class FdExplanation(BaseModel):
    """FD* of a document and of its chunks (of the one chunk, when asked about a chunk)."""

    model_config = ConfigDict(frozen=True)

    collection: str
    document_id: str
    document: FdScore = Field(description="The document's FD*, from its own length bin.")
    chunks: dict[str, FdScore] = Field(description="Each chunk's FD*, by chunk id.")


CollectionArgument = Annotated[
    str, Field(description="The document's collection.", examples=[DEFAULT_COLLECTION])
]


def build_server(
    searcher: Searcher,
    *,
    access: Access = FULL_ACCESS,
    host: str = "127.0.0.1",
    port: int = 8001,
) -> FastMCP:
    """The server with its four tools over ``searcher``, reading what ``access`` allows
    (``host`` and ``port``: HTTP only)."""

    def visible(collection: str) -> str:
        if not access.can_read(collection):
            raise NotFound(f"No collection named {collection!r}.")
        return collection

    async def search(**arguments: Any) -> SearchResult:
        options = SearchOptions.model_validate(arguments)
        return await anyio.to_thread.run_sync(run_search, searcher.context, options, access)

    # The tool's arguments are SearchOptions' fields, so that an agent sees each one (type,
    # bounds, description) in the tool's schema and the two stay the same as fields change.
    search.__signature__ = _search_signature()  # type: ignore[attr-defined]

    async def get_document(
        id: str, collection: CollectionArgument = DEFAULT_COLLECTION
    ) -> DocumentOut:
        """A document by id, with its chunks, its outgoing links and the entities it names."""
        return await anyio.to_thread.run_sync(document, searcher.graph, visible(collection), id)

    async def neighbourhood(
        id: str,
        collection: CollectionArgument = DEFAULT_COLLECTION,
        depth: Annotated[int, Field(ge=1, le=2, description="Hops from the node.")] = 1,
        limit: Annotated[int, Field(ge=1, le=500, description="Nodes, the centre too.")] = 100,
    ) -> Neighbourhood:
        """A document's or chunk's neighbourhood: the nodes within depth hops over chunks,
        links, entities, claims, triples, tags and folders, and the relationships between
        them (texts cut to 300 characters, no embeddings)."""
        return await anyio.to_thread.run_sync(
            lambda: neighbourhood_of(
                searcher, id, collection=visible(collection), depth=depth, limit=limit
            )
        )

    async def explain_fd(
        id: str, collection: CollectionArgument = DEFAULT_COLLECTION
    ) -> FdExplanation:
        """FD* (factual density: verified claims per token against texts of the same length,
        times the source's authority) of a document and each of its chunks, or of one chunk
        and its document, with the length bin's mean and sd, z, a_source and FD*_rescaled."""
        return await anyio.to_thread.run_sync(
            fd_explanation, searcher.graph, visible(collection), id
        )

    tools = [
        Tool.from_function(
            search,
            name="search",
            description="Hybrid search over the graph with every score explained: the hits "
            "(chunks, or documents with their best chunk), each with its per-path scores, FD* "
            "and the supporting chunks its hyperlinks reached (expand), and the entities the "
            "query names.",
            structured_output=True,
        ),
        Tool.from_function(get_document),
        Tool.from_function(neighbourhood),
        Tool.from_function(explain_fd),
    ]
    return FastMCP(
        "anchorgraph",
        instructions=INSTRUCTIONS,
        host=host,
        port=port,
        tools=[closed(tool) for tool in tools],
    )


def closed(tool: Tool) -> Tool:
    """``tool`` refusing an argument it does not take, with its input schema saying so
    (``additionalProperties: false``). FastMCP's argument models drop unknown arguments
    unseen, so an agent's misspelt option (``{"qeury": …}``, ``{"top_k": 3}``) would answer
    as if it had not been given."""
    arguments = tool.fn_metadata.arg_model
    refusing = create_model(
        arguments.__name__, __base__=arguments, __cls_kwargs__={"extra": "forbid"}
    )
    metadata = tool.fn_metadata.model_copy(update={"arg_model": refusing})
    return tool.model_copy(
        update={"fn_metadata": metadata, "parameters": refusing.model_json_schema(by_alias=True)}
    )


def serve(
    searcher: Searcher,
    transport: Transport,
    *,
    host: str,
    port: int,
    access: Access = FULL_ACCESS,
) -> None:
    """Serve until the client goes away (stdio) or the process is stopped (HTTP)."""
    build_server(searcher, access=access, host=host, port=port).run(transport)


def document(graph: Graph, collection: str, document_id: str) -> DocumentOut:
    key = scoped(collection, document_id)
    found = graph.model(Cypher.GET_DOCUMENT, DocumentOut, {"collection": collection, "id": key})
    if found is None:
        raise NotFound(f"No document with id {document_id!r} in collection {collection!r}.")
    return found


def fd_explanation(graph: Graph, collection: str, node_id: str) -> FdExplanation:
    """By document id (every chunk) or by chunk id (that chunk), within ``collection``."""
    key = scoped(collection, node_id)
    found = graph.model(Cypher.GET_DOCUMENT, DocumentOut, {"collection": collection, "id": key})
    chunk_keys = (
        [scoped(collection, chunk.id) for chunk in found.chunks] if found is not None else [key]
    )
    chunks = fd_scores(graph.read, chunk_keys, "chunk")
    if not chunks:
        raise NotFound(
            f"No document with chunks, and no chunk, has the id {node_id!r} in collection "
            f"{collection!r}."
        )
    first = next(iter(chunks))
    documents = fd_scores(graph.read, [first], "document")
    # A chunk's id is its document's id, '#', its ordinal (anchorgraph.loaders.model.Chunk).
    document_id = found.id if found is not None else local_id(first).rpartition("#")[0]
    return FdExplanation(
        collection=collection,
        document_id=document_id,
        document=documents[first],
        chunks={local_id(chunk): score for chunk, score in chunks.items()},
    )


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
