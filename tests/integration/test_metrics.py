"""GET /metrics: Prometheus text that moves with what the API does — requests by route
template and status, their latency, each search stage's time, and Neo4j failures."""

from __future__ import annotations

from dataclasses import replace

import neo4j
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from anchorgraph.embedding import Embedder
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.local_server import free_port
from anchorgraph.retrieval.context import SearchContext
from anchorgraph.runtime import Runtime

pytestmark = pytest.mark.integration

NOTE = {
    "id": "notes/pump.md",
    "text": "# Pump\n\nThe pump P-100 feeds the valve.",
    "format": "markdown",
}


def scrape(client: TestClient) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of /metrics by name and labels, parsed as a Prometheus server would."""
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def value(
    samples: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str, **labels: str
) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def test_requests_are_counted_and_timed_by_route_template(client: TestClient) -> None:
    before = scrape(client)
    assert client.post("/documents", json=NOTE).status_code == 201
    for _ in range(3):
        assert client.get("/documents/notes/pump.md").status_code == 200
    assert client.get("/documents/notes/missing.md").status_code == 404
    assert client.get("/no/such/route").status_code == 404
    after = scrape(client)

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    template = "/documents/{document_id:path}"
    requests = "anchorgraph_http_requests_total"
    assert moved(requests, method="GET", route=template, status="200") == 3
    assert moved(requests, method="GET", route=template, status="404") == 1
    assert moved(requests, method="POST", route="/documents", status="201") == 1
    assert moved(requests, method="GET", route="unrouted", status="404") == 1
    # No series names a raw path: the number of series stays bounded.
    assert not any("notes/pump.md" in str(labels) for _, labels in after)
    seconds = "anchorgraph_http_request_duration_seconds"
    assert moved(f"{seconds}_count", method="GET", route=template) == 4
    assert moved(f"{seconds}_sum", method="GET", route=template) > 0
    # The histogram's buckets are cumulative: the +Inf bucket holds every observation.
    assert moved(f"{seconds}_bucket", method="GET", route=template, le="+Inf") == 4


def test_search_stages_are_timed(client: TestClient) -> None:
    assert client.post("/documents", json=NOTE).status_code == 201
    before = scrape(client)
    result = client.post("/search", json={"query": "pump valve", "k": 3}).json()
    client.post("/search", json={"query": "pump", "mode": "dense", "level": "document"})
    after = scrape(client)
    stages = {timing["stage"] for timing in result["timings"]}
    assert {"analyse", "fuse", "hydrate", "path:dense", "path:bm25"} <= stages
    stage_count = "anchorgraph_search_stage_duration_seconds_count"
    for stage in stages:
        moved = value(after, stage_count, stage=stage) - value(before, stage_count, stage=stage)
        assert moved >= 1, stage
    searches = "anchorgraph_search_duration_seconds_count"
    for mode, level in (("hybrid", "chunk"), ("dense", "document")):
        moved = value(after, searches, mode=mode, level=level) - value(
            before, searches, mode=mode, level=level
        )
        assert moved == 1, (mode, level)
    total = "anchorgraph_search_duration_seconds_sum"
    assert value(after, total, mode="hybrid", level="chunk") > value(
        before, total, mode="hybrid", level="chunk"
    )


def test_neo4j_failures_are_counted(client: TestClient, fake_embedder: Embedder) -> None:
    """The running app's runtime is swapped for one whose graph is a real driver pointed at a
    port nothing listens on (stopping the session's server would take it from every other
    test): each request then fails on Neo4j, as with a server that went away."""
    errors = "anchorgraph_neo4j_errors_total"
    app = client.app
    assert isinstance(app, FastAPI)
    runtime: Runtime = app.state.runtime
    uri = f"bolt://127.0.0.1:{free_port()}"
    driver = neo4j.GraphDatabase.driver(uri, auth=("neo4j", "x"), connection_timeout=1.0)
    gone = Graph(driver, runtime.graph.database, uri=uri, retry_s=0.2)
    before = scrape(client)
    app.state.runtime = replace(runtime, graph=gone, search=SearchContext(gone, fake_embedder))
    try:
        for request in (
            lambda: client.get("/documents"),
            lambda: client.post("/search", json={"query": "pump"}),
            lambda: client.get("/entities", params={"q": "pump"}),
        ):
            assert request().status_code == 503
    finally:
        app.state.runtime = runtime
        gone.close()
    after = scrape(client)
    moved = value(after, errors, error="GraphUnavailable") - value(
        before, errors, error="GraphUnavailable"
    )
    assert moved == 3
    requests = "anchorgraph_http_requests_total"
    assert value(after, requests, method="POST", route="/search", status="503") >= 1
