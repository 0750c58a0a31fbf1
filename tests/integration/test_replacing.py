"""Replacing is always explicit, through every door: two uploads of a ``README.md``, a JSON
write over an uploaded PDF, conditional writes (If-Match, If-None-Match) with their ETags, a
write that another one overtook, a folder ingested from above and then from below, and the ids
and queries every door refuses.

Plumbing only: the fake embedder and no spaCy pipeline, so this runs in the fast lane."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from clients import api_client
from fastapi.testclient import TestClient

from anchorgraph.embedding import Embedder, HashEmbedder, Vectors
from anchorgraph.errors import Conflict, InvalidInput
from anchorgraph.graph.gateway import Graph
from anchorgraph.library import Library
from anchorgraph.loaders.entities import EntityExtractor
from anchorgraph.loaders.ingest import Ingestor, Precondition, Refused
from anchorgraph.loaders.model import SourceDocument
from anchorgraph.runtime import Runtime
from anchorgraph.settings import Settings
from benchmarks.document_files import pdf_of_pages

pytestmark = pytest.mark.integration

ALPHA = b"# Alpha\n\nProject Alpha ships the AG-2048 sensor in March.\n"
PLAIN = "text/plain"
BETA = b"# Beta\n\nProject Beta retires the AG-1000 gateway in June.\n"


@pytest.fixture
def client(clean_graph: Graph, settings: Settings, fake_embedder: Embedder) -> Iterator[TestClient]:
    with api_client(settings, fake_embedder) as test_client:
        yield test_client


@pytest.fixture
def library(runtime: Runtime, clean_graph: Graph) -> Library:
    return Library(runtime)


def upload(client: TestClient, name: str, data: bytes, **headers: str) -> Any:
    return client.post(
        "/documents", files={"file": (name, data)}, data={"collection": "up"}, headers=headers
    )


def text_of(client: TestClient, id_: str, collection: str = "up") -> str:
    document = client.get(f"/documents/{id_}", params={"collection": collection}).json()
    return " ".join(chunk["text"] for chunk in document["chunks"])


def quoted(etag: str) -> str:
    return f'"{etag}"'


# --- over REST ------------------------------------------------------------------------------------
def test_a_second_readme_upload_is_refused_until_the_caller_names_the_version(
    client: TestClient,
) -> None:
    first = upload(client, "README.md", ALPHA)
    assert first.status_code == 201, first.text
    etag = first.json()["etag"]
    assert first.headers["etag"] == quoted(etag)
    read = client.get("/documents/README.md", params={"collection": "up"})
    assert read.headers["etag"] == quoted(etag) == quoted(read.json()["content_hash"])

    second = upload(client, "README.md", BETA)
    assert second.status_code == 409, second.text
    assert second.headers["etag"] == quoted(etag)  # the version the caller would replace
    assert "If-Match" in second.json()["detail"]
    assert "Project Alpha" in text_of(client, "README.md")  # Alpha is all there

    stale = upload(client, "README.md", BETA, **{"If-Match": '"not-this-version"'})
    assert stale.status_code == 412, stale.text
    assert stale.headers["etag"] == quoted(etag)
    assert "Project Alpha" in text_of(client, "README.md")

    replaced = upload(client, "README.md", BETA, **{"If-Match": quoted(etag)})
    assert (replaced.status_code, replaced.json()["status"]) == (200, "replaced")
    assert replaced.json()["etag"] != etag
    assert "Project Beta" in text_of(client, "README.md")
    # Sent again, it is already there: unchanged, whatever version it names.
    again = upload(client, "README.md", BETA, **{"If-Match": quoted(etag)})
    assert (again.status_code, again.json()["status"]) == (200, "unchanged")
    assert again.headers["etag"] == replaced.headers["etag"]


def test_a_json_write_does_not_overwrite_an_uploaded_pdf(client: TestClient) -> None:
    pdf = pdf_of_pages("The annual report of 2025.", "Visitors rose to 41,000.")
    created = client.post(
        "/documents",
        files={"file": ("annual-2025.pdf", pdf, "application/pdf")},
        data={"collection": "up"},
    )
    assert created.status_code == 201, created.text
    overwrite = {"id": "annual-2025.pdf", "text": "overwrite attempt", "collection": "up"}
    refused = client.post("/documents", json=overwrite)
    assert refused.status_code == 409, refused.text
    kept = client.get("/documents/annual-2025.pdf", params={"collection": "up"}).json()
    assert kept["source_type"] == "pdf" and "41,000" in text_of(client, "annual-2025.pdf")
    # replace: true is the other explicit way.
    forced = client.post("/documents", json={**overwrite, "replace": True})
    assert (forced.status_code, forced.json()["status"]) == (200, "replaced")


def test_if_none_match_star_creates_only(client: TestClient) -> None:
    body = {"id": "notes/new.md", "text": "A new note.", "collection": "up"}
    created = client.post("/documents", json=body, headers={"If-None-Match": "*"})
    assert created.status_code == 201, created.text
    for text in ("A new note.", "Another note."):
        again = client.post(
            "/documents", json={**body, "text": text}, headers={"If-None-Match": "*"}
        )
        assert again.status_code == 412, again.text
        assert again.headers["etag"] == created.headers["etag"]
    missing = client.post(
        "/documents", json={**body, "id": "notes/other.md"}, headers={"If-Match": '"abc"'}
    )
    assert missing.status_code == 412  # If-Match names a version of a document not there
    assert client.get("/documents/notes/other.md", params={"collection": "up"}).status_code == 404


def test_an_if_match_without_an_entity_tag_fails_saying_why(client: TestClient) -> None:
    body = {"id": "a.md", "text": "Text.", "collection": "up"}
    answer = client.post("/documents", json=body, headers={"If-Match": "abc"})
    assert answer.status_code == 412, answer.text
    assert "quoted entity tags" in answer.json()["detail"]
    assert client.get("/documents/a.md", params={"collection": "up"}).status_code == 404


@pytest.mark.parametrize(
    "id_", ["../../etc/passwd", "/abs/x.md", "dir/", "a//b.md", "notes/./a.md", "bell\x07.md"]
)
def test_ids_that_name_no_file_are_refused_at_every_door(
    client: TestClient, library: Library, id_: str
) -> None:
    as_json = client.post("/documents", json={"id": id_, "text": "Text.", "collection": "up"})
    assert as_json.status_code == 422, as_json.text
    (issue,) = as_json.json()["errors"]
    assert issue["loc"] == ["body", "id"] and "'/'-separated parts" in issue["msg"]
    as_upload = client.post(
        "/documents", files={"file": ("x.md", b"Text.")}, data={"id": id_, "collection": "up"}
    )
    assert as_upload.status_code == 422, as_upload.text
    with pytest.raises(InvalidInput, match="is not a document id"):
        library.add_text(id_, "Text.", collection="up")
    with pytest.raises(InvalidInput, match="is not a document id"):
        library.add([SourceDocument(id="fine.md", text="Fine."), SourceDocument(id_, "Text.")])
    assert client.get("/documents", params={"collection": "up"}).json()["total"] == 0


def test_a_nul_in_a_query_and_a_body_that_is_not_json_are_refused(client: TestClient) -> None:
    nul = client.post("/search", json={"query": "pump\x00valve"})
    assert nul.status_code == 422, nul.text
    assert "NUL" in nul.json()["errors"][0]["msg"]
    for path in ("/search", "/judgments", "/audit/coverage"):
        plain = client.post(
            path, content=b'{"query": "pump"}', headers={"content-type": "text/plain"}
        )
        assert plain.status_code == 415, (path, plain.text)
        assert plain.json()["type"].endswith("unsupported-format")


# --- the library ----------------------------------------------------------------------------------
def test_the_library_replaces_a_text_only_when_told_which_version(library: Library) -> None:
    assert library.add_text("notes/hours.md", "Open until 18:00.").written == 1
    etag = library.etag("notes/hours.md")
    assert etag is not None
    refused = library.add_text("notes/hours.md", "Open until 17:00.")
    assert refused.written == 0
    assert [(r.id, r.reason) for r in refused.refused] == [("notes/hours.md", Refused.OTHER_ORIGIN)]
    assert library.add_text("notes/hours.md", "Open until 17:00.", if_match="stale").refused
    done = library.add_text("notes/hours.md", "Open until 17:00.", if_match=etag)
    assert (done.written, done.replaced) == (1, 1)
    assert library.etag("notes/hours.md") not in (None, etag)


class _Overtaken(HashEmbedder):
    """The fake embedder, which lets another write commit the first time it is asked: the
    window between an ingest's decision and its write."""

    def __init__(self, overtake: Any) -> None:
        super().__init__()
        self.overtake = overtake

    def embed(self, texts: Sequence[str]) -> Vectors:
        if self.overtake is not None:
            overtake, self.overtake = self.overtake, None
            overtake()
        return super().embed(texts)


def test_a_write_overtaken_by_another_fails_and_keeps_the_other(
    library: Library, graph: Graph
) -> None:
    library.add_text("notes/pump.md", "The pump P-100 runs at 40 bar.", collection="up")
    etag = library.etag("notes/pump.md", collection="up")
    assert etag is not None
    seen = {"notes/pump.md": Precondition(if_match=(etag,))}
    mine = SourceDocument(id="notes/pump.md", text="The pump P-100 runs at 45 bar.")

    def theirs() -> None:
        won = library.add_text(
            "notes/pump.md", "The pump P-100 runs at 50 bar.", collection="up", if_match=etag
        )
        assert won.written == 1

    ingestor = Ingestor(graph, _Overtaken(theirs), EntityExtractor(None))
    with pytest.raises(Conflict, match="changed while this write was prepared"):
        ingestor.ingest([mine], collection="up", preconditions=seen)
    found = library("pump bar", collections=["up"])
    assert "50 bar" in found.hits[0].text


# --- folders -------------------------------------------------------------------------------------
def test_a_file_ingested_from_a_folder_below_is_refused_naming_its_id(
    library: Library, tmp_path: Path
) -> None:
    docs = tmp_path / "mydocs"
    for name, text in {"projects/alpha/README.md": ALPHA, "projects/beta/README.md": BETA}.items():
        (docs / name).parent.mkdir(parents=True, exist_ok=True)
        (docs / name).write_bytes(text)
    assert library.ingest(docs, collection="mydocs").written == 2

    again = library.ingest(docs / "projects", collection="mydocs")
    assert again.written == 0
    assert sorted((r.id, r.stored_id, r.reason) for r in again.refused) == [
        ("alpha/README.md", "projects/alpha/README.md", Refused.STORED_AS),
        ("beta/README.md", "projects/beta/README.md", Refused.STORED_AS),
    ]
    moved = library.ingest(docs / "projects", collection="mydocs", replace=True)
    assert moved.written == 2
    ids = {
        row["id"]
        for row in library.graph.driver.execute_query(
            "MATCH (d:Document {collection: 'mydocs'}) RETURN d.id AS id"
        ).records
    }
    assert ids == {"mydocs/alpha/README.md", "mydocs/beta/README.md"}


def test_a_folder_file_whose_name_is_no_id_is_skipped_saying_why(
    library: Library, tmp_path: Path
) -> None:
    docs = tmp_path / "odd"
    docs.mkdir()
    (docs / "fine.md").write_text("# Fine\n\nA fine note.\n")
    (docs / "bad\nname.md").write_text("# Bad\n\nA note with a newline in its name.\n")
    stats = library.ingest(docs, collection="odd")
    assert stats.written == 1
    (warning,) = [w for w in stats.warnings if "bad" in w]
    assert "is not a document id" in warning


def test_a_record_whose_id_is_no_id_is_refused(library: Library, tmp_path: Path) -> None:
    records = tmp_path / "records.jsonl"
    records.write_text('{"_id": "../x", "text": "A record."}\n')
    with pytest.raises(InvalidInput, match=r"line 1.*is not a document id"):
        library.ingest(records, collection="records")
