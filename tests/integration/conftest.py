"""The integration tests' shared fixtures: the sample corpus (``sample_graph``) and a real object
store (``seaweedfs``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from objectstore.seaweedfs import SeaweedFS
from sample_graph import SampleGraphs

from anchorgraph.graph.gateway import Graph
from anchorgraph.settings import Settings


@pytest.fixture(scope="session")
def sample_graph(graph: Graph, settings: Settings) -> SampleGraphs:
    """``sample_graph(embedder, gazetteer=True, ...)``: the session's graph holding the sample
    corpus ingested with those options (tests/sample_graph.py) and nothing else, ingested again
    only if anything has written to the graph since the last ingest of the same options. Ask
    for it in the fixture or test that uses the graph, not earlier: a ``clean_graph`` or another
    ingest in between empties or changes it (a module whose tests write must ask again).

    Each pytest-xdist worker has a server and a session of its own, so the record is per
    worker; with ``--dist loadfile`` a module's tests run together, and a module-scoped fixture
    that asks for the sample holds it until the module's own tests change it."""
    return SampleGraphs(graph, settings)


@pytest.fixture(scope="session")
def seaweedfs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SeaweedFS]:
    """A real SeaweedFS with its S3 gateway on loopback (tests/objectstore/seaweedfs.py),
    anonymous access, started once per session (per worker) and stopped at its end."""
    server = SeaweedFS(tmp_path_factory.mktemp("seaweedfs")).start()
    try:
        yield server
    finally:
        server.stop()
