"""Every statement in cypher/ compiles on the real server (EXPLAIN plans without running)."""

from __future__ import annotations

import neo4j
import pytest

from anchorgraph.graph.queries import Query, statements
from anchorgraph.settings import Settings

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("query", list(Query), ids=str)
def test_explain(query: Query, driver: neo4j.Driver, settings: Settings) -> None:
    for statement in statements(query):
        summary = driver.execute_query(
            f"EXPLAIN {statement}", database_=settings.neo4j_database
        ).summary
        assert summary.plan is not None, f"{query}: no plan for {statement[:60]}"
