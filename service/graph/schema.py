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
from anchorgraph.graph.bounds import BRIDGED_MENTIONS
from anchorgraph.graph.bridges import bridge_collection
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.queries import SCHEMA, Query, cypher, statements
from anchorgraph.graph.rows import UpgradePendingRow
from anchorgraph.graph.shards import SHARDS, shard_labels
from anchorgraph.scope import DEFAULT_COLLECTION, local_id, scoped
from anchorgraph.text.identifiers import alias_keys

# The name every schema statement gives its constraint or index.
_CREATED_NAME = re.compile(r"^CREATE\s+(?:\w+\s+)*?(?:CONSTRAINT|INDEX)\s+(\w+)\s+IF NOT EXISTS")
# The name of each constraint an upgrade drops.
_DROPPED_NAME = re.compile(r"^DROP\s+CONSTRAINT\s+(\w+)\s+IF EXISTS")


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
    dimensions: int | None = None  # a vector index's


@cache
def expected_indexes() -> frozenset[str]:
    """Names of the constraints and indexes the schema files create (a uniqueness constraint
    shows in SHOW INDEXES under its own name)."""
    names = (_created_name(statement) for query in SCHEMA for statement in statements(query))
    return frozenset(name for name in names if name)


def _created_name(statement: str) -> str | None:
    """The constraint or index a schema statement creates, by name; None for any other."""
    match = _CREATED_NAME.match(statement)
    return match.group(1) if match else None


def apply_schema(graph: Graph, dimensions: int, timeout_s: float = 300.0) -> list[IndexState]:
    """Create the constraints and indexes the graph lacks, then wait until all are ONLINE.

    A statement is sent only for what is missing, found by name in one read: a server plans
    every distinct statement the first time it sees it, and just started, the 72 statements of
    the schema took it ~7 s to plan as no-ops (``anchorgraph run``'s second start).

    Raises:
        InvalidInput: the graph's vector indexes were built for another embedding dimension.
        IndexNotReady: an index did not come ONLINE within ``timeout_s``.
    """
    before = index_states(graph)
    _refuse_dimension_change(before, dimensions)
    present = frozenset(state.name for state in before)
    upgrade(graph, present)
    missing = [
        statement
        for query in SCHEMA
        for statement in statements(query)
        if _created_name(statement) not in present
    ]
    for statement in missing:
        graph.run(statement, {"dimensions": dimensions})
    states = index_states(graph)
    if missing or any(state.state != "ONLINE" for state in states):
        try:
            graph.run(statements(Query.AWAIT_INDEXES)[0], {"timeout_s": int(timeout_s)})
        except ClientError as error:  # raised when the wait times out or an index FAILED
            raise IndexNotReady(f"Indexes did not come online: {error.message}") from error
        states = index_states(graph)
    return _all_online(states)


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
    _refuse_dimension_change(states, dimensions)
    return _all_online(states)


def needs_upgrade(graph: Graph) -> bool:
    """Whether the graph holds nodes written before collections."""
    return _pending(graph)["collections_needed"]


def _pending(graph: Graph) -> UpgradePendingRow:
    (row,) = graph.read(Query.UPGRADE_PENDING, {"bound": BRIDGED_MENTIONS})
    return row


def upgrade(graph: Graph, present: frozenset[str] | None = None) -> bool:
    """Bring a graph an earlier version wrote up to date, in place: written before collections,
    its documents and everything they own join ``default`` (ids become its keys); constraints
    that made folders, tags and index terms unique across the whole graph are dropped
    (``apply_schema`` makes them unique per collection); collections without a shard get one,
    each in turn; entities get their keys without accents (``entity_keys``); collections are
    marked as holding links and entity mentions or not (what a search's expansion reads), and
    get their entity bridges where they have none, or have them under another bound
    (``bridge_collection``). Idempotent; returns whether anything needed upgrading (the marks
    and bridges aside). ``present``: the names of the graph's indexes and constraints, when
    known (the global constraints are dropped only where present)."""
    for statement in statements(Query.UPGRADE_DROP_GLOBAL_CONSTRAINTS):
        dropped = _DROPPED_NAME.match(statement)
        if present is None or dropped is None or dropped.group(1) in present:
            graph.run(statement)
    pending = _pending(graph)
    upgraded = pending["collections_needed"]
    if upgraded:
        for statement in statements(Query.UPGRADE_COLLECTIONS):
            graph.run(statement, {"collection": DEFAULT_COLLECTION})
        pending = _pending(graph)  # the default collection it made lacks a shard, keys, marks
    for name in pending["unsharded"]:
        free = graph.read(Query.FREE_SHARD, {"shards": SHARDS})
        shard = int(free[0]["shard"]) if free else 0
        parameters = {"collection": name, "shard": shard, **shard_labels(shard)}
        for statement in statements(Query.UPGRADE_SHARD_COLLECTION):
            graph.run(statement, parameters)
        upgraded = True
    for name in pending["unkeyed"]:
        _add_accent_keys(graph, name)
        upgraded = True
    if pending["unmarked"]:
        graph.run(cypher(Query.UPGRADE_GRAPH_MARKS))
    for name in pending["unbridged"]:
        bridge_collection(graph, name)
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
        IndexState(
            r["name"],
            r["type"],
            r["state"],
            float(r["populationPercent"]),
            int(r["id"]),
            None if r["dimensions"] is None else int(r["dimensions"]),
        )
        for r in graph.read(Query.INDEX_STATES)
    ]


def _all_online(states: list[IndexState]) -> list[IndexState]:
    if not_online := [s.name for s in states if s.state != "ONLINE"]:
        raise IndexNotReady(f"Indexes not ONLINE: {', '.join(not_online)}")
    return states


def _refuse_dimension_change(states: list[IndexState], dimensions: int) -> None:
    """A vector index keeps its dimension; vectors of another model would be silently unindexed."""
    mismatched = [
        f"{state.name} ({state.dimensions})"
        for state in states
        if state.dimensions is not None and state.dimensions != dimensions
    ]
    if mismatched:
        raise InvalidInput(
            f"The embedding model gives {dimensions}-dimensional vectors but these indexes were "
            f"built for another size: {', '.join(mismatched)}. Use the original model, or drop "
            "the indexes and re-ingest."
        )
