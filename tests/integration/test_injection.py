"""Hostile text through every text field of every operation, against the real app and server.

User text reaches Cypher only as parameters and Lucene only escaped (service/retrieval/lucene.py),
so the classic payloads must come back as plain data: every answer a clean 2xx or 4xx (never a
500), a 4xx as problem details, and the graph afterwards exactly as before (nodes per label,
relationships per type, each document's content hash) once the documents a probe deliberately
wrote are deleted again. A document written with a payload keeps it as data: read back, its
field holds what was sent.

``-s`` prints the table of payload, field and answer that docs/reliability.md shows.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from fastapi.testclient import TestClient

from anchorgraph.app import create_app
from anchorgraph.embedding import Embedder
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.queries import Query, cypher
from anchorgraph.loaders.read import read_bytes
from anchorgraph.runtime import Runtime
from anchorgraph.settings import Settings
from anchorgraph.text.normalise import normalise_text

pytestmark = pytest.mark.integration

# The largest document the app under test takes: a 1 MB payload is over it (413), and what it
# does take is embedded quickly by the real model.
DOCUMENT_LIMIT = 256_000
PAYLOADS: dict[str, str] = {
    "cypher": "}) MATCH (n) DETACH DELETE n //",
    "cypher-quote": "x' }) MATCH (n) DETACH DELETE n RETURN 'x",
    "cypher-backtick": "`}) WITH 1 AS x MATCH (n) SET n.pwned = true //",
    "cypher-param": "$id }) CALL db.clearQueryCaches() //",
    "lucene": "field:x^2 ~ * ? [a TO b]",
    "lucene-operators": "title:(a OR b) AND NOT c* && d || !e \\",
    "quotes": "\"unbalanced 'quotes",
    "nul": "before\x00after",
    "surrogate": "\ud800",  # sent as JSON's "\ud800", or its (invalid) UTF-8 bytes elsewhere
    "1mb": "ZQ-4471 relay " * 75_000,  # 1.05 MB
}
URL_CHARS = 60_000
CORPUS = {
    "lab/spares.md": "# Spares\n\nThe ZQ-4471-B relay is kept in drawer three by Orvalho Labs.",
    "lab/pumps.md": "# Pumps\n\nRelays ZQ-4471-A switch the [pumps](spares.md) every spring.",
    "notes/humidity.md": "# Humidity\n\nKeep storerooms near half of what air could carry.",
}


# --- how a payload is sent ----------------------------------------------------------------------
def _json(client: TestClient, method: str, path: str, body: Any) -> httpx.Response:
    # ensure_ascii: a lone surrogate goes out as the JSON escape "\ud800", NUL as "\u0000".
    content = json.dumps(body).encode("ascii")
    headers = {"content-type": "application/json"}
    return client.request(method, path, content=content, headers=headers)


def _url(text: str) -> str:
    """Percent-encoded UTF-8; a lone surrogate as the bytes it would have (not valid UTF-8).
    Cut to ``URL_CHARS``: HTTP clients refuse longer URLs (httpx: 64 kB), and servers refuse
    long request lines before any route sees them."""
    quoted = quote(text, safe="", errors="surrogatepass")[:URL_CHARS]
    return re.sub(r"%[0-9A-F]?$", "", quoted)  # no escape cut in half


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _form_text(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _document_id(payload_name: str, field: str) -> str:
    return f"injected/{payload_name}/{field}.txt"


def _document_json(field: str) -> Callable[[TestClient, str, str], httpx.Response]:
    def send(client: TestClient, name: str, payload: str) -> httpx.Response:
        body: dict[str, Any] = {"id": _document_id(name, field), "text": "An injected note."}
        body[field] = [payload] if field == "tags" else payload
        return _json(client, "POST", "/documents", body)

    return send


def _document_upload(field: str) -> Callable[[TestClient, str, str], httpx.Response]:
    def send(client: TestClient, name: str, payload: str) -> httpx.Response:
        parts: dict[str, Any] = {
            "file": (f"{field}.txt", b"An injected note.", "text/plain"),
            "id": (None, _document_id(name, f"upload-{field}")),
        }
        if field == "file":
            parts["file"] = ("note.txt", _bytes(payload), "text/plain")
        else:
            parts[field] = (None, _bytes(payload))
        return client.post("/documents", files=parts)

    return send


def _search(**fields: Callable[[str], Any]) -> Callable[[TestClient, str, str], httpx.Response]:
    def send(client: TestClient, _: str, payload: str) -> httpx.Response:
        body = {"query": "relay"} | {key: make(payload) for key, make in fields.items()}
        return _json(client, "POST", "/search", body)

    return send


def _get(template: str) -> Callable[[TestClient, str, str], httpx.Response]:
    return lambda client, _, payload: client.get(template.format(_url(payload)))


@dataclass(frozen=True)
class Probe:
    operation: str
    field: str
    send: Callable[[TestClient, str, str], httpx.Response]
    writes: str | None = None  # the field that, when accepted, names a document to delete


def _filter(key: str) -> Callable[[TestClient, str, str], httpx.Response]:
    return _search(filters=lambda payload: {key: [payload]})


PROBES: list[Probe] = [
    Probe("POST /search", "query", _search(query=lambda payload: payload)),
    Probe("POST /search", "query (bm25)", _search(query=lambda p: p, mode=lambda _: "bm25")),
    *(
        Probe("POST /search", f"filters.{key}", _filter(key))
        for key in ("sources", "source_types", "folders", "tags", "document_ids")
    ),
    Probe("POST /search", "weights key", _search(weights=lambda payload: {payload: 1.0})),
    Probe("POST /search", "mode", _search(mode=lambda payload: payload)),
    Probe("GET /entities", "q", _get("/entities?q={}")),
    Probe("GET /audit/blindness", "query", _get("/audit/blindness?k=2&query={}")),
    Probe(
        "POST /audit/coverage",
        "claims",
        lambda client, _, payload: _json(
            client, "POST", "/audit/coverage", {"claims": [payload], "sample_size": 3}
        ),
    ),
    *(
        Probe("POST /documents (JSON)", field, _document_json(field), writes=field)
        for field in ("id", "text", "title", "uri", "source", "source_type", "folder", "tags")
    ),
    *(
        Probe("POST /documents (multipart)", field, _document_upload(field), writes=field)
        for field in ("file", "id", "title", "source", "source_type", "folder", "tags", "format")
    ),
    Probe("GET /documents", "offset", _get("/documents?offset={}")),
    Probe("GET /documents", "limit", _get("/documents?limit={}")),
    Probe("GET /documents/{id}", "id", _get("/documents/{}")),
    Probe(
        "DELETE /documents/{id}",
        "id",
        lambda client, _, payload: client.delete(f"/documents/{_url(payload)}"),
    ),
    Probe("GET /graph/neighbourhood/{id}", "id", _get("/graph/neighbourhood/{}?depth=2")),
]


# --- the graph before and after -------------------------------------------------------------
def snapshot(graph: Graph) -> dict[str, Any]:
    """Nodes per label, relationships per type, and every document's id and content hash."""

    def rows(statement: str) -> list[tuple[Any, ...]]:
        records, _, _ = graph.driver.execute_query(statement)
        return sorted(tuple(record.values()) for record in records)

    return {
        "labels": rows("MATCH (n) UNWIND labels(n) AS label RETURN label, count(*)"),
        "types": rows("MATCH ()-[r]->() RETURN type(r), count(*)"),
        "documents": rows("MATCH (d:Document) RETURN d.id, d.content_hash"),
        "marked": rows("MATCH (n) WHERE n.pwned IS NOT NULL RETURN count(n)"),
    }


@pytest.fixture(scope="module")
def client(
    graph: Graph, settings: Settings, embedder: Embedder
) -> Iterator[tuple[TestClient, Runtime]]:
    graph.driver.execute_query(cypher(Query.DELETE_ALL))
    small = settings.model_copy(update={"max_document_bytes": DOCUMENT_LIMIT, "spacy_model": ""})
    with TestClient(create_app(small, embedder_factory=lambda _: embedder)) as test_client:
        runtime: Runtime = test_client.app.state.runtime  # type: ignore[attr-defined]
        documents = [
            read_bytes(text.encode(), doc_id=doc_id, fmt="markdown", max_bytes=DOCUMENT_LIMIT)
            for doc_id, text in CORPUS.items()
        ]
        runtime.ingestor.ingest(documents)
        yield test_client, runtime
    graph.driver.execute_query(cypher(Query.DELETE_ALL))


def _stored(client: TestClient, document_id: str) -> dict[str, Any]:
    response = client.get(f"/documents/{_url(document_id)}")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def _check_kept_as_data(
    client: TestClient, probe: Probe, name: str, payload: str, document_id: str
) -> None:
    """A document written with a payload holds it as sent (normalised like any text)."""
    stored = _stored(client, document_id)
    field = probe.writes
    if probe.operation.endswith("(multipart)"):
        # Form fields are bytes: ones that are not UTF-8 are read as Latin-1 (Starlette).
        payload = _form_text(_bytes(payload))
    if field == "id":
        assert stored["id"] == document_id
    elif field in {"title", "source", "source_type", "folder", "uri"}:
        expected = normalise_text(payload) if field == "title" else payload
        if field == "folder":
            expected = payload.strip("/")
        assert stored[field] in {expected, payload.strip()}, (name, field, stored[field])
    elif field == "tags":
        assert normalise_text(payload.split(",")[0]) in stored["tags"] or not payload.strip()


def _written_id(probe: Probe, name: str, payload: str, response: httpx.Response) -> str | None:
    if probe.writes is None or response.status_code not in {200, 201}:
        return None
    written: str = response.json()["id"]
    return written


@pytest.mark.parametrize("name", list(PAYLOADS))
def test_payloads_come_back_as_data_through_every_field(
    client: tuple[TestClient, Runtime], graph: Graph, name: str
) -> None:
    test_client, _ = client
    payload = PAYLOADS[name]
    before = snapshot(graph)
    answers: list[tuple[str, str, int, str]] = []
    for probe in PROBES:
        response = probe.send(test_client, name, payload)
        status = response.status_code
        kind = response.json().get("type", "") if status >= 400 else ""
        answers.append((probe.operation, probe.field, status, kind))
        assert status < 500, (name, probe.operation, probe.field, response.text[:2000])
        if status >= 400:
            assert response.headers["content-type"] == "application/problem+json", response.text
            assert response.json()["status"] == status
        written = _written_id(probe, name, payload, response)
        if written is not None:
            _check_kept_as_data(test_client, probe, name, payload, written)
            deleted = test_client.delete(f"/documents/{_url(written)}")
            assert deleted.status_code == 204, deleted.text
    for operation, field, status, kind in answers:  # the table of docs/reliability.md (-s)
        print(f"| `{name}` | {operation} | {field} | {status} {kind.rsplit(':', 1)[-1]} |")
    assert snapshot(graph) == before
    # The searches still work, and still find what they found.
    hits = test_client.post("/search", json={"query": "ZQ-4471-B relay", "k": 3}).json()["hits"]
    assert hits and hits[0]["document_id"] == "lab/spares.md"
