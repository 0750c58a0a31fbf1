"""Apply the graph schema idempotently and wait until every index is ONLINE."""

from __future__ import annotations

from dataclasses import dataclass

import neo4j
from neo4j.exceptions import ClientError

from service.errors import IndexNotReady, InvalidInput
from service.graph.queries import SCHEMA, Query, cypher, statements


@dataclass(frozen=True)
class IndexState:
    name: str
    type: str
    state: str
    population_percent: float
    id: int  # also the name of the index's folder under the database's schema/index/


def apply_schema(
    driver: neo4j.Driver, database: str, dimensions: int, timeout_s: float = 300.0
) -> list[IndexState]:
    """Create constraints and indexes (a no-op when present), then wait until all are ONLINE.

    Raises:
        InvalidInput: the graph's vector indexes were built for another embedding dimension.
        IndexNotReady: an index did not come ONLINE within ``timeout_s``.
    """
    _refuse_dimension_change(driver, database, dimensions)
    for query in SCHEMA:
        for statement in statements(query):
            driver.execute_query(statement, {"dimensions": dimensions}, database_=database)
    try:
        driver.execute_query(
            cypher(Query.AWAIT_INDEXES), {"timeout_s": int(timeout_s)}, database_=database
        )
    except ClientError as error:  # raised when the wait times out or an index FAILED
        raise IndexNotReady(f"Indexes did not come online: {error.message}") from error
    states = index_states(driver, database)
    if not_online := [s.name for s in states if s.state != "ONLINE"]:
        raise IndexNotReady(f"Indexes not ONLINE: {', '.join(not_online)}")
    return states


def index_states(driver: neo4j.Driver, database: str) -> list[IndexState]:
    records = driver.execute_query(
        cypher(Query.INDEX_STATES), database_=database, routing_=neo4j.RoutingControl.READ
    ).records
    return [
        IndexState(r["name"], r["type"], r["state"], float(r["populationPercent"]), int(r["id"]))
        for r in records
    ]


def _refuse_dimension_change(driver: neo4j.Driver, database: str, dimensions: int) -> None:
    """A vector index keeps its dimension; vectors of another model would be silently unindexed."""
    records = driver.execute_query(
        cypher(Query.VECTOR_INDEX_DIMENSIONS),
        database_=database,
        routing_=neo4j.RoutingControl.READ,
    ).records
    mismatched = [
        f"{r['name']} ({r['dimensions']})"
        for r in records
        if r["dimensions"] is not None and int(r["dimensions"]) != dimensions
    ]
    if mismatched:
        raise InvalidInput(
            f"The embedding model gives {dimensions}-dimensional vectors but these indexes were "
            f"built for another size: {', '.join(mismatched)}. Use the original model, or drop "
            "the indexes and re-ingest."
        )
