"""The API's security defaults (service/api/security.py), through the real app and server.

* Bound to loopback and open, with no CORS headers, unless configured.
* With ``ANCHORGRAPH_API_KEY``: every route but /health and the docs needs the key, as
  ``X-API-Key`` or ``Authorization: Bearer``, compared in constant time.
* CORS only for the configured origins.
* Every request body bounded: a Content-Length over the limit and a streamed body that passes
  it both get 413, before the body is read, and nothing is written.
* The local Neo4j listens on loopback only, its generated password stored 0600.
* Secrets (the API key, the Neo4j password) appear in no log line and no response body, over a
  run with successful and failing requests.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import socket
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr
from uvicorn_thread import served

from anchorgraph.app import create_app
from anchorgraph.embedding import Embedder
from anchorgraph.errors import GraphUnavailable
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.local_server import LocalNeo4j, free_port
from anchorgraph.settings import Settings

# Logging through the standard loggers (no uvicorn log config, every level): pytest's capture
# sees the access log too, which the secret checks read.
LOGGED = {"log_config": None, "log_level": None, "access_log": True}

pytestmark = pytest.mark.integration

API_KEY = "ag-test-key-7f3c9e1d5b"
NOTE = {
    "id": "notes/pump.md",
    "text": "# Pump\n\nThe pump P-100 feeds the valve.",
    "format": "markdown",
}
SEARCH = {"query": "pump valve"}


@pytest.fixture
def base(clean_graph: Graph, settings: Settings) -> Settings:
    return settings.model_copy(update={"spacy_model": ""})


def is_problem(response: Any, status: int) -> bool:
    """An RFC 9457 problem-details answer with this status (an httpx or a TestClient one)."""
    return bool(
        response.status_code == status
        and response.headers["content-type"].startswith("application/problem+json")
        and response.json()["status"] == status
    )


# --- defaults -----------------------------------------------------------------------------------
def test_by_default_loopback_no_key_and_no_cors(base: Settings, fake_embedder: Embedder) -> None:
    defaults = Settings(_env_file=None)
    assert defaults.api_host == "127.0.0.1"  # what `anchorgraph serve` binds unless told
    assert defaults.api_key is None and defaults.api_cors_origins == []
    assert Settings(_env_file=None, api_key="").api_key is None  # empty: no key, not a lock
    assert defaults.request_limit_bytes == defaults.max_file_bytes + 1_000_000

    app = create_app(base, embedder_factory=lambda _: fake_embedder)
    with TestClient(app) as client:
        answer = client.post("/search", json=SEARCH, headers={"Origin": "https://evil.example"})
        assert answer.status_code == 200
        assert not any(name.startswith("access-control-") for name in answer.headers)
        preflight = client.options(
            "/search",
            headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"},
        )
        assert "access-control-allow-origin" not in preflight.headers


# --- the API key --------------------------------------------------------------------------------
def test_with_a_key_every_route_but_health_and_docs_needs_it(
    base: Settings, fake_embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    keyed = base.model_copy(update={"api_key": SecretStr(API_KEY)})
    app = create_app(keyed, embedder_factory=lambda _: fake_embedder)
    compared: list[tuple[bytes, bytes]] = []
    real_compare = hmac.compare_digest

    def spying(a: bytes, b: bytes) -> bool:
        compared.append((a, b))
        return bool(real_compare(a, b))

    monkeypatch.setattr(hmac, "compare_digest", spying)  # what security.py calls
    good = {"X-API-Key": API_KEY}
    with TestClient(app) as client:
        for path in ("/health", "/docs", "/openapi.json", "/redoc"):
            assert client.get(path).status_code == 200, path
        refusals = {
            "no key": {},
            "wrong key": {"X-API-Key": API_KEY + "x"},
            "a prefix of it": {"X-API-Key": API_KEY[:-1]},
            "wrong bearer": {"Authorization": "Bearer nope"},
            "other scheme": {"Authorization": f"Basic {API_KEY}"},
            "empty": {"X-API-Key": ""},
        }
        for name, headers in refusals.items():
            answer = client.post("/search", json=SEARCH, headers=headers)
            assert is_problem(answer, 401), (name, answer.text)
            assert answer.headers["www-authenticate"].startswith("Bearer")
            assert "X-API-Key" in answer.json()["detail"]
        for path in ("/documents", "/metrics", "/entities?q=pump", "/no/such/route"):
            assert client.get(path).status_code == 401, path  # an unknown path tells nothing
        assert client.post("/documents", json=NOTE).status_code == 401
        assert client.get("/documents").status_code == 401

        assert client.post("/documents", json=NOTE, headers=good).status_code == 201
        assert client.post("/search", json=SEARCH, headers=good).status_code == 200
        bearer = {"Authorization": f"Bearer {API_KEY}"}
        assert client.post("/search", json=SEARCH, headers=bearer).status_code == 200
        assert client.get("/metrics", headers=good).status_code == 200
        assert client.get("/documents", headers=bearer).json()["total"] == 1
    # Every key offered was compared in constant time against the configured one (their
    # SHA-256 digests, so that the time does not even depend on the keys' lengths).
    digest = hashlib.sha256(API_KEY.encode()).digest()
    assert compared and all(expected == digest for _, expected in compared)
    assert (hashlib.sha256(API_KEY.encode() + b"x").digest(), digest) in compared


# --- CORS ---------------------------------------------------------------------------------------
def test_cors_answers_the_configured_origins_only(base: Settings, fake_embedder: Embedder) -> None:
    allowed = "https://app.example"
    configured = base.model_copy(
        update={"api_cors_origins": [allowed], "api_key": SecretStr(API_KEY)}
    )
    app = create_app(configured, embedder_factory=lambda _: fake_embedder)
    with TestClient(app) as client:
        headers = {"X-API-Key": API_KEY}
        answer = client.post("/search", json=SEARCH, headers={**headers, "Origin": allowed})
        assert answer.status_code == 200
        assert answer.headers["access-control-allow-origin"] == allowed
        other = client.post(
            "/search", json=SEARCH, headers={**headers, "Origin": "https://evil.example"}
        )
        assert other.status_code == 200 and "access-control-allow-origin" not in other.headers
        # A preflight carries no key; it is answered before the key is asked for.
        preflight = client.options(
            "/search",
            headers={
                "Origin": allowed,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "content-type, x-api-key",
            },
        )
        assert preflight.status_code == 200
        assert preflight.headers["access-control-allow-origin"] == allowed
        assert "x-api-key" in preflight.headers["access-control-allow-headers"].lower()
        # A refusal is readable by the allowed page too, so it can say why.
        refused = client.post("/search", json=SEARCH, headers={"Origin": allowed})
        assert refused.status_code == 401
        assert refused.headers["access-control-allow-origin"] == allowed


# --- body limits --------------------------------------------------------------------------------
LIMIT = 4096


def raw_request(url: str, head: str) -> tuple[int, str, float]:
    """Send only a request's head over a socket and read the answer: the status, the body and
    the seconds it took (the server must not wait for a body it will refuse)."""
    host, port = url.removeprefix("http://").split(":")
    started = time.monotonic()
    with socket.create_connection((host, int(port)), timeout=10) as connection:
        connection.sendall(head.encode())
        received = b""
        while chunk := connection.recv(65536):
            received += chunk
            if b"\r\n\r\n" in received and received.rstrip().endswith(b"}"):
                break
    status = int(received.split(b" ", 2)[1])
    return status, received.partition(b"\r\n\r\n")[2].decode(), time.monotonic() - started


def test_every_body_is_bounded_declared_or_streamed(
    base: Settings, fake_embedder: Embedder
) -> None:
    limited = base.model_copy(update={"api_max_request_bytes": LIMIT})
    app = create_app(limited, embedder_factory=lambda _: fake_embedder)
    big_note = {**NOTE, "text": "# Pump\n\n" + "The pump P-100 feeds the valve. " * 400}
    with served(app, **LOGGED) as url, httpx.Client(base_url=url, timeout=30) as client:
        assert client.post("/search", json=SEARCH).status_code == 200  # under the limit

        # A Content-Length over the limit: refused at once, without a byte of the body.
        for method, path in (("POST", "/documents"), ("POST", "/search"), ("GET", "/documents")):
            head = (
                f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                "Content-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n"
            )
            status, body, seconds = raw_request(url, head)
            assert status == 413 and str(LIMIT) in body, (path, body)
            assert seconds < 5, seconds

        # Declared and under the wire's buffers: the body is sent whole, and still refused.
        declared = client.post("/documents", json=big_note)
        assert is_problem(declared, 413) and str(LIMIT) in declared.json()["detail"]
        upload = client.post(
            "/documents", files={"file": ("big.md", big_note["text"].encode(), "text/markdown")}
        )
        assert is_problem(upload, 413)

        # Streamed (chunked, no Content-Length): refused once it passes the limit.
        def chunks() -> Iterator[bytes]:
            yield b'{"id": "notes/stream.md", "format": "markdown", "text": "'
            for _ in range(20):
                yield b"The pump P-100 feeds the valve. " * 16
            yield b'"}'

        streamed = client.post(
            "/documents", content=chunks(), headers={"Content-Type": "application/json"}
        )
        assert is_problem(streamed, 413), streamed.text
        assert "content-length" not in streamed.request.headers
        # Nothing of any refused body reached the graph.
        assert client.get("/documents").json()["total"] == 0


# --- the local Neo4j ----------------------------------------------------------------------------
# Loopback as /proc/net/tcp{,6} write it (little-endian hex): 127.0.0.1, the same mapped into
# IPv6 (the JVM binds IPv6 sockets), and ::1. Any other address (0.0.0.0, ::) would be reachable
# from the network.
LOOPBACK = {
    "0100007F",
    "0000000000000000FFFF00000100007F",
    "00000000000000000000000001000000",
}


def listening_addresses(port: int) -> set[str]:
    """The local addresses of the sockets listening on ``port`` (IPv4 and IPv6, from /proc)."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            local, _remote, state = line.split()[1:4]
            address, port_hex = local.rsplit(":", 1)
            if state == "0A" and int(port_hex, 16) == port:  # 0A: LISTEN
                found.add(address)
    return found


def test_the_local_neo4j_listens_on_loopback_with_a_0600_password(settings: Settings) -> None:
    if not settings.uses_local_server:
        pytest.skip("the tests use a server of their own (ANCHORGRAPH_NEO4J_URI)")
    server = LocalNeo4j(settings)
    mode = server.password_file.stat().st_mode
    assert stat.S_IMODE(mode) == 0o600, oct(mode)
    for port in (settings.neo4j_bolt_port, settings.neo4j_http_port):
        addresses = listening_addresses(port)
        assert addresses and addresses <= LOOPBACK, (port, addresses)


# --- secrets in logs and bodies -----------------------------------------------------------------
def test_secrets_appear_in_no_log_and_no_body(
    base: Settings,
    fake_embedder: Embedder,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A server an earlier test started (uvicorn's log config, log_level="warning") left uvicorn's
    # loggers not propagating and at WARNING; caplog listens at the root, at every level.
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        monkeypatch.setattr(logging.getLogger(name), "propagate", True)
        caplog.set_level(logging.DEBUG, logger=name)
    password = base.neo4j_password or SecretStr(LocalNeo4j(base).password())
    keyed = base.model_copy(update={"api_key": SecretStr(API_KEY), "neo4j_password": password})
    secrets = (API_KEY, password.get_secret_value())
    bodies: list[str] = []
    caplog.set_level(logging.DEBUG)  # every logger, the driver's and uvicorn's included
    app = create_app(keyed, embedder_factory=lambda _: fake_embedder)
    with served(app, **LOGGED) as url, httpx.Client(base_url=url, timeout=30) as client:
        good = {"X-API-Key": API_KEY}
        answers = [
            client.get("/health"),
            client.post("/documents", json=NOTE, headers=good),
            client.post("/search", json=SEARCH, headers=good),
            client.post("/search", json=SEARCH),  # 401
            client.post("/search", json=SEARCH, headers={"X-API-Key": "wrong"}),  # 401
            client.post("/search", json={"query": 5, "k": "x"}, headers=good),  # 422
            client.post("/search", content=b"{not json", headers=good),  # 400 or 422
            client.get("/documents/notes/missing.md", headers=good),  # 404
            client.post("/documents", json={**NOTE, "format": "pdf"}, headers=good),  # 4xx
            client.get("/metrics", headers=good),
            client.get("/openapi.json"),
        ]
        assert [a.status_code for a in answers[:5]] == [200, 201, 200, 401, 401]
        assert all(400 <= a.status_code < 500 for a in answers[5:9]), [
            a.status_code for a in answers[5:9]
        ]
        bodies += [a.text for a in answers]
        bodies += [str(dict(a.headers)) for a in answers]

    # Neo4j refusing a wrong password, and a server that is not there: the errors name the
    # server, never a password.
    wrong = keyed.model_copy(update={"neo4j_password": SecretStr("wrong-" + secrets[1])})
    gone = keyed.model_copy(update={"neo4j_uri": f"bolt://127.0.0.1:{free_port()}"})
    for broken in (wrong, gone):
        with (
            pytest.raises(GraphUnavailable) as failed,
            TestClient(create_app(broken, embedder_factory=lambda _: fake_embedder)),
        ):
            pass
        bodies.append(str(failed.value))
    logged = caplog.text + "\n".join(
        f"{record.getMessage()} {record.exc_text or ''}" for record in caplog.records
    )

    assert "uvicorn.access" in {record.name for record in caplog.records}  # the logs were seen
    assert any(record.name.startswith("neo4j") for record in caplog.records)
    for secret in (*secrets, "wrong-" + secrets[1]):
        assert secret not in logged
        assert not any(secret in body for body in bodies)
    assert repr(keyed).count(API_KEY) == 0 and str(keyed).count(secrets[1]) == 0
