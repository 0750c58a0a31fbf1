"""The search page: ``GET /`` and its files, and ``GET /ui/config``, what the page is built from.

The page (``service/web/static/``) is plain HTML, CSS and JavaScript that calls ``POST /search``
with ``explain`` on and draws what comes back. It hard-codes no option of the API: the modes,
paths, default weights, the longest query, the file formats (source types that say nothing
more) and the Cypher each result's Neo4j Browser link opens come from ``/ui/config``, so that
the page follows ``anchorgraph.retrieval.options``, ``anchorgraph.loaders.formats`` and the
catalogue.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from fastapi import APIRouter, Response
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from anchorgraph.api.deps import RuntimeDep
from anchorgraph.errors import NotFound
from anchorgraph.graph.queries import Query, cypher
from anchorgraph.loaders.formats import FORMAT_NAMES
from anchorgraph.retrieval.defaults import CHUNK_PATH_WEIGHTS, DOCUMENT_PATH_WEIGHTS
from anchorgraph.retrieval.fusion import Fusion
from anchorgraph.retrieval.normalise import Normalisation
from anchorgraph.retrieval.options import Mode, SearchOptions
from anchorgraph.retrieval.paths import DOCUMENT_PATHS
from anchorgraph.retrieval.stage_options import ExpandOptions, SignalWeightsIn

router = APIRouter(tags=["search page"])

# The page's files, by name, with their media types: nothing else is served from the folder.
ASSETS = {
    "index.html": "text/html; charset=utf-8",
    "app.js": "text/javascript; charset=utf-8",
    "style.css": "text/css; charset=utf-8",
}


class PageConfig(BaseModel):
    """What the search page offers and how it links to Neo4j Browser."""

    model_config = ConfigDict(frozen=True)

    modes: list[str]
    normalisations: list[str]
    fusions: list[str]
    path_weights: dict[str, dict[str, float]] = Field(
        description="Per level (chunk, document): each path it can fuse and its default weight."
    )
    document_paths: list[str] = Field(description="Paths only document-level searches run.")
    signal_weights: dict[str, float] = Field(description="Multisignal weights, the defaults.")
    expand: dict[str, bool] = Field(
        description="The expansion's parts a search runs unless told (links, bridges): the "
        "page's boxes start so."
    )
    browser_url: str | None = Field(
        description="Neo4j Browser of the project's own server; None for a server given by "
        "URI (the page then assumes Browser on port 7474 of the page's host)."
    )
    neighbourhood_cypher: str = Field(
        description="cypher/browser/neighbourhood.cypher: the page puts a hit's key "
        "(collection/id) for $id."
    )
    max_query_chars: int = Field(
        description="The longest query POST /search takes, in characters (the query box's "
        "maxlength)."
    )
    formats: list[str] = Field(
        description="The file formats documents are read from: a source type that is one of "
        "them names the format and no kind of source, and the page does not show it."
    )


@cache
def asset(name: str) -> bytes:
    return resources.files("anchorgraph.web").joinpath("static", name).read_bytes()


def _file(name: str) -> Response:
    return Response(asset(name), media_type=ASSETS[name])


@router.get("/", include_in_schema=False)
def page() -> Response:
    return _file("index.html")


@router.get("/static/{name}", include_in_schema=False)
def static(name: str) -> Response:
    if name not in ASSETS:
        raise NotFound(f"No file {name!r} in the search page")
    return _file(name)


@router.get("/ui/config", response_model=PageConfig)
def config(runtime: RuntimeDep) -> PageConfig:
    """The search page's options, their defaults, and its Neo4j Browser link."""
    return PageConfig(
        modes=[str(mode) for mode in Mode],
        normalisations=[str(method) for method in Normalisation],
        fusions=[str(method) for method in Fusion],
        path_weights={
            "chunk": {str(path): weight for path, weight in CHUNK_PATH_WEIGHTS.items()},
            "document": {str(path): weight for path, weight in DOCUMENT_PATH_WEIGHTS.items()},
        },
        document_paths=sorted(str(path) for path in DOCUMENT_PATHS),
        signal_weights=SignalWeightsIn().model_dump(),
        expand=ExpandOptions().model_dump(include={"links", "bridges"}),
        browser_url=runtime.settings.browser_url,
        neighbourhood_cypher=cypher(Query.BROWSER_NEIGHBOURHOOD),
        max_query_chars=max_query_chars(),
        formats=list(FORMAT_NAMES),
    )


@cache
def max_query_chars() -> int:
    """The ``max_length`` of ``SearchOptions.query``, read off the model."""
    lengths = [
        constraint.max_length
        for constraint in SearchOptions.model_fields["query"].metadata
        if isinstance(constraint, StringConstraints) and constraint.max_length is not None
    ]
    return min(lengths)
