"""The schema applies idempotently and refuses vectors of another size."""

from __future__ import annotations

import neo4j
import pytest

from service.embedding import Embedder
from service.errors import InvalidInput
from service.graph.schema import apply_schema, index_states
from service.settings import Settings

pytestmark = pytest.mark.integration


def test_schema_is_complete_online_and_idempotent(
    driver: neo4j.Driver, settings: Settings, embedder: Embedder
) -> None:
    before = {(s.name, s.type) for s in index_states(driver, settings.neo4j_database)}
    states = apply_schema(driver, settings.neo4j_database, embedder.dimension)
    assert {(s.name, s.type) for s in states} == before
    assert all(s.state == "ONLINE" for s in states)
    kinds = {s.name: s.type for s in states}
    for name in ("chunk_embedding", "document_embedding", "entity_embedding", "triple_embedding"):
        assert kinds[name] == "VECTOR"
    for name in ("chunk_text", "document_text", "document_title", "entity_name"):
        assert kinds[name] == "FULLTEXT"


def test_a_model_of_another_dimension_is_refused(
    driver: neo4j.Driver, settings: Settings, embedder: Embedder
) -> None:
    with pytest.raises(InvalidInput, match="dimension"):
        apply_schema(driver, settings.neo4j_database, embedder.dimension + 1)
