"""GET /health: is Neo4j reachable, are the indexes ONLINE, which model is loaded."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response

from anchorgraph.api.deps import RuntimeDep
from anchorgraph.api.schemas import HealthResponse, IndexHealth, ModelHealth, Neo4jHealth
from anchorgraph.errors import GraphUnavailable
from anchorgraph.graph.queries import Query
from anchorgraph.graph.schema import index_states

router = APIRouter(tags=["health"])


HEALTHY: dict[str, Any] = {
    "status": "ok",
    "neo4j": {
        "reachable": True,
        "uri": "bolt://127.0.0.1:7687",
        "database": "neo4j",
        "version": "5.26.29",
        "edition": "community",
        "browser_url": "http://127.0.0.1:7474/browser/",
        "error": None,
    },
    "indexes": [
        {
            "name": "chunk_embedding",
            "type": "VECTOR",
            "state": "ONLINE",
            "population_percent": 100.0,
        }
    ],
    "model": {"name": "all-MiniLM-L6-v2", "dimension": 384, "query_runtime": "onnx"},
}
UNAVAILABLE: dict[str, Any] = {
    **HEALTHY,
    "status": "unavailable",
    "neo4j": {
        **HEALTHY["neo4j"],
        "reachable": False,
        "version": None,
        "edition": None,
        "error": "Neo4j at bolt://127.0.0.1:7687 is unavailable.",
    },
    "indexes": [],
}


@router.get(
    "/health",
    response_model=HealthResponse,
    responses={
        200: {"content": {"application/json": {"example": HEALTHY}}},
        503: {
            "model": HealthResponse,
            "description": "Neo4j is unreachable (status unavailable) or an index is not "
            "ONLINE (status degraded).",
            "content": {"application/json": {"example": UNAVAILABLE}},
        },
    },
)
def health(runtime: RuntimeDep, response: Response) -> HealthResponse:
    """Answers 200 when Neo4j answers and every index is ONLINE, 503 otherwise (the same body:
    its `status` says which)."""
    settings, embedder = runtime.settings, runtime.embedder
    model = ModelHealth(
        name=embedder.name,
        dimension=embedder.dimension,
        query_runtime=getattr(embedder, "runtime", "torch"),
    )
    graph = Neo4jHealth(
        reachable=False,
        uri=settings.bolt_uri,
        database=settings.neo4j_database,
        browser_url=settings.browser_url,
    )
    try:
        info = runtime.graph.read(Query.SERVER_INFO)[0]
        states = index_states(runtime.graph)
    except GraphUnavailable as error:
        response.status_code = 503
        graph.error = str(error)
        return HealthResponse(status="unavailable", neo4j=graph, indexes=[], model=model)
    graph.reachable, graph.version, graph.edition = True, info["version"], info["edition"]
    indexes = [IndexHealth(**vars(state)) for state in states]
    all_online = bool(indexes) and all(index.state == "ONLINE" for index in indexes)
    if not all_online:
        response.status_code = 503
    return HealthResponse(
        status="ok" if all_online else "degraded", neo4j=graph, indexes=indexes, model=model
    )
