"""The ``sample_graph`` fixture (tests/sample_graph.py) that the modules searching the sample
corpus share: it ingests only when the graph does not hold exactly what the same options wrote,
and any write in between, a wipe or an addition, makes it ingest again."""

from __future__ import annotations

import pytest
from sample_graph import SampleGraphs

from anchorgraph.embedding import HashEmbedder
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.queries import Query, cypher

pytestmark = pytest.mark.integration


def documents(graph: Graph) -> dict[str, int]:
    """Documents per collection."""
    records = graph.driver.execute_query(
        "MATCH (d:Document) RETURN d.collection AS collection, count(d) AS n"
    ).records
    return {record["collection"]: record["n"] for record in records}


def test_the_sample_is_ingested_again_only_after_a_write(
    sample_graph: SampleGraphs, fake_embedder: HashEmbedder, graph: Graph
) -> None:
    sample_graph(fake_embedder)
    ingests = sample_graph.ingests
    assert documents(sample_graph(fake_embedder)) == {"default": 12}
    assert sample_graph.ingests == ingests  # reads in between write nothing

    # Other options: the graph holds the sample as they say, and nothing of the first.
    assert documents(sample_graph(fake_embedder, collections=["one", "two"])) == {
        "one": 12,
        "two": 12,
    }
    assert sample_graph.ingests == ingests + 1

    # A node written beside the sample: the next request gets a graph without it.
    graph.driver.execute_query("CREATE (:Stray {id: 'stray'})")
    held = sample_graph(fake_embedder, collections=["one", "two"])
    assert sample_graph.ingests == ingests + 2
    assert held.driver.execute_query("MATCH (n:Stray) RETURN count(n) AS n").records[0]["n"] == 0

    # A wipe, as clean_graph does: ingested again.
    graph.driver.execute_query(cypher(Query.DELETE_ALL))
    assert documents(sample_graph(fake_embedder, collections=["one", "two"])) == {
        "one": 12,
        "two": 12,
    }
    assert sample_graph.ingests == ingests + 3
