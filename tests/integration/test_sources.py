"""Sources by URL against a real object store: ``s3://bucket/prefix`` on a SeaweedFS the tests
start (tests/objectstore/), read through the AWS settings a user would set, into the real Neo4j.

Ingest and sync of a prefix (added, changed, deleted and moved keys, keys with odd characters,
only changed objects downloaded), what the store knows of each object found by filtered searches,
a listing longer than one page streamed, the bad inputs (no such bucket, refused credentials, an
endpoint out of reach: a clear message, exit 1, nothing written), and the credentials never in
the graph or the logs."""

from __future__ import annotations

import logging
import types
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
import s3fs
from objectstore.seaweedfs import Identity, SeaweedFS
from typer.testing import CliRunner

from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.local_server import free_port
from anchorgraph.library import Library
from anchorgraph.loaders.read import read_source
from anchorgraph.loaders.sources import Entry, S3Source, open_source
from anchorgraph.loaders.sync import SyncPlan, SyncReport
from anchorgraph.runtime import Runtime

pytestmark = pytest.mark.integration

ACCESS_KEY = "anchorgraph-test-key"
# Looked for in the graph, the logs and the command's output: it must be in none of them.
SECRET = "never-in-the-graph-7f3a9c"
ODD = "odd name #1 + ünïcode.md"  # a space, '#', '+' and non-ASCII: all part of the key


@dataclass
class Bucket:
    """A fresh bucket of a running store, and a client to put objects in it."""

    fs: Any
    name: str

    def put(
        self,
        key: str,
        body: str,
        *,
        metadata: dict[str, str] | None = None,
        content_type: str = "",
        tags: dict[str, str] | None = None,
    ) -> None:
        extra: dict[str, Any] = {"Metadata": metadata or {}}
        if content_type:
            extra["ContentType"] = content_type
        if tags:
            extra["Tagging"] = urlencode(tags)
        self.fs.call_s3("put_object", Bucket=self.name, Key=key, Body=body.encode(), **extra)

    def delete(self, key: str) -> None:
        self.fs.call_s3("delete_object", Bucket=self.name, Key=key)

    def url(self, prefix: str) -> str:
        return f"s3://{self.name}/{prefix}"


def _environment(monkeypatch: pytest.MonkeyPatch, endpoint: str, secret: str = SECRET) -> None:
    """The AWS settings a user sets, and nothing of the developer's own."""
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL_S3", "AWS_CONFIG_FILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
    monkeypatch.setenv("AWS_ENDPOINT_URL", endpoint)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", ACCESS_KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", secret)
    monkeypatch.setenv("AWS_REGION", "us-east-1")


def _bucket(endpoint: str) -> Bucket:
    fs = s3fs.S3FileSystem(
        endpoint_url=endpoint, key=ACCESS_KEY, secret=SECRET, skip_instance_cache=True
    )
    name = f"b-{uuid.uuid4().hex[:12]}"
    fs.call_s3("create_bucket", Bucket=name)
    return Bucket(fs, name)


@pytest.fixture
def bucket(seaweedfs: SeaweedFS, monkeypatch: pytest.MonkeyPatch) -> Bucket:
    _environment(monkeypatch, seaweedfs.endpoint)
    return _bucket(seaweedfs.endpoint)


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SeaweedFS]:
    """A second store that requires the one access key (``-s3.config``)."""
    server = SeaweedFS(
        tmp_path_factory.mktemp("guarded"), identities=(Identity(ACCESS_KEY, SECRET),)
    ).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def library(runtime: Runtime, clean_graph: Graph) -> Library:
    """The library over the session's runtime (the fake embedder), on an empty graph."""
    return Library(runtime)


def documents(graph: Graph, collection: str) -> dict[str, dict[str, Any]]:
    """Id within the collection → the document's properties, embedding left out."""
    records = graph.driver.execute_query(
        "MATCH (d:Document {collection: $c}) RETURN d AS d", c=collection
    ).records
    found = {}
    for record in records:
        properties = dict(record["d"])
        properties.pop("embedding", None)
        found[properties["id"].removeprefix(f"{collection}/")] = properties
    return found


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch, runtime: Runtime) -> list[str]:
    """The keys an S3 source downloads, in order (its own ``open``, observed: in this process,
    where the files are then read)."""
    monkeypatch.setattr(runtime.settings, "read_workers", 1)
    keys: list[str] = []
    real = S3Source.open

    def observed(self: S3Source, entry: Entry) -> Any:
        keys.append(entry.path)
        return real(self, entry)

    monkeypatch.setattr(S3Source, "open", observed)
    return keys


# --- ingest and sync of a prefix ------------------------------------------------------------------
def test_a_prefix_is_ingested_and_synced_reading_only_what_changed(
    library: Library, bucket: Bucket, clean_graph: Graph, opened: list[str]
) -> None:
    bucket.put("docs/keep.md", "# Keep\n\nThe pump P-100 stays as it is.\n")
    bucket.put("docs/change.md", "# Change\n\nThe valve V-200 is closed.\n")
    bucket.put("docs/guides/gone.md", "# Gone\n\nThe fan F-300 is retired.\n")
    bucket.put(f"docs/{ODD}", "# Odd\n\nThe compressor C-400 hums.\n")
    bucket.put("docs/.hidden.md", "# Hidden\n\nNever read.\n")
    bucket.put("elsewhere/other.md", "# Other\n\nOutside the prefix.\n")
    url = bucket.url("docs")

    stats = library.ingest(url, collection="s3")
    assert (stats.written, stats.refused) == (4, [])
    held = documents(clean_graph, "s3")
    assert set(held) == {"keep.md", "change.md", "guides/gone.md", ODD}
    assert held[ODD]["uri"] == f"s3://{bucket.name}/docs/{ODD}"
    assert held["guides/gone.md"]["folder"] == "guides"
    assert held["keep.md"]["revision"].startswith("etag:")
    assert held["keep.md"]["meta_etag"] == held["keep.md"]["revision"].removeprefix("etag:")
    assert held["keep.md"]["size_bytes"] == len("# Keep\n\nThe pump P-100 stays as it is.\n")

    # A change, a deletion, a move (with the odd name), an addition.
    bucket.put("docs/change.md", "# Change\n\nThe valve V-200 is open now.\n")
    bucket.delete("docs/guides/gone.md")
    bucket.delete(f"docs/{ODD}")
    bucket.put(f"docs/moved/{ODD}", "# Odd\n\nThe compressor C-400 hums.\n")
    bucket.put("docs/new.md", "# New\n\nThe heater H-500 warms.\n")
    opened.clear()
    plan = library.sync(url, collection="s3", dry_run=True)
    assert isinstance(plan, SyncPlan)
    assert (sorted(plan.add), plan.update, sorted(plan.delete), plan.unchanged) == (
        [f"moved/{ODD}", "new.md"],
        ["change.md"],
        ["guides/gone.md", ODD],
        ["keep.md"],
    )
    assert sorted(opened) == ["change.md", f"moved/{ODD}", "new.md"]  # keep.md: not downloaded
    assert set(documents(clean_graph, "s3")) == set(held)  # a dry run writes nothing

    done = library.sync(url, collection="s3")
    assert isinstance(done, SyncReport) and done.deleted == 2
    after = documents(clean_graph, "s3")
    assert set(after) == {"keep.md", "change.md", f"moved/{ODD}", "new.md"}
    assert "open now" in after["change.md"]["text"]
    assert after[f"moved/{ODD}"]["folder"] == "moved"

    opened.clear()
    again = library.sync(url, collection="s3", dry_run=True)
    assert isinstance(again, SyncPlan)
    assert (again.add, again.update, again.delete) == ([], [], [])
    assert opened == []  # nothing changed: nothing downloaded


# --- native lookup --------------------------------------------------------------------------------
def test_what_the_store_knows_of_an_object_is_searchable_and_filters(
    library: Library, bucket: Bucket, clean_graph: Graph
) -> None:
    bucket.put(
        "reports/pump-report.md",
        "# Pump report\n\nThe pump P-100 failed its pressure test twice.\n",
        metadata={"Department": "legal", "reviewed-by": "ana"},
        content_type="text/markdown",
        tags={"project": "apollo", "confidential": ""},
    )
    bucket.put(
        "reports/pump-memo.md",
        "# Pump memo\n\nThe pump P-100 passed its pressure test.\n",
        metadata={"department": "finance"},
        content_type="text/plain",
    )
    library.ingest(bucket.url("reports"), collection="reports")
    held = documents(clean_graph, "reports")
    report = held["pump-report.md"]
    assert (report["meta_department"], report["meta_reviewed-by"]) == ("legal", "ana")
    assert report["meta_content_type"] == "text/markdown"
    assert sorted(report["tags"]) == ["confidential", "project=apollo"]
    assert held["pump-memo.md"]["meta_content_type"] == "text/plain"

    def found(**filters: Any) -> list[str]:
        result = library("pump pressure test", collections=["reports"], k=5, filters=filters)
        return sorted(hit.document_id for hit in result.hits)

    assert found() == ["pump-memo.md", "pump-report.md"]
    assert found(metadata={"department": ["legal"]}) == ["pump-report.md"]
    assert found(metadata={"content_type": ["text/plain"]}) == ["pump-memo.md"]
    assert found(metadata={"department": ["legal"], "content_type": ["text/plain"]}) == []
    assert found(tags=["project=apollo"]) == ["pump-report.md"]
    # The metadata path lifts the documents of a tag the query names.
    tagged = library("confidential", collections=["reports"], k=5, explain=True)
    lifted = [hit.document_id for hit in tagged.hits if "metadata" in hit.paths]
    assert lifted == ["pump-report.md"]


# --- a listing past one page ----------------------------------------------------------------------
def test_a_listing_of_more_than_one_page_is_streamed_and_read_whole(
    bucket: Bucket, monkeypatch: pytest.MonkeyPatch
) -> None:
    count = S3Source.page_size + 205
    bucket.fs.pipe(
        {
            f"{bucket.name}/many/n{i:05d}.txt": f"Note {i} of the pump.".encode()
            for i in range(count)
        }
    )
    source = open_source(bucket.url("many"))
    pages: list[str | None] = []
    real = S3Source._page

    def counted(self: S3Source, name: str, prefix: str, token: str | None) -> dict[str, Any]:
        pages.append(token)
        return real(self, name, prefix, token)

    monkeypatch.setattr(S3Source, "_page", counted)
    entries = source.entries()
    assert isinstance(entries, types.GeneratorType) and pages == []  # nothing listed yet
    first = next(entries)
    assert first.path == "n00000.txt" and pages == [None]  # one page, not the listing
    read = list(read_source(source, max_bytes=10_000))
    assert len(read) == count and len({d.id for d in read}) == count
    assert len(pages) == 1 + 2  # the first page above, then the walk's two


# --- bad input: a clear message, exit 1, nothing written ------------------------------------------
def _run(*arguments: str) -> Any:
    from anchorgraph.cli.main import app

    return CliRunner().invoke(app, list(arguments), terminal_width=200)


def _count(graph: Graph) -> int:
    return int(graph.driver.execute_query("MATCH (n) RETURN count(n) AS n").records[0]["n"])


def test_a_bucket_that_does_not_exist_is_named(
    library: Library, bucket: Bucket, clean_graph: Graph
) -> None:
    library.add_text("note.md", "# Note\n\nAlready here.", collection="s3")
    before = _count(clean_graph)
    for command in ("ingest", "sync"):
        result = _run(command, "s3://no-such-bucket-here/docs", "--collection", "s3")
        assert result.exit_code == 1, result.output
        assert "s3://no-such-bucket-here: no such bucket" in result.output
    assert _count(clean_graph) == before


def test_refused_credentials_are_named_and_never_shown(
    guarded: SeaweedFS, clean_graph: Graph, monkeypatch: pytest.MonkeyPatch
) -> None:
    _environment(monkeypatch, guarded.endpoint)
    ours = _bucket(guarded.endpoint)
    ours.put("docs/a.md", "# A\n\nThe pump.\n")
    wrong = "wrong-secret-3c1d"
    _environment(monkeypatch, guarded.endpoint, secret=wrong)
    before = _count(clean_graph)
    result = _run("ingest", ours.url("docs"))
    assert result.exit_code == 1, result.output
    assert "access refused" in result.output
    assert wrong not in result.output and SECRET not in result.output
    assert _count(clean_graph) == before


def test_an_endpoint_out_of_reach_fails_within_the_configured_timeout(
    clean_graph: Graph, monkeypatch: pytest.MonkeyPatch
) -> None:
    _environment(monkeypatch, f"http://127.0.0.1:{free_port()}")  # nothing listens there
    monkeypatch.setenv("ANCHORGRAPH_SOURCE_CONNECT_TIMEOUT_S", "1")
    monkeypatch.setenv("ANCHORGRAPH_SOURCE_ATTEMPTS", "1")
    before = _count(clean_graph)
    result = _run("sync", "s3://bucket/docs")
    assert result.exit_code == 1, result.output
    assert "s3://bucket: cannot be read" in result.output
    assert _count(clean_graph) == before


# --- credentials ----------------------------------------------------------------------------------
def test_credentials_are_never_in_the_graph_or_the_logs(
    library: Library, bucket: Bucket, clean_graph: Graph, caplog: pytest.LogCaptureFixture
) -> None:
    bucket.put("docs/a.md", "# A\n\nThe pump P-100.\n", metadata={"team": "ops"})
    with caplog.at_level(logging.DEBUG):
        library.ingest(bucket.url("docs"), collection="secrets")
        library.sync(bucket.url("docs"), collection="secrets")
    assert documents(clean_graph, "secrets")["a.md"]["meta_team"] == "ops"
    holding = clean_graph.driver.execute_query(
        "MATCH (n) UNWIND keys(n) AS key WITH n[key] AS value "
        "WHERE (value IS :: STRING AND (value CONTAINS $secret OR value CONTAINS $key)) "
        "OR (value IS :: LIST<STRING> AND any(v IN value WHERE v CONTAINS $secret)) "
        "RETURN count(*) AS n",
        secret=SECRET,
        key=ACCESS_KEY,
    ).records[0]["n"]
    assert holding == 0
    assert caplog.records, "nothing was logged: the check below would prove nothing"
    assert SECRET not in caplog.text


def test_a_local_folder_and_its_file_url_read_the_same(library: Library, tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.md").write_text("# A\n\nThe pump.\n")
    by_path = library.ingest(tmp_path / "notes", collection="local")
    by_url = library.ingest((tmp_path / "notes").as_uri(), collection="local")
    assert (by_path.written, by_url.unchanged) == (1, 1)
