"""The project's own Neo4j: runs on loopback, refuses a second start, stops without orphans."""

from __future__ import annotations

import urllib.request
from pathlib import Path

import numpy as np
import pytest

from anchorgraph.errors import LocalServerError
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.local_server import LocalNeo4j, _alive, free_port, throwaway_settings
from anchorgraph.settings import Settings

pytestmark = pytest.mark.integration


def test_browser_is_served_on_the_http_port(settings: Settings) -> None:
    if not settings.uses_local_server:
        pytest.skip("an external server was given")
    with urllib.request.urlopen(LocalNeo4j(settings).browser_url, timeout=10) as response:
        assert response.status == 200
        assert b"<html" in response.read(4096).lower()


def test_second_start_says_it_already_runs(settings: Settings) -> None:
    if not settings.uses_local_server:
        pytest.skip("an external server was given")
    with pytest.raises(LocalServerError, match="already running"):
        LocalNeo4j(settings).start()


def test_status_says_where_the_server_runs_when_the_settings_moved_its_ports(
    settings: Settings,
) -> None:
    if not settings.uses_local_server:
        pytest.skip("an external server was given")
    running = LocalNeo4j(settings).status()
    assert running.running and running.configured is None
    moved = settings.model_copy(update={"neo4j_bolt_port": free_port()})
    status = LocalNeo4j(moved).status()
    assert (status.pid, status.bolt_uri) == (running.pid, running.bolt_uri)
    assert status.configured is not None
    assert status.configured[0] == LocalNeo4j(moved).bolt_uri != running.bolt_uri


def test_start_and_stop_leave_no_jvm(tmp_path: Path) -> None:
    server = LocalNeo4j(
        Settings(
            _env_file=None,
            neo4j_home=tmp_path,
            neo4j_bolt_port=free_port(),
            neo4j_http_port=free_port(),
            neo4j_heap="512m",
            neo4j_pagecache="64m",
            # neo4j-admin took a password starting with "-" for options, printed its help, set
            # nothing and exited 0; one generated password in 64 starts so (token_urlsafe).
            neo4j_password="-hTQvdp2hIkBv3HJ34WXcYsj",
        )
    )
    status = server.start()  # returns once Bolt accepts that password
    assert status.running and status.pid is not None
    assert server.stop()
    assert not _alive(status.pid)
    assert not server.status().running
    assert not server.stop()  # stopping twice is harmless


def test_a_start_maps_the_class_archive_the_first_server_wrote_as_it_stopped(
    tmp_path: Path,
) -> None:
    """The first server of a Java and a set of jars writes their class archive as it exits;
    the next one, in another home, maps it; a user's own class-sharing option wins."""
    jars = LocalNeo4j(Settings(_env_file=None)).install()
    cache = tmp_path / "cache"  # the real jars, and a cache with no archive yet
    (cache / jars.parent.name).mkdir(parents=True)
    (cache / jars.parent.name / "lib").symlink_to(jars)

    def server(home: str, jvm_options: str = "") -> LocalNeo4j:
        return LocalNeo4j(
            throwaway_settings(tmp_path / home, heap="512m", pagecache="64m").model_copy(
                update={"cache_dir": cache, "neo4j_jvm_options": jvm_options}
            )
        )

    first = server("first")
    archive = first.class_archive(first.java())
    writing = jvm_flags(first.start().pid)
    assert any(flag.startswith("-XX:ArchiveClassesAtExit=") for flag in writing)
    assert first.stop()
    assert archive.stat().st_size > 0
    assert [path.name for path in archive.parent.iterdir()] == [archive.name]  # no part left

    second = server("second")
    pid = second.start().pid
    try:
        assert f"-XX:SharedArchiveFile={archive}" in jvm_flags(pid)
        assert str(archive) in Path(f"/proc/{pid}/maps").read_text()
    finally:
        second.stop()

    own = server("own", "-Xshare:off")
    pid = own.start().pid
    try:
        assert not any("Archive" in flag for flag in jvm_flags(pid))
    finally:
        own.stop()


def jvm_flags(pid: int | None) -> list[str]:
    """The flags a running JVM was started with (before its class path)."""
    command = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
    return command[: command.index("-cp")]


def test_the_jvm_options_setting_reaches_the_server(settings: Settings) -> None:
    """ANCHORGRAPH_NEO4J_JVM_OPTIONS comes after the project's own flags (the last wins)."""
    if not settings.uses_local_server:
        pytest.skip("an external server was given")
    pid = LocalNeo4j(settings).status().pid
    assert settings.neo4j_jvm_options and pid is not None
    flags = jvm_flags(pid)
    assert flags[-len(settings.neo4j_jvm_options.split()) :] == settings.neo4j_jvm_options.split()


def test_a_taken_port_is_reported(settings: Settings, tmp_path: Path) -> None:
    if not settings.uses_local_server:
        pytest.skip("an external server was given")
    clash = LocalNeo4j(
        Settings(_env_file=None, neo4j_home=tmp_path, neo4j_bolt_port=settings.neo4j_bolt_port)
    )
    with pytest.raises(LocalServerError, match="taken"):
        clash.start()


_PROBE_VECTORS = (
    "UNWIND $vectors AS vector CREATE (probe:SegmentProbe) "
    "WITH probe, vector CALL db.create.setNodeVectorProperty(probe, 'embedding', vector)"
)


def test_a_populated_vector_index_is_one_segment(graph: Graph, settings: Settings) -> None:
    """A vector query walks each Lucene segment's graph apart. With Neo4j's defaults an index
    populated from 20,000 vectors landed in 4 segments (a segment per ~5,000); from 10,000, as
    here, it would land in 2. With our server settings: one. (Writes after population merge
    pairwise: benchmarks/ingest.py prints the segments they leave.)"""
    if not settings.uses_local_server:
        pytest.skip("an external server was given")
    database, driver = settings.neo4j_database, graph.driver
    rng = np.random.default_rng(0)
    for _ in range(2):
        matrix = rng.normal(size=(5000, 384))
        vectors = (matrix / np.linalg.norm(matrix, axis=1, keepdims=True)).tolist()
        driver.execute_query(_PROBE_VECTORS, {"vectors": vectors}, database_=database)
    try:
        driver.execute_query(
            "CREATE VECTOR INDEX segment_probe FOR (p:SegmentProbe) ON p.embedding OPTIONS "
            "{indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}}",
            database_=database,
        )
        driver.execute_query("CALL db.awaitIndexes(300)", database_=database)
        segments = LocalNeo4j(settings).vector_index_segments(graph)
        assert segments["segment_probe"] == 1
    finally:
        driver.execute_query("DROP INDEX segment_probe IF EXISTS", database_=database)
        driver.execute_query("MATCH (p:SegmentProbe) DELETE p", database_=database)
