"""``ANCHORGRAPH_NEO4J_URI=neo4j://…``: the routing driver, reads sent to readers and writes to
the leader, against the session's server (a single server routes to itself, as Aura or a
cluster's routing table would to its members).

What a cluster would do with each statement is decided by its access mode: a read session's
statement goes to a reader, a managed write to the leader. A single server enforces the same
mode, refusing a write sent as a read, so sending one through ``Graph.read`` shows that reads
really go out as reads (and ``Graph.write`` that writes go out as writes)."""

from __future__ import annotations

from collections.abc import Iterator

import neo4j
import pytest
from fastapi.testclient import TestClient
from neo4j.exceptions import ClientError
from pydantic import SecretStr

from anchorgraph.app import create_app
from anchorgraph.embedding import HashEmbedder
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.local_server import LocalNeo4j
from anchorgraph.graph.queries import Query, cypher
from anchorgraph.runtime import Runtime, open_runtime
from anchorgraph.settings import Settings

pytestmark = pytest.mark.integration


@pytest.fixture
def routed(clean_graph: Graph, settings: Settings) -> Settings:
    """The session's server addressed with the neo4j:// (routing) scheme."""
    _scheme, _, address = settings.bolt_uri.partition("://")
    password = settings.neo4j_password or SecretStr(LocalNeo4j(settings).password())
    return settings.model_copy(
        update={"neo4j_uri": f"neo4j://{address}", "neo4j_password": password, "spacy_model": ""}
    )


@pytest.fixture
def routed_runtime(routed: Settings, fake_embedder: HashEmbedder) -> Iterator[Runtime]:
    with open_runtime(routed, schema="apply", embedder_factory=lambda _: fake_embedder) as rt:
        yield rt


def test_reads_go_out_as_reads_and_writes_as_writes(routed_runtime: Runtime) -> None:
    graph = routed_runtime.graph
    assert isinstance(graph.driver, neo4j.Neo4jDriver)  # the routing driver, not a direct one
    assert graph.uri.startswith("neo4j://")
    statement = cypher(Query.DELETE_ALL)

    with pytest.raises(ClientError) as refused:
        graph.read(Query.DELETE_ALL)  # a write, sent as a read: a reader refuses it
    assert refused.value.code == "Neo.ClientError.Statement.AccessMode"
    graph.write(lambda tx: tx.run(statement).consume())  # the same, as a write: accepted


def test_the_api_searches_and_writes_over_the_routing_scheme(
    routed: Settings, fake_embedder: HashEmbedder
) -> None:
    app = create_app(routed, embedder_factory=lambda _: fake_embedder)
    note = {
        "id": "notes/router.md",
        "text": "# Router\n\nThe router R-7 sends reads to the followers.",
        "format": "markdown",
    }
    with TestClient(app) as client:
        health = client.get("/health").json()
        assert health["status"] == "ok" and health["neo4j"]["uri"].startswith("neo4j://")
        assert client.post("/documents", json=note).status_code == 201  # a write
        hits = client.post("/search", json={"query": "router R-7 reads"}).json()["hits"]
        assert [hit["document_id"] for hit in hits] == ["notes/router.md"]  # reads
        assert client.get("/documents/notes/router.md").json()["title"] == "Router"
        assert client.delete("/documents/notes/router.md").status_code in (200, 204)
        assert client.get("/documents").json()["total"] == 0
