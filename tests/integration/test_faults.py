"""Neo4j goes away under a running API: every route answers 503 quickly, with a clear message,
and the API recovers by itself when Neo4j comes back (its own throwaway server, so the rest of
the suite keeps the session's)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from service.app import create_app
from service.embedding import HashEmbedder
from service.graph.local_server import LocalNeo4j, throwaway_settings
from service.settings import Settings

pytestmark = pytest.mark.integration

# The bound: a request answers within 3 s of being made when Neo4j is down.
BOUND_S = 3.0
NOTE = {
    "id": "notes/pump.md",
    "text": "# Pump\n\nThe pump P-100 feeds the valve.",
    "format": "markdown",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LocalNeo4j, Settings]]:
    settings = throwaway_settings(
        Path(tmp_path_factory.mktemp("faults")), heap="512m", pagecache="64m"
    ).model_copy(update={"spacy_model": ""})
    local = LocalNeo4j(settings)
    local.start()
    try:
        yield local, settings
    finally:
        local.stop()


def test_a_stopped_neo4j_gives_503_within_bounds_and_the_api_recovers(
    server: tuple[LocalNeo4j, Settings],
) -> None:
    local, settings = server
    app = create_app(settings, embedder_factory=lambda _: HashEmbedder(384))
    requests = {
        "search": lambda client: client.post("/search", json={"query": "pump valve"}),
        "documents": lambda client: client.get("/documents"),
        "document": lambda client: client.get("/documents/notes/pump.md"),
        "health": lambda client: client.get("/health"),
        "entities": lambda client: client.get("/entities", params={"q": "pump"}),
    }
    with TestClient(app) as client:
        assert client.post("/documents", json=NOTE).status_code == 201
        for name, request in requests.items():
            assert request(client).status_code == 200, name

        local.stop()
        for name, request in requests.items():
            started = time.monotonic()
            response = request(client)
            elapsed = time.monotonic() - started
            assert response.status_code == 503, (name, response.text)
            print(f"{name}: {response.status_code} in {elapsed * 1000:.0f} ms")  # -s shows them
            assert elapsed <= BOUND_S, f"{name} took {elapsed:.1f} s"
            body = response.json()
            if name == "health":
                assert body["status"] == "unavailable" and body["neo4j"]["reachable"] is False
                assert "unavailable" in body["neo4j"]["error"]
            else:
                assert body["error"] == "GraphUnavailable"
                assert settings.bolt_uri in body["detail"] and "unavailable" in body["detail"]
        # A write while Neo4j is down fails whole, and clearly.
        started = time.monotonic()
        refused = client.post("/documents", json={**NOTE, "id": "notes/valve.md"})
        assert refused.status_code == 503 and time.monotonic() - started <= BOUND_S

        local.start()  # same home, same data, same password: the API is not restarted
        for name, request in requests.items():
            response = request(client)
            assert response.status_code == 200, (name, response.text)
        assert client.get("/documents").json()["total"] == 1  # the refused write left nothing
        hits = client.post("/search", json={"query": "pump valve"}).json()["hits"]
        assert [hit["document_id"] for hit in hits] == ["notes/pump.md"]
