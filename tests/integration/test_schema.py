"""The schema applies idempotently, refuses vectors of another size, and is verified without
DDL by read-only processes."""

from __future__ import annotations

import pytest

from anchorgraph.embedding import Embedder
from anchorgraph.errors import InvalidInput, SchemaMissing
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.schema import apply_schema, expected_indexes, index_states, verify_schema

pytestmark = pytest.mark.integration


def test_schema_is_complete_online_and_idempotent(graph: Graph, fake_embedder: Embedder) -> None:
    before = {(s.name, s.type) for s in index_states(graph)}
    states = apply_schema(graph, fake_embedder.dimension)
    assert {(s.name, s.type) for s in states} == before
    assert all(s.state == "ONLINE" for s in states)
    assert expected_indexes() <= {s.name for s in states}
    kinds = {s.name: s.type for s in states}
    for name in ("chunk_embedding", "document_embedding", "entity_embedding", "triple_embedding"):
        assert kinds[name] == "VECTOR"
    for name in ("chunk_text", "document_text", "document_title", "entity_name"):
        assert kinds[name] == "FULLTEXT"


def test_a_model_of_another_dimension_is_refused(graph: Graph, fake_embedder: Embedder) -> None:
    with pytest.raises(InvalidInput, match="dimension"):
        apply_schema(graph, fake_embedder.dimension + 1)
    with pytest.raises(InvalidInput, match="dimension"):
        verify_schema(graph, fake_embedder.dimension + 1)


def test_verify_names_a_missing_index_and_creates_nothing(
    graph: Graph, fake_embedder: Embedder
) -> None:
    assert {s.name for s in verify_schema(graph, fake_embedder.dimension)} >= expected_indexes()
    graph.run("DROP INDEX document_title IF EXISTS")
    try:
        with pytest.raises(SchemaMissing, match=r"document_title.*anchorgraph db init"):
            verify_schema(graph, fake_embedder.dimension)
        assert "document_title" not in {s.name for s in index_states(graph)}  # still missing
    finally:
        apply_schema(graph, fake_embedder.dimension)


def test_apply_creates_what_the_graph_lacks_and_keeps_the_rest(
    graph: Graph, fake_embedder: Embedder
) -> None:
    """Only what is missing is created (found by name), and a dropped index and a dropped
    uniqueness constraint both come back ONLINE."""
    kept = {s.name: s.id for s in index_states(graph)}
    graph.run("DROP INDEX document_title IF EXISTS")
    graph.run("DROP CONSTRAINT claim_id IF EXISTS")
    assert {"document_title", "claim_id"}.isdisjoint(s.name for s in index_states(graph))
    states = {s.name: s for s in apply_schema(graph, fake_embedder.dimension)}
    assert states["document_title"].state == states["claim_id"].state == "ONLINE"
    assert set(states) == set(kept)
    assert all(
        states[name].id == kept[name] for name in kept.keys() - {"document_title", "claim_id"}
    )
