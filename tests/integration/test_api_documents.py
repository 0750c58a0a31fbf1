"""/documents through the real app: add (JSON, upload), read, list, delete, and bad input.

Plumbing only: the fake embedder and no spaCy pipeline (identifiers are found by patterns), so
this runs in the fast lane."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from clients import api_client
from fastapi.testclient import TestClient

from anchorgraph.embedding import Embedder
from anchorgraph.graph.gateway import Graph
from anchorgraph.settings import Settings

pytestmark = pytest.mark.integration

LIMIT = 4_000
SHEET = ("sheet.xls", b"\xd0\xcf\x11\xe0", "application/vnd.ms-excel")  # no reader for it
NOTE = (
    "# Sensor note\n\nThe AG-2048 sensor logs every 5 minutes. See [the gateway](gateway.md#setup)."
)


@pytest.fixture
def client(clean_graph: Graph, settings: Settings, fake_embedder: Embedder) -> Iterator[TestClient]:
    with api_client(settings, fake_embedder, max_document_bytes=LIMIT) as test_client:
        yield test_client


def document_count(client: TestClient) -> int:
    response = client.get("/documents")
    assert response.status_code == 200
    total: int = response.json()["total"]
    return total


def test_add_read_list_delete(client: TestClient) -> None:
    body = {"id": "notes/sensor.md", "text": NOTE, "format": "markdown", "tags": ["sensors"]}
    created = client.post("/documents", json=body)
    assert created.status_code == 201, created.text
    assert created.json()["status"] == "written" and created.json()["links"] == 1
    again = client.post("/documents", json=body)
    assert again.status_code == 200 and again.json()["status"] == "unchanged"

    document = client.get("/documents/notes/sensor.md").json()
    assert document["title"] == "Sensor note"
    assert document["tags"] == ["sensors"] and document["folder"] == "notes"
    assert "AG-2048" in document["identifiers"]
    (link,) = document["links"]
    assert (link["target_document"], link["fragment"], link["resolved"]) == (
        "notes/gateway.md",
        "setup",
        False,
    )
    assert any(entity["name"] == "AG-2048" for entity in document["entities"])

    page = client.get("/documents", params={"limit": 1}).json()
    assert page["total"] == 1 and page["items"][0]["id"] == "notes/sensor.md"

    assert client.delete("/documents/notes/sensor.md").status_code == 204
    assert client.get("/documents/notes/sensor.md").status_code == 404
    assert client.delete("/documents/notes/sensor.md").status_code == 404


def test_deleting_from_a_collection_that_is_not_there_creates_none(client: TestClient) -> None:
    listed = client.get("/collections").json()
    answer = client.delete("/documents/sensor.md", params={"collection": "typo"})
    assert answer.status_code == 404, answer.text
    assert client.get("/collections").json() == listed
    assert client.get("/collections/typo").status_code == 404


def test_file_upload(client: TestClient) -> None:
    page = (
        b"<html><title>Gateway</title><h1 id=setup>Setup</h1>"
        b"<p>The AG-5100 gateway accepts 32 sensors.</p></html>"
    )
    files = {"file": ("gateway.html", page, "text/html")}
    response = client.post("/documents", files=files, data={"tags": "hardware, climate"})
    assert response.status_code == 201, response.text
    document = client.get("/documents/gateway.html").json()
    assert document["title"] == "Gateway"
    assert sorted(document["tags"]) == ["climate", "hardware"]


@pytest.mark.parametrize(
    ("request_kwargs", "status", "problem"),
    [
        ({"files": {"file": ("bad.txt", b"caf\xe9 au lait", "text/plain")}}, 400, "invalid-input"),
        ({"json": {"id": "empty.txt", "text": "  \n\t "}}, 422, "validation-error"),
        ({"json": {"id": "rule.md", "text": "---", "format": "markdown"}}, 400, "invalid-input"),
        ({"json": {"id": "big.txt", "text": "word " * LIMIT}}, 413, "document-too-large"),
        ({"files": {"file": SHEET}}, 415, "unsupported-format"),
        ({"content": b'{"id": "a.txt", "text": "hi"}', "headers": {"content-type": "text/csv"}},
         415, "unsupported-format"),
        ({"json": {"text": "no id"}}, 422, "validation-error"),
        ({"json": {"id": "100%.txt", "text": "hi"}}, 422, "validation-error"),
        ({"json": {"id": "x.txt", "text": "hi", "colour": "red"}}, 422, "validation-error"),
        ({"json": {"id": "x.txt", "text": "hi", "format": "pdf"}}, 422, "validation-error"),
        ({"files": {"file": ("a.txt", b"hi")}, "data": {"format": "pdf"}}, 422, "validation-error"),
        ({"files": {"other": ("a.txt", b"hello", "text/plain")}}, 400, "invalid-input"),
        ({"content": b"{not json", "headers": {"content-type": "application/json"}},
         400, "invalid-input"),
    ],
    ids=["invalid-utf8", "blank", "renders-empty", "oversize", "unknown-format", "csv-body",
         "no-id", "percent-id", "extra-field", "bad-format", "bad-upload-format", "no-file-part",
         "not-json"],
)  # fmt: skip
def test_bad_input_is_refused_clearly_and_writes_nothing(
    client: TestClient, request_kwargs: dict[str, object], status: int, problem: str
) -> None:
    response = client.post("/documents", **request_kwargs)  # type: ignore[arg-type]
    assert response.status_code == status, response.text
    # RFC 9457 problem details, from the one error mapping.
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert body["type"] == f"urn:anchorgraph:problem:{problem}"
    assert body["status"] == status and body["title"] and body["detail"]
    if status == 422:
        assert body["errors"] and all(issue["loc"][0] == "body" for issue in body["errors"])
    assert document_count(client) == 0


def test_a_text_part_without_a_file_name_is_read_as_text(client: TestClient) -> None:
    # What the OpenAPI document describes: the file as a text part, its format by content.
    text = "The AG-2048 sensor logs every 5 minutes."
    form = {"file": (None, text), "id": (None, "notes/plain"), "tags": (None, "a,b")}
    response = client.post("/documents", files=form)
    assert response.status_code == 201, response.text
    document = client.get("/documents/notes/plain").json()
    assert document["source_type"] == "text" and sorted(document["tags"]) == ["a", "b"]
    assert document["folder"] == "notes"
    nameless = client.post("/documents", files={"file": (None, "some text")})
    assert nameless.status_code == 400 and "'id'" in nameless.json()["detail"]
