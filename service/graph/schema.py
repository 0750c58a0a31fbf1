"""The graph schema: apply it idempotently (writers), or verify it without DDL (readers).

Applying it also upgrades a graph an earlier version wrote, in place: its documents join the
``default`` collection (``cypher/upgrade/collections.cypher``), and each collection a shard
(``cypher/upgrade/shard_collection.cypher``); nothing is embedded again. Readers refuse a graph
written before collections until a writer has upgraded it; a collection without a shard is
searched through the graph-wide indexes meanwhile."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from functools import cache

from neo4j.exceptions import ClientError

from anchorgraph.errors import IndexNotReady, InvalidInput, SchemaMissing
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.queries import SCHEMA, Query, cypher, statements
from anchorgraph.graph.shards import SHARDS, shard_labels
from anchorgraph.scope import DEFAULT_COLLECTION, local_id, scoped
from anchorgraph.text.identifiers import alias_keys

# The name every schema statement gives its constraint or index.
_CREATED_NAME = re.compile(r"^CREATE\s+(?:\w+\s+)*?(?:CONSTRAINT|INDEX)\s+(\w+)\s+IF NOT EXISTS")


class SchemaMode(StrEnum):
    """What a process does with the schema at start: writers apply it, readers only check it."""

    APPLY = "apply"
    VERIFY = "verify"


@dataclass(frozen=True)
class IndexState:
    name: str
    type: str
    state: str
    population_percent: float
    id: int  # also the name of the index's folder under the database's schema/index/


@cache
def expected_indexes() -> frozenset[str]:
    """Names of the constraints and indexes the schema files create (a uniqueness constraint
    shows in SHOW INDEXES under its own name)."""
    names = (_CREATED_NAME.match(statement) for query in SCHEMA for statement in statements(query))
    return frozenset(match.group(1) for match in names if match)


def apply_schema(graph: Graph, dimensions: int, timeout_s: float = 300.0) -> list[IndexState]:
    """Create constraints and indexes (a no-op when present), then wait until all are ONLINE.

    Raises:
        InvalidInput: the graph's vector indexes were built for another embedding dimension.
        IndexNotReady: an index did not come ONLINE within ``timeout_s``.
    """
    _refuse_dimension_change(graph, dimensions)
    upgrade(graph)
    for query in SCHEMA:
        for statement in statements(query):
            graph.run(statement, {"dimensions": dimensions})
    try:
        graph.run(statements(Query.AWAIT_INDEXES)[0], {"timeout_s": int(timeout_s)})
    except ClientError as error:  # raised when the wait times out or an index FAILED
        raise IndexNotReady(f"Indexes did not come online: {error.message}") from error
    return _all_online(index_states(graph))


def verify_schema(graph: Graph, dimensions: int) -> list[IndexState]:
    """Check, without any DDL, that every index exists, is ONLINE and fits the model.

    Raises:
        SchemaMissing: an index is missing (the graph was never initialised).
        InvalidInput: the vector indexes were built for another embedding dimension.
        IndexNotReady: an index is still populating or FAILED.
    """
    if needs_upgrade(graph):
        raise SchemaMissing(
            "The graph was written by an earlier version, before collections: run 'anchorgraph "
            "db init' (or start the API, or ingest something) once to upgrade it in place."
        )
    states = index_states(graph)
    if missing := sorted(expected_indexes() - {state.name for state in states}):
        raise SchemaMissing(
            f"The graph lacks {len(missing)} of its indexes ({', '.join(missing[:4])}"
            f"{', …' if len(missing) > 4 else ''}): run 'anchorgraph db init' (or ingest "
            "something) first."
        )
    _refuse_dimension_change(graph, dimensions)
    return _all_online(states)


def needs_upgrade(graph: Graph) -> bool:
    """Whether the graph holds nodes written before collections."""
    record = graph.read(Query.UPGRADE_COLLECTIONS_NEEDED)
    return bool(record and record[0]["needed"])


def upgrade(graph: Graph) -> bool:
    """Bring a graph an earlier version wrote up to date, in place: written before collections,
    its documents and everything they own join ``default`` (ids become its keys); constraints
    that made folders, tags and index terms unique across the whole graph are dropped
    (``apply_schema`` makes them unique per collection); collections without a shard get one,
    each in turn; entities get their keys without accents (``entity_keys``); collections are
    marked as holding links and entity mentions or not (what a search's expansion reads).
    Idempotent; returns whether anything needed upgrading (the marks aside)."""
    for statement in statements(Query.UPGRADE_DROP_GLOBAL_CONSTRAINTS):
        graph.run(statement)
    upgraded = needs_upgrade(graph)
    if upgraded:
        for statement in statements(Query.UPGRADE_COLLECTIONS):
            graph.run(statement, {"collection": DEFAULT_COLLECTION})
    for row in graph.read(Query.UPGRADE_UNSHARDED_COLLECTIONS):
        free = graph.read(Query.FREE_SHARD, {"shards": SHARDS})
        shard = int(free[0]["shard"]) if free else 0
        parameters = {"collection": row["name"], "shard": shard, **shard_labels(shard)}
        for statement in statements(Query.UPGRADE_SHARD_COLLECTION):
            graph.run(statement, parameters)
        upgraded = True
    for row in graph.read(Query.UPGRADE_UNKEYED_COLLECTIONS):
        _add_accent_keys(graph, row["name"])
        upgraded = True
    graph.run(cypher(Query.UPGRADE_GRAPH_MARKS))
    return upgraded


def _add_accent_keys(graph: Graph, collection: str) -> None:
    """Give a collection's entities the alias keys without accents that ingestion gives them
    today (``entity_keys``), so that a query finds them with or without accents."""
    entities = [
        {
            "id": row["id"],
            "alias_keys": sorted(
                scoped(collection, key) for key in alias_keys(local_id(row["id"]), row["aliases"])
            ),
        }
        for row in graph.read(Query.UPGRADE_ACCENTED_ENTITIES, {"collection": collection})
    ]
    for statement in statements(Query.UPGRADE_ADD_ALIAS_KEYS):
        graph.run(statement, {"collection": collection, "entities": entities})


def index_states(graph: Graph) -> list[IndexState]:
    return [
        IndexState(r["name"], r["type"], r["state"], float(r["populationPercent"]), int(r["id"]))
        for r in graph.read(Query.INDEX_STATES)
    ]


def _all_online(states: list[IndexState]) -> list[IndexState]:
    if not_online := [s.name for s in states if s.state != "ONLINE"]:
        raise IndexNotReady(f"Indexes not ONLINE: {', '.join(not_online)}")
    return states


def _refuse_dimension_change(graph: Graph, dimensions: int) -> None:
    """A vector index keeps its dimension; vectors of another model would be silently unindexed."""
    mismatched = [
        f"{r['name']} ({r['dimensions']})"
        for r in graph.read(Query.VECTOR_INDEX_DIMENSIONS)
        if r["dimensions"] is not None and int(r["dimensions"]) != dimensions
    ]
    if mismatched:
        raise InvalidInput(
            f"The embedding model gives {dimensions}-dimensional vectors but these indexes were "
            f"built for another size: {', '.join(mismatched)}. Use the original model, or drop "
            "the indexes and re-ingest."
        )
