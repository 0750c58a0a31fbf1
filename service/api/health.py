"""GET /health: is Neo4j reachable, are the indexes ONLINE, which model is loaded."""

from __future__ import annotations

import neo4j
from fastapi import APIRouter, Response
from neo4j.exceptions import Neo4jError, ServiceUnavailable

from service.api.deps import ResourcesDep
from service.api.schemas import HealthResponse, IndexHealth, ModelHealth, Neo4jHealth
from service.graph.queries import Query, cypher
from service.graph.schema import index_states

router = APIRouter(tags=["health"])


@router.get("/health", response_model=HealthResponse)
def health(resources: ResourcesDep, response: Response) -> HealthResponse:
    """Answers 200 when Neo4j answers and every index is ONLINE, 503 otherwise."""
    settings = resources.settings
    model = ModelHealth(
        name=resources.embedder.name,
        dimension=resources.embedder.dimension,
        query_runtime=getattr(resources.embedder, "runtime", "torch"),
    )
    graph = Neo4jHealth(
        reachable=False,
        uri=settings.bolt_uri,
        database=settings.neo4j_database,
        browser_url=settings.browser_url,
    )
    try:
        info = resources.driver.execute_query(
            cypher(Query.SERVER_INFO),
            database_=settings.neo4j_database,
            routing_=neo4j.RoutingControl.READ,
        ).records[0]
        states = index_states(resources.driver, settings.neo4j_database)
    except (ServiceUnavailable, Neo4jError, OSError) as error:
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
