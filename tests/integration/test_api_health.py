"""GET /health and the docs, through the real app lifespan against the real server."""

from __future__ import annotations

import gc

import pytest
from fastapi.testclient import TestClient

from anchorgraph.app import create_app
from anchorgraph.errors import GraphUnavailable
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.local_server import free_port
from anchorgraph.settings import Settings

pytestmark = pytest.mark.integration


@pytest.mark.slow  # the app loads the real model (its ONNX query runtime is checked)
def test_health_reports_graph_indexes_and_model(settings: Settings, graph: Graph) -> None:
    with TestClient(create_app(settings)) as client:
        # Start-up state is kept out of the cyclic collector's full passes while it serves.
        assert gc.get_freeze_count() > 100_000
        response = client.get("/health")
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["status"] == "ok"
        assert body["neo4j"]["reachable"] is True
        assert body["neo4j"]["version"].startswith("5.26")
        assert body["model"]["dimension"] == 384
        assert body["model"]["query_runtime"] == "onnx"
        names = {index["name"] for index in body["indexes"]}
        assert {"chunk_embedding", "chunk_text", "document_id"} <= names
        assert client.get("/docs").status_code == 200
        assert "/health" in client.get("/openapi.json").json()["paths"]
    assert gc.get_freeze_count() == 0  # and freed at shutdown


def test_unreachable_graph_fails_startup_clearly() -> None:
    dead = Settings(_env_file=None, neo4j_uri=f"bolt://127.0.0.1:{free_port()}",
                    neo4j_password="whatever-it-is")  # fmt: skip
    with pytest.raises(GraphUnavailable, match="not usable"), TestClient(create_app(dead)):
        pass
