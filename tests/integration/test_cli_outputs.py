"""What the command line leaves on the screen and on disk: the local Neo4j's password only when
asked for (`anchorgraph neo4j password`), never in `neo4j start`, `neo4j status`, `run` or
`serve`, which name the file it is in; the audits' plots in the data folder, never in the folder
the command runs in; documents' text in search results as written."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from sample_graph import SampleGraphs
from typer.testing import CliRunner
from uvicorn_thread import served

from anchorgraph.app import create_app
from anchorgraph.cli.main import app
from anchorgraph.cli.output import console
from anchorgraph.embedding import HashEmbedder
from anchorgraph.graph.driver import neo4j_auth
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.local_server import LocalNeo4j
from anchorgraph.loaders.entities import EntityExtractor
from anchorgraph.loaders.ingest import Ingestor
from anchorgraph.loaders.read import read_bytes
from anchorgraph.settings import Settings

pytestmark = pytest.mark.integration


@pytest.fixture
def local(settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> LocalNeo4j:
    """The test server as the command line sees it with no password configured: a generated
    one, in the server's password file."""
    if not settings.uses_local_server:
        pytest.skip("an external server was given")
    monkeypatch.chdir(tmp_path)  # no .env of the checkout
    for key in ("ANCHORGRAPH_NEO4J_URI", "ANCHORGRAPH_NEO4J_PASSWORD"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("ANCHORGRAPH_NEO4J_HOME", str(settings.neo4j_home))
    monkeypatch.setenv("ANCHORGRAPH_NEO4J_BOLT_PORT", str(settings.neo4j_bolt_port))
    monkeypatch.setenv("ANCHORGRAPH_NEO4J_HTTP_PORT", str(settings.neo4j_http_port))
    server = LocalNeo4j(settings)
    assert server.password_file.exists()
    return server


def test_status_names_the_password_file_and_only_neo4j_password_prints_it(
    local: LocalNeo4j, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    password = local.password()
    runner = CliRunner()

    status = runner.invoke(app, ["neo4j", "status"])
    assert status.exit_code == 0, status.output
    assert f"Neo4j is running (pid {local.status().pid})" in status.output
    assert local.bolt_uri in status.output
    assert password not in status.output
    assert str(local.password_file) in status.output

    shown = runner.invoke(app, ["neo4j", "password"])
    assert shown.exit_code == 0, shown.output
    assert shown.stdout == f"{password}\n"

    # A server never started has no password yet: asking makes none.
    monkeypatch.setenv("ANCHORGRAPH_NEO4J_HOME", str(tmp_path / "never-started"))
    none_yet = runner.invoke(app, ["neo4j", "password"])
    assert none_yet.exit_code == 1 and "no password yet" in none_yet.output
    assert not (tmp_path / "never-started" / "password").exists()


def test_start_run_and_serve_name_the_password_file_never_the_password(
    local: LocalNeo4j, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What `neo4j start`, `run` and `serve` print before their work: the server is the test's
    (already running), so starting it, loading the model and serving the API are stood in
    for."""
    password = local.password()
    running = local.status()
    stopped = dataclasses.replace(running, running=False, pid=None)
    statuses = iter([stopped])  # `neo4j start` finds it stopped, then it runs
    monkeypatch.setattr(LocalNeo4j, "status", lambda _self: next(statuses, running))
    monkeypatch.setattr(LocalNeo4j, "start", lambda _self: running)
    served: list[dict[str, Any]] = []
    monkeypatch.setattr("uvicorn.run", lambda app, **options: served.append(options))
    monkeypatch.setattr("anchorgraph.app.create_app", lambda settings, **_: object())
    monkeypatch.setattr("anchorgraph.runtime.load_for_writing", lambda _: HashEmbedder())
    runner = CliRunner()

    started = runner.invoke(app, ["neo4j", "start"])
    assert started.exit_code == 0, started.output
    assert f"Neo4j started (pid {running.pid})" in started.output
    ran = runner.invoke(app, ["run", "--no-sample", "--port", "8123"])
    assert ran.exit_code == 0, ran.output
    assert "Neo4j is running" in ran.output and "http://127.0.0.1:8123/" in ran.output
    serve = runner.invoke(app, ["serve", "--port", "8124"])
    assert serve.exit_code == 0, serve.output
    assert [options["port"] for options in served] == [8123, 8124]

    for shown in (started, ran):
        assert str(local.password_file) in shown.output
        assert "anchorgraph neo4j password" in shown.output
    for shown in (started, ran, serve):
        assert password not in shown.output


def test_an_audit_without_out_writes_into_the_data_folder_and_says_where(
    sample_graph: SampleGraphs,
    fake_embedder: HashEmbedder,
    settings: Settings,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sample_graph(fake_embedder)
    here, data = tmp_path / "here", tmp_path / "data"
    here.mkdir()
    monkeypatch.chdir(here)
    monkeypatch.setenv("ANCHORGRAPH_NEO4J_URI", settings.bolt_uri)
    monkeypatch.setenv("ANCHORGRAPH_NEO4J_PASSWORD", neo4j_auth(settings)[1])
    monkeypatch.setenv("ANCHORGRAPH_DATA_DIR", str(data))
    runner = CliRunner()

    done = runner.invoke(app, ["audit", "length"])
    assert done.exit_code == 0, done.output
    png = data / "audit" / "length.png"
    assert png.read_bytes().startswith(b"\x89PNG")
    assert f"plot: {png}" in done.stdout
    assert list(here.iterdir()) == []

    # With --json the output (stdout and stderr together) is the JSON alone; the plot still
    # goes to the data folder.
    as_json = runner.invoke(app, ["audit", "tiers", "--json"])
    assert as_json.exit_code == 0, as_json.output
    assert {level["level"] for level in json.loads(as_json.output)["levels"]} == {
        "chunk",
        "document",
    }
    assert (data / "audit" / "tiers.png").read_bytes().startswith(b"\x89PNG")
    assert list(here.iterdir()) == []


def test_the_search_table_shows_brackets_in_documents_as_written(
    clean_graph: Graph,
    fake_embedder: HashEmbedder,
    settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Text in square brackets is not console markup: shown, not swallowed or an error."""
    monkeypatch.setattr(console, "width", 200)  # no cell wrapped
    text = "Catalogue [1974] of the [the museum report] and a note [/x] about its galleries.\n"
    bracketed = read_bytes(
        text.encode(), doc_id="catalogue [draft].txt", fmt="text", max_bytes=10**6
    )
    Ingestor(clean_graph, fake_embedder, EntityExtractor(None)).ingest([bracketed])
    search = ["search", "catalogue [1974]", "--mode", "bm25", "-k", "1"]
    with served(create_app(settings, embedder_factory=lambda _: fake_embedder)) as url:
        done = CliRunner().invoke(app, [*search, "--api", url])
    assert done.exit_code == 0, done.output
    for written in ("catalogue [draft].txt", "[the museum report]", "[/x]", "'catalogue [1974]'"):
        assert written in done.stdout, (written, done.stdout)
