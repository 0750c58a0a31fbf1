"""Shared fixtures: a real Neo4j for the session, a driver, the real embedding model.

With ``ANCHORGRAPH_NEO4J_URI`` set, the tests use that server; because they wipe the graph between
tests, they also demand ``ANCHORGRAPH_TEST_WIPE_OK=1`` as consent. Otherwise they start the
project's own local Neo4j on free ports in a temporary folder and stop it at the end.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import neo4j
import pytest

from service.app import default_embedder
from service.embedding import Embedder
from service.graph.driver import connect
from service.graph.local_server import LocalNeo4j, throwaway_settings
from service.graph.queries import Query, cypher
from service.graph.schema import apply_schema
from service.settings import Settings

SHARED = Path(__file__).resolve().parents[2] / "shared"


def _isolated_environment() -> None:
    """Keep a developer's own ANCHORGRAPH_* settings and .env out of the tests' local server."""
    for key in list(os.environ):
        if key.startswith("ANCHORGRAPH_") and key not in {
            "ANCHORGRAPH_NEO4J_URI",
            "ANCHORGRAPH_NEO4J_USER",
            "ANCHORGRAPH_NEO4J_PASSWORD",
            "ANCHORGRAPH_NEO4J_DATABASE",
            "ANCHORGRAPH_CACHE_DIR",
            "ANCHORGRAPH_TEST_WIPE_OK",
        }:
            del os.environ[key]


@pytest.fixture(scope="session")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    _isolated_environment()
    if os.environ.get("ANCHORGRAPH_NEO4J_URI"):
        if os.environ.get("ANCHORGRAPH_TEST_WIPE_OK") != "1":
            pytest.exit(
                "ANCHORGRAPH_NEO4J_URI is set: the tests wipe that graph, so they also need "
                "ANCHORGRAPH_TEST_WIPE_OK=1. Unset the URI to use a throwaway local server.",
                returncode=2,
            )
        yield Settings(_env_file=None)
        return
    home = tmp_path_factory.mktemp("neo4j")
    # Small: the test graph is tiny and the machine is shared with the model.
    local = throwaway_settings(home, heap="1g", pagecache="256m")
    server = LocalNeo4j(local)
    server.start()
    try:
        yield local
    finally:
        server.stop()


@pytest.fixture(scope="session")
def embedder(settings: Settings) -> Embedder:
    return default_embedder(settings)


@pytest.fixture(scope="session")
def driver(settings: Settings, embedder: Embedder) -> Iterator[neo4j.Driver]:
    with connect(settings) as drv:
        apply_schema(drv, settings.neo4j_database, embedder.dimension)
        yield drv


@pytest.fixture
def clean_graph(driver: neo4j.Driver, settings: Settings) -> neo4j.Driver:
    """An empty graph (schema kept) for a test that counts what it writes."""
    driver.execute_query(cypher(Query.DELETE_ALL), database_=settings.neo4j_database)
    return driver
