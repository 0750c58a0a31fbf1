"""Every statement in cypher/ compiles on the real server (EXPLAIN plans without running), and
returns the columns of its row type (``anchorgraph.graph.rows``), no more and no fewer."""

from __future__ import annotations

import neo4j
import pytest

from anchorgraph.graph.queries import Statement, every_statement, statements
from anchorgraph.graph.rows import NoRow
from anchorgraph.settings import Settings

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("query", every_statement(), ids=str)
def test_explain(query: Statement[object], driver: neo4j.Driver, settings: Settings) -> None:
    row = query.row
    declared = set(row.__required_keys__ | row.__optional_keys__)  # type: ignore[attr-defined]
    for statement in statements(query):
        result = driver.execute_query(f"EXPLAIN {statement}", database_=settings.neo4j_database)
        assert result.summary.plan is not None, f"{query}: no plan for {statement[:60]}"
        if query.row is NoRow:
            assert result.keys == [], f"{query} is typed NoRow but returns {result.keys}"
        else:
            assert set(result.keys) == declared, (
                f"{query}: the statement returns {sorted(result.keys)}, "
                f"its row {row.__name__} declares {sorted(declared)}"
            )
