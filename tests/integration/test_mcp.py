"""`anchorgraph mcp` with the MCP SDK's own client, against the real server, model and sample
corpus: spawned over stdio (as a desktop agent does) and served over streamable HTTP; the client
lists the four tools and calls them."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from sample_graph import SampleGraphs

from anchorgraph.embedding import Embedder
from anchorgraph.graph.driver import neo4j_auth
from anchorgraph.graph.local_server import free_port
from anchorgraph.settings import Settings

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ANCHORGRAPH = str(Path(sys.executable).parent / "anchorgraph")
FOUNDING = "people/helena-vasconcelos.md"
QUESTION = "Who asked the Fundação Aurora to give its collection to a new museum?"
TOOLS = {"search", "get_document", "neighbourhood", "explain_fd"}
# The server loads the model before it answers; the machine is shared.
TIMEOUT_S = 300


@pytest.fixture(scope="module")
def server_env(
    sample_graph: SampleGraphs, settings: Settings, embedder: Embedder
) -> dict[str, str]:
    # As Library.ingest(sample_corpus()) writes it: the settings' extractor (spaCy's pipeline).
    sample_graph(embedder, spacy=True, casing_names=settings.casing_names)
    return {
        **os.environ,
        "ANCHORGRAPH_NEO4J_URI": settings.bolt_uri,
        "ANCHORGRAPH_NEO4J_PASSWORD": neo4j_auth(settings)[1],
    }


async def exercise(session: Any) -> dict[str, Any]:
    """Every tool once, and calls that must fail: what the assertions read."""
    await session.initialize()
    listed = await session.list_tools()
    calls = {
        "search": ("search", {"query": QUESTION, "level": "document", "k": 3}),
        "expand": (
            "search",
            {"query": QUESTION, "level": "document", "k": 3, "expand": {"links": True}},
        ),
        "document": ("get_document", {"id": FOUNDING}),
        "neighbourhood": ("neighbourhood", {"id": FOUNDING, "depth": 1, "limit": 20}),
        "fd": ("explain_fd", {"id": FOUNDING}),
        "fd_chunk": ("explain_fd", {"id": f"{FOUNDING}#0"}),
        "bad": ("search", {"query": QUESTION, "k": 0}),
        "rule": (
            "search",
            {"query": QUESTION, "mode": "dense", "fusion": {"pagerank_weight": 1.0}},
        ),
        "unknown": ("search", {"query": QUESTION, "bogus": 1}),
        "missing": ("get_document", {"id": "no/such/document.md"}),
        "elsewhere": ("get_document", {"id": FOUNDING, "collection": "other"}),
        "fd_missing": ("explain_fd", {"id": "no/such/document.md"}),
    }
    answers = {
        key: await session.call_tool(name, arguments) for key, (name, arguments) in calls.items()
    }
    return {"tools": listed.tools, **answers}


def check(answers: dict[str, Any]) -> None:
    tools = {tool.name: tool for tool in answers["tools"]}
    assert set(tools) == TOOLS
    # search takes every SearchOptions field, with the model's bounds; each stage's group.
    properties = tools["search"].inputSchema["properties"]
    assert {"query", "mode", "level", "k", "filters", "fusion", "feedback", "fd", "expand"} <= set(
        properties
    )
    assert properties["k"]["minimum"] == 1 and properties["k"]["maximum"] == 1000
    assert tools["search"].inputSchema["required"] == ["query"]
    # Every tool says it takes nothing else, and refuses anything else (below).
    assert all(tool.inputSchema["additionalProperties"] is False for tool in tools.values())

    found = answers["search"]
    assert not found.isError
    hits = found.structuredContent["hits"]
    assert hits[0]["document_id"] == FOUNDING and len(hits) == 3
    # explain is on by default here: each path's share, adding up to the score.
    shares = sum(path["contribution"] for path in hits[0]["paths"].values())
    assert shares + sum(hits[0]["priors"].values()) == pytest.approx(hits[0]["score"], abs=1e-6)
    assert hits[0]["fd"]["rescaled"] >= 0
    # The text content is the same answer as JSON, for clients without structured content.
    assert json.loads(found.content[0].text)["hits"][0]["document_id"] == FOUNDING
    expanded = answers["expand"].structuredContent
    assert any(hit["supporting"] for hit in expanded["hits"])
    assert expanded["tokens"]["returned"] > expanded["tokens"]["without_expansion"]

    document = answers["document"].structuredContent
    assert document["id"] == FOUNDING and document["title"].startswith("Helena Vasconcelos")
    assert document["chunks"] and document["links"]
    neighbourhood = answers["neighbourhood"].structuredContent
    assert 1 < len(neighbourhood["nodes"]) <= 20
    center = next(n for n in neighbourhood["nodes"] if n["id"] == neighbourhood["center"])
    assert center["properties"]["id"] == f"default/{FOUNDING}"  # as the graph stores it
    fd = answers["fd"].structuredContent
    assert fd["document_id"] == FOUNDING
    assert set(fd["chunks"]) == {chunk["id"] for chunk in document["chunks"]}
    assert fd["document"]["level"] == "document" and 0 <= fd["document"]["rescaled"] <= 1
    one_chunk = answers["fd_chunk"].structuredContent
    assert one_chunk["document_id"] == FOUNDING and list(one_chunk["chunks"]) == [f"{FOUNDING}#0"]
    assert one_chunk["chunks"][f"{FOUNDING}#0"] == fd["chunks"][f"{FOUNDING}#0"]
    assert one_chunk["document"] == fd["document"]

    failures = {
        "bad": "k",
        "rule": "pagerank_weight",
        "unknown": "bogus\n  Extra inputs are not permitted",
        "missing": "no/such",
        "elsewhere": "'other'",
        "fd_missing": "no/such",
    }
    for key, says in failures.items():
        assert answers[key].isError, key
        assert says in answers[key].content[0].text


def test_stdio(server_env: dict[str, str]) -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    parameters = StdioServerParameters(command=ANCHORGRAPH, args=["mcp"], env=server_env)

    async def run() -> dict[str, Any]:
        with anyio.fail_after(TIMEOUT_S):
            async with (
                stdio_client(parameters) as (read, write),
                ClientSession(read, write) as session,
            ):
                return await exercise(session)

    check(anyio.run(run))


@pytest.fixture
def http_server(server_env: dict[str, str], tmp_path: Path) -> Iterator[str]:
    port = free_port()
    log = tmp_path / "mcp.log"  # a file, not a pipe: a full pipe would stall the server
    with log.open("w") as stderr:
        process = subprocess.Popen(
            [ANCHORGRAPH, "mcp", "--http", "--port", str(port)],
            env=server_env,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    try:
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            assert process.poll() is None, log.read_text()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the MCP server did not listen in time"
                time.sleep(0.5)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_streamable_http(http_server: str) -> None:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async def run() -> dict[str, Any]:
        with anyio.fail_after(TIMEOUT_S):
            async with (
                streamable_http_client(http_server) as (read, write, _),
                ClientSession(read, write) as session,
            ):
                return await exercise(session)

    check(anyio.run(run))
