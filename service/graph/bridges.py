"""Entity bridges kept in the graph: ``(:Chunk)-[:BRIDGE]->(:Chunk)`` between chunks of two
documents that name the same specific entity (``cypher/load/refresh_bridges.cypher``), which the
search's expansion follows (``cypher/expand/reached.cypher``).

Every write that changes an entity's mentions refreshes its bridges in the same transaction
(``refresh_bridges``); a whole collection is bridged at once where bridges were never built for
it, or under another bound (``bridge_collection``: the schema's upgrade, a bulk import).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial

import neo4j

from anchorgraph.graph.bounds import BRIDGED_MENTIONS
from anchorgraph.graph.gateway import Graph, run_in
from anchorgraph.graph.queries import Query

# Entities refreshed per transaction when a whole collection is bridged.
_ENTITIES_PER_WRITE = 2000


def refresh_bridges(tx: neo4j.ManagedTransaction, entity_ids: Iterable[str]) -> None:
    """Make the bridges of ``entity_ids`` (keys, each once however often given) what their
    mentions in ``tx`` now give."""
    if ids := list(dict.fromkeys(entity_ids)):
        run_in(tx, Query.REFRESH_BRIDGES, {"entity_ids": ids, "bound": BRIDGED_MENTIONS})


def bridge_collection(graph: Graph, collection: str) -> None:
    """Build every bridge of ``collection`` anew, a page of entities a transaction, then mark it
    as bridged under ``BRIDGED_MENTIONS`` (``cypher/upgrade/mark_bridged.cypher``): a build cut
    short leaves it unmarked, and the next upgrade builds it again."""
    after = ""
    while page := graph.read(
        Query.COLLECTION_ENTITIES,
        {"collection": collection, "after": after, "limit": _ENTITIES_PER_WRITE},
    ):
        ids = [row["id"] for row in page]
        graph.write(partial(refresh_bridges, entity_ids=ids))
        after = ids[-1]
    parameters = {"collection": collection, "bound": BRIDGED_MENTIONS}
    graph.write(lambda tx: run_in(tx, Query.UPGRADE_MARK_BRIDGED, parameters))
