"""The entity path's walk budget (``cypher/search/entity_chunks.cypher``) on a graph of a few
chunks and entities written here: within the budget every entity walks its mentions; past it the
commoner entities only add to the chunks the rarer ones found, and a query whose rarest entity
alone is past it finds nothing."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict
from typing import Any

import pytest

from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.queries import Query, cypher
from anchorgraph.retrieval.analysis import prepare
from anchorgraph.retrieval.paths.entity import EntityPath
from anchorgraph.retrieval.values import AnalyzedQuery, DetectedEntity, Scope

pytestmark = [pytest.mark.integration]

# Which chunks mention which entity: "rare" two, "common" six, and a, b, c (for the sums' order)
# one, two and three, all in chunk x.
MENTIONS = {
    "rare": ["c1", "c2"],
    "common": ["c1", "c3", "c4", "c5", "c6", "c7"],
    "a": ["x"],
    "b": ["x", "y"],
    "c": ["x", "y", "z"],
}
SCOPE = Scope(collections=("default",), every=False, chunks=10, total_chunks=10)


@pytest.fixture(scope="module")
def read(graph: Graph) -> Iterator[Any]:
    graph.driver.execute_query(cypher(Query.DELETE_ALL))
    graph.driver.execute_query(
        "UNWIND $mentions AS pair "
        "MERGE (c:Chunk {id: pair[0]}) "
        "ON CREATE SET c.document_id = 'default/' + pair[0] + '.md', c.collection = 'default' "
        "MERGE (e:Entity {id: pair[1]}) "
        "CREATE (c)-[:MENTIONS]->(e)",
        mentions=[[chunk, entity] for entity, chunks in MENTIONS.items() for chunk in chunks],
    )
    yield graph.read
    graph.driver.execute_query(cypher(Query.DELETE_ALL))


def found(read: Any, entities: dict[str, float], max_mentions: int) -> dict[str, float]:
    detected = [
        DetectedEntity(id=id, name=id, type="THING", how="exact", score=score)
        for id, score in entities.items()
    ]
    query = AnalyzedQuery(
        **asdict(prepare("a query")), vector=[0.0] * 384, identifiers=[], entities=detected
    )
    candidates = EntityPath(max_mentions).retrieve(read, query, 100, SCOPE)
    return {c.chunk_id: c.score for c in candidates}


def test_within_the_budget_every_entity_walks(read: Any) -> None:
    every = {"c1": 1.5, "c2": 1.0, "c3": 0.5, "c4": 0.5, "c5": 0.5, "c6": 0.5, "c7": 0.5}
    assert found(read, {"rare": 1.0, "common": 0.5}, max_mentions=8) == every
    assert found(read, {"common": 0.5, "rare": 1.0}, max_mentions=10_000) == every


def test_past_the_budget_the_commoner_entity_only_adds_to_what_the_rarer_found(read: Any) -> None:
    # "rare" walks its 2 mentions; "common" would make 8: it adds to c1, which it names, only.
    assert found(read, {"rare": 1.0, "common": 0.5}, max_mentions=7) == {"c1": 1.5, "c2": 1.0}
    assert found(read, {"rare": 1.0, "common": 0.5}, max_mentions=2) == {"c1": 1.5, "c2": 1.0}


def test_the_rarest_entity_keeps_to_the_budget_too(read: Any) -> None:
    assert found(read, {"common": 0.5}, max_mentions=6).keys() == set(MENTIONS["common"])
    assert found(read, {"common": 0.5}, max_mentions=5) == {}
    assert found(read, {"rare": 1.0, "common": 0.5}, max_mentions=1) == {}


def test_the_scores_are_summed_in_the_order_of_the_query_entities(read: Any) -> None:
    # Walked rarest first (a, b, c), but summed as the query lists them: 0.1 + 0.2 + 0.3 in that
    # order is 0.6000000000000001, in the order c, b, a it is 0.6.
    assert found(read, {"a": 0.1, "b": 0.2, "c": 0.3}, max_mentions=10)["x"] == 0.1 + 0.2 + 0.3
    assert found(read, {"c": 0.3, "b": 0.2, "a": 0.1}, max_mentions=10)["x"] == 0.3 + 0.2 + 0.1
