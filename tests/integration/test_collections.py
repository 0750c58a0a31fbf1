"""Collections: many sources in one graph, nothing overwritten unseen.

The reports that started it, replayed: two folders each with a ``README.md`` ingested one after
the other (through the command line and through REST), the sample corpus loaded beside a user's
own ``index.md``; then sync, the collection routes, and searches within and across
collections."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from anchorgraph.graph.gateway import Graph
from anchorgraph.ingestion import load_sample
from anchorgraph.library import Library
from anchorgraph.loaders.sync import SyncPlan, SyncReport
from anchorgraph.runtime import Runtime
from anchorgraph.settings import Settings

pytestmark = pytest.mark.integration

README_1 = "# Knowledge base one\n\nStart with [the pump](pump.md) and [the valve](valve.md).\n"
README_2 = "# Knowledge base two\n\nThe second base documents the compressor C-9.\n"


def write(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


def documents(graph: Graph, collection: str | None = None) -> dict[str, str]:
    """Key → uri of every document (of one collection)."""
    records = graph.driver.execute_query(
        "MATCH (d:Document) WHERE $c IS NULL OR d.collection = $c RETURN d.id AS id, d.uri AS uri",
        c=collection,
    ).records
    return {r["id"]: r["uri"] for r in records}


def node_count(graph: Graph, collection: str) -> int:
    records = graph.driver.execute_query(
        "MATCH (n) WHERE n.collection = $c OR n.name = $c AND n:Collection RETURN count(n) AS n",
        c=collection,
    ).records
    return int(records[0]["n"])


@pytest.fixture
def library(runtime: Runtime, clean_graph: Graph) -> Library:
    """The library over the session's runtime (the fake embedder, no spaCy), on an empty graph."""
    return Library(runtime)


# --- the repro ------------------------------------------------------------------------------------
@pytest.mark.slow  # the command loads the real model
def test_two_folders_with_a_readme_through_the_command_line(
    clean_graph: Graph, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from anchorgraph.cli.main import app
    from anchorgraph.graph.driver import neo4j_auth

    kb1 = write(tmp_path / "kb1", {"README.md": README_1, "pump.md": "# Pump\n\nP-100.\n"})
    kb2 = write(tmp_path / "kb2", {"README.md": README_2})
    monkeypatch.setenv("ANCHORGRAPH_NEO4J_URI", settings.bolt_uri)
    monkeypatch.setenv("ANCHORGRAPH_NEO4J_PASSWORD", neo4j_auth(settings)[1])
    runner = CliRunner()

    assert runner.invoke(app, ["ingest", str(kb1)]).exit_code == 0
    before = documents(clean_graph)
    links = clean_graph.driver.execute_query("MATCH ()-[l:LINKS_TO]->() RETURN count(l) AS n")
    refused = runner.invoke(app, ["ingest", str(kb2)], terminal_width=200)
    assert refused.exit_code == 1, refused.output
    assert "0 written (0 new, 0 replaced), 0 unchanged, 1 refused" in refused.output
    assert (kb1 / "README.md").resolve().as_uri() in refused.output
    assert (kb2 / "README.md").resolve().as_uri() in refused.output
    assert documents(clean_graph) == before  # kb1's README and its links are all there
    assert (
        clean_graph.driver.execute_query("MATCH ()-[l:LINKS_TO]->() RETURN count(l) AS n").records
        == links.records
    )

    # Its own collection keeps both.
    kept = runner.invoke(app, ["ingest", str(kb2), "--collection", "kb2"])
    assert kept.exit_code == 0, kept.output
    assert documents(clean_graph, "kb2") == {"kb2/README.md": (kb2 / "README.md").as_uri()}
    assert documents(clean_graph, "default") == before

    # And --replace replaces, saying so.
    replaced = runner.invoke(app, ["ingest", str(kb2), "--replace"], terminal_width=200)
    assert replaced.exit_code == 0, replaced.output
    assert "1 written (0 new, 1 replaced)" in replaced.output
    assert documents(clean_graph, "default")["default/README.md"] == (
        (kb2 / "README.md").resolve().as_uri()
    )


def test_a_write_from_another_origin_is_refused_over_rest(
    client: TestClient, clean_graph: Graph
) -> None:
    first = {"id": "README.md", "text": README_1, "format": "markdown",
             "uri": "https://wiki.example/kb1/README.md"}  # fmt: skip
    assert client.post("/documents", json=first).status_code == 201
    before = documents(clean_graph)
    second = {**first, "text": README_2, "uri": "https://wiki.example/kb2/README.md"}
    refused = client.post("/documents", json=second)
    assert refused.status_code == 409
    assert refused.headers["content-type"] == "application/problem+json"
    detail = refused.json()["detail"]
    assert "kb1/README.md" in detail and "kb2/README.md" in detail and "replace" in detail
    assert documents(clean_graph) == before
    # The same origin replaces as before; another collection takes the same id.
    again = client.post("/documents", json={**first, "text": README_1 + "\nMore.\n"})
    assert (again.status_code, again.json()["status"]) == (200, "replaced")
    elsewhere = client.post("/documents", json={**second, "collection": "kb2"})
    assert (elsewhere.status_code, elsewhere.json()["collection"]) == (201, "kb2")
    replaced = client.post("/documents", json={**second, "replace": True})
    assert (replaced.status_code, replaced.json()["status"]) == (200, "replaced")
    upload = client.post(
        "/documents",
        files={"file": ("README.md", README_1.encode())},
        data={"collection": "kb2"},
    )
    assert upload.status_code == 409  # a request without a uri is another origin too
    assert client.get("/documents/README.md", params={"collection": "kb2"}).json()["uri"] == (
        "https://wiki.example/kb2/README.md"
    )


def test_the_sample_loads_into_its_own_collection_and_nowhere_else(
    runtime: Runtime, clean_graph: Graph
) -> None:
    library = Library(runtime)
    mine = "# My index\n\nWhat I keep where.\n"
    library.add_text("index.md", mine, uri="file:///home/ana/notes/index.md")
    own = documents(clean_graph, "default")
    hashes = clean_graph.driver.execute_query("MATCH (d:Document) RETURN d.content_hash AS h")
    stats = load_sample(runtime)
    assert (stats.collection, stats.written) == ("sample", 12)
    assert documents(clean_graph, "default") == own
    assert "sample/index.md" in documents(clean_graph, "sample")
    assert hashes.records[0]["h"] in {
        r["h"] for r in clean_graph.driver.execute_query(
            "MATCH (d:Document {collection: 'default'}) RETURN d.content_hash AS h").records
    }  # fmt: skip
    assert load_sample(runtime).written == 0  # and again: nothing


# --- sync --------------------------------------------------------------------------------------
def test_sync_adds_updates_and_deletes_exactly_the_vanished_files(
    library: Library, clean_graph: Graph, tmp_path: Path
) -> None:
    wiki = write(tmp_path / "wiki", {"index.md": "# Index\n\nSee [setup](setup.md).\n",
                                     "setup.md": "# Setup\n\nInstall it.\n",
                                     "old/migration.md": "# Migration\n\nFrom v1.\n"})  # fmt: skip
    first = library.sync(wiki, collection="wiki")
    assert isinstance(first, SyncReport) and first.stats.written == 3
    # A document of the collection from elsewhere: a sync of the folder leaves it alone.
    library.add_text("api-note.md", "# API note\n\nAdded by hand.", collection="wiki")

    (wiki / "old" / "migration.md").unlink()
    (wiki / "setup.md").write_text("# Setup\n\nInstall it, then configure it.\n")
    (wiki / "faq.md").write_text("# FAQ\n\nQuestions.\n")
    before = documents(clean_graph, "wiki")
    plan = library.sync(wiki, collection="wiki", dry_run=True)
    assert isinstance(plan, SyncPlan)
    assert (plan.add, plan.update, plan.delete) == (["faq.md"], ["setup.md"], ["old/migration.md"])
    assert (plan.unchanged, plan.kept, plan.conflicts) == (["index.md"], ["api-note.md"], [])
    assert documents(clean_graph, "wiki") == before  # a dry run writes nothing

    done = library.sync(wiki, collection="wiki")
    assert isinstance(done, SyncReport) and done.deleted == 1
    assert set(documents(clean_graph, "wiki")) == {
        "wiki/index.md", "wiki/setup.md", "wiki/faq.md", "wiki/api-note.md",
    }  # fmt: skip
    # The folder and tag of the deleted file went with it; nothing of another collection moved.
    assert not clean_graph.driver.execute_query(
        "MATCH (f:Folder {collection: 'wiki', path: 'old'}) RETURN f"
    ).records


def test_a_sync_of_a_folder_above_deletes_no_document_whose_file_is_there(
    library: Library, clean_graph: Graph, tmp_path: Path
) -> None:
    notes = write(tmp_path / "notes", {"alpha/README.md": README_1, "beta/README.md": README_2})
    assert library.ingest(notes / "alpha", collection="notes").written == 1  # as README.md

    plan = library.sync(notes, collection="notes", dry_run=True)
    assert isinstance(plan, SyncPlan)
    assert (plan.add, plan.delete) == (["beta/README.md"], [])
    assert [(r.id, r.stored_id) for r in plan.conflicts] == [("alpha/README.md", "README.md")]
    assert "as 'README.md'" in plan.conflicts[0].message("notes")

    done = library.sync(notes, collection="notes")
    assert isinstance(done, SyncReport) and done.deleted == 0
    assert [r.id for r in done.stats.refused] == ["alpha/README.md"]
    assert set(documents(clean_graph, "notes")) == {"notes/README.md", "notes/beta/README.md"}

    moved = library.sync(notes, collection="notes", replace=True)  # asked: under its new id
    assert isinstance(moved, SyncReport) and moved.deleted == 1
    assert set(documents(clean_graph, "notes")) == {
        "notes/alpha/README.md", "notes/beta/README.md",
    }  # fmt: skip


def test_a_sync_deletes_and_adds_the_records_of_a_json_lines_file(
    library: Library, clean_graph: Graph, tmp_path: Path
) -> None:
    """Its records share the file's uri: one gone and one new are not the same file moved."""
    records = tmp_path / "feed" / "records.jsonl"
    write(tmp_path / "feed", {"records.jsonl": '{"id": "a", "text": "Pump P-1."}\n'
                                               '{"id": "b", "text": "Valve V-2."}\n'})  # fmt: skip
    assert isinstance(library.sync(records.parent, collection="feed"), SyncReport)
    records.write_text('{"id": "a", "text": "Pump P-1."}\n{"id": "c", "text": "Fan F-3."}\n')
    plan = library.sync(records.parent, collection="feed", dry_run=True)
    assert isinstance(plan, SyncPlan)
    assert (plan.add, plan.delete, plan.conflicts) == (["c"], ["b"], [])
    library.sync(records.parent, collection="feed")
    assert set(documents(clean_graph, "feed")) == {"feed/a", "feed/c"}


def test_a_sync_finds_unchanged_the_files_in_portuguese_and_italian_that_are(
    library: Library, tmp_path: Path
) -> None:
    archive = write(tmp_path / "arquivo", {
        "carta.md": "# Carta\n\nSolicitamos a V. Exa. que a doação da coleção ao novo museu seja "
                    "aprovada pela direção da fundação antes do fim do ano.\n",
        "lettera.md": "# Lettera\n\nVi preghiamo di approvare la donazione della collezione al "
                      "nuovo museo prima della fine dell'anno, come deciso dalla direzione.\n",
        "note.md": "# Note\n\nThe pump feeds the valve.\n",
    })  # fmt: skip
    first = library.sync(archive, collection="arquivo")
    assert isinstance(first, SyncReport) and first.stats.written == 3
    plan = library.sync(archive, collection="arquivo", dry_run=True)
    assert isinstance(plan, SyncPlan)
    assert (plan.add, plan.update, plan.delete) == ([], [], [])
    assert plan.unchanged == ["carta.md", "lettera.md", "note.md"]


# --- the collections, over REST ------------------------------------------------------------------
def test_collections_are_listed_with_counts_and_deleted_whole(
    client: TestClient, clean_graph: Graph
) -> None:
    for collection in ("wiki", "drive"):
        for name in ("a.md", "b.md"):
            note = {"id": name, "text": f"# {name}\n\nThe pump P-7 of {collection}.",
                    "format": "markdown", "collection": collection, "tags": ["pumps"]}  # fmt: skip
            assert client.post("/documents", json=note).status_code == 201
    answer = client.get("/collections")
    listed = {c["name"]: c for c in answer.json()}
    assert set(listed) == {"wiki", "drive"}, answer.text
    assert (listed["wiki"]["documents"], listed["wiki"]["entities"]) == (2, 1)
    chunks = clean_graph.driver.execute_query(
        "MATCH (c:Chunk {collection: 'wiki'}) RETURN count(c) AS n"
    ).records[0]["n"]
    assert listed["wiki"]["chunks"] == chunks
    drive = node_count(clean_graph, "drive")

    deleted = client.delete("/collections/wiki")
    assert (deleted.status_code, deleted.json()["documents"]) == (200, 2)
    assert node_count(clean_graph, "wiki") == 0
    assert node_count(clean_graph, "drive") == drive
    assert [c["name"] for c in client.get("/collections").json()] == ["drive"]
    assert client.delete("/collections/wiki").status_code == 404
    assert client.get("/collections/wiki").status_code == 404
    assert client.get("/collections/NOT A NAME").status_code == 422
    listed_docs = client.get("/documents", params={"collection": "drive"}).json()
    assert (listed_docs["collection"], listed_docs["total"]) == ("drive", 2)


def test_searches_read_their_collections_and_say_which(client: TestClient) -> None:
    for collection, word in (("wiki", "aurora"), ("drive", "borealis")):
        note = {"id": "same.md", "text": f"# Same\n\nThe {word} pump P-7 feeds the valve.",
                "format": "markdown", "collection": collection}  # fmt: skip
        assert client.post("/documents", json=note).status_code == 201
    both = client.post("/search", json={"query": "pump valve", "level": "document"}).json()
    assert {(h["collection"], h["document_id"]) for h in both["hits"]} == {
        ("wiki", "same.md"), ("drive", "same.md"),
    }  # fmt: skip
    assert set(both["collections"]) == {"wiki", "drive"}
    one = client.post("/search", json={"query": "pump valve", "collections": ["drive"]}).json()
    assert {h["collection"] for h in one["hits"]} == {"drive"}
    assert "borealis" in one["hits"][0]["text"]
    # The entities the query names are each collection's own.
    named = client.post("/search", json={"query": "P-7", "collections": ["wiki"]}).json()
    assert {(e["collection"], e["id"]) for e in named["entities"]} == {("wiki", "p-7")}
    entities = client.get("/entities", params={"q": "P-7"}).json()
    assert {(e["collection"], e["id"]) for e in entities} == {("wiki", "p-7"), ("drive", "p-7")}
    missing = client.post("/search", json={"query": "pump", "collections": ["nowhere"]})
    assert missing.status_code == 404 and "nowhere" in missing.json()["detail"]
    bad = client.post("/search", json={"query": "pump", "collections": ["Not A Name"]})
    assert bad.status_code == 422


@pytest.mark.slow  # the command loads the real model
def test_sync_through_the_command_line(
    clean_graph: Graph, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from anchorgraph.cli.main import app
    from anchorgraph.graph.driver import neo4j_auth

    wiki = write(tmp_path / "wiki", {"a.md": "# A\n\nAlpha.\n", "b.md": "# B\n\nBeta.\n"})
    monkeypatch.setenv("ANCHORGRAPH_NEO4J_URI", settings.bolt_uri)
    monkeypatch.setenv("ANCHORGRAPH_NEO4J_PASSWORD", neo4j_auth(settings)[1])
    runner = CliRunner()
    first = runner.invoke(app, ["sync", str(wiki), "-c", "wiki"], terminal_width=200)
    assert first.exit_code == 0, first.output
    assert "added    a.md" in first.output
    assert "Synced: 2 added, 0 updated, 0 deleted, 0 unchanged" in first.output
    (wiki / "b.md").unlink()
    dry = runner.invoke(app, ["sync", str(wiki), "-c", "wiki", "--dry-run"], terminal_width=200)
    assert dry.exit_code == 0 and "delete   b.md" in dry.output
    assert "Would add 0, update 0 and delete 1 documents: 1 unchanged" in dry.output
    assert set(documents(clean_graph, "wiki")) == {"wiki/a.md", "wiki/b.md"}
    done = runner.invoke(app, ["sync", str(wiki), "-c", "wiki"], terminal_width=200)
    assert done.exit_code == 0 and set(documents(clean_graph, "wiki")) == {"wiki/a.md"}
    assert "deleted  b.md" in done.output and "0 added, 0 updated, 1 deleted" in done.output
    listed = runner.invoke(app, ["collections", "list"], terminal_width=200)
    assert "wiki" in listed.output
    gone = runner.invoke(app, ["collections", "delete", "wiki", "--yes"])
    assert gone.exit_code == 0 and documents(clean_graph, "wiki") == {}
    again = runner.invoke(app, ["collections", "delete", "wiki", "--yes"])
    assert again.exit_code == 1 and "No collection named 'wiki'" in again.output
    bad = runner.invoke(app, ["sync", str(wiki), "-c", "Not A Name"])
    # Typer draws usage errors in a box at its own width: read the words, not the lines.
    said = " ".join(re.sub(r"[│╭╮╰╯─]", " ", bad.output).split())
    assert bad.exit_code == 2 and "'Not A Name' is not a collection name" in said
