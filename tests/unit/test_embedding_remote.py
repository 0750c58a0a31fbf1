"""The remote embedder's answers to failures a real server will not give on demand: a scripted
HTTP server on loopback (``http.server``, named as such; the real server's tests are in
tests/integration/test_embedding_server.py) answers what each test scripts — 429 with
Retry-After, 503 then success, a refusal, vectors of a changing width."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from anchorgraph.embedding_remote import RemoteEmbedder, RemoteOptions, tokenizer_for
from anchorgraph.errors import EmbeddingFailed, EmbeddingUnavailable

KEY = "sk-scripted-5150"


class Script:
    """What the server answers: each request pops the next (status, headers, width) for the
    first text of its batch, or answers 200 with vectors of ``width`` when none is left."""

    def __init__(self) -> None:
        self.answers: dict[str, list[tuple[int, dict[str, str]]]] = {}
        self.width = 8
        self.seen: list[list[str]] = []
        self.keys: list[str] = []
        self.lock = threading.Lock()


@pytest.fixture
def scripted() -> Iterator[tuple[str, Script]]:
    script = Script()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with script.lock:
                script.seen.append(body["input"])
                script.keys.append(self.headers.get("Authorization", ""))
                queue = script.answers.get(body["input"][0], [])
                status, headers = queue.pop(0) if queue else (200, {})
            if status != 200:
                self._answer(status, {"error": {"message": f"scripted {status}"}}, headers)
                return
            data = [
                {"index": i, "embedding": [float(len(text) + 1)] * script.width}
                for i, text in enumerate(body["input"])
            ]
            self._answer(200, {"data": data, "model": body["model"]}, {})

        def _answer(self, status: int, payload: object, headers: dict[str, str]) -> None:
            raw = json.dumps(payload).encode()
            self.send_response(status)
            for name, value in {"Content-Type": "application/json", **headers}.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", script
    finally:
        server.shutdown()
        server.server_close()


def embedder(url: str, **options: object) -> RemoteEmbedder:
    settings: dict[str, object] = {"batch_size": 2, "concurrency": 2, "retry_s": 10.0}
    settings.update(options)
    return RemoteEmbedder(
        RemoteOptions(url=url, model="scripted", api_key=KEY, **settings),  # type: ignore[arg-type]
        tokenizer_for("all-MiniLM-L6-v2"),
    )


def test_a_429_is_waited_out_as_retry_after_says_and_only_its_batch_sent_again(
    scripted: tuple[str, Script], caplog: pytest.LogCaptureFixture
) -> None:
    url, script = scripted
    script.answers["c"] = [(429, {"Retry-After": "1"})]
    client = embedder(url)
    started = time.monotonic()
    vectors = client.embed(["a", "bb", "c", "dddd"])
    assert time.monotonic() - started >= 1.0  # the server's Retry-After
    assert sorted(map(tuple, script.seen)) == [("a", "bb"), ("c", "dddd"), ("c", "dddd")]
    assert (client.requests, client.retries) == (3, 1)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0) and vectors.shape == (4, 8)
    assert set(script.keys) == {f"Bearer {KEY}"}
    assert KEY not in caplog.text
    client.close()


def test_a_server_failing_past_the_retry_time_fails_clearly(scripted: tuple[str, Script]) -> None:
    url, script = scripted
    script.answers["a"] = [(503, {"Retry-After": "5"})] * 3
    client = embedder(url, retry_s=2.0)
    with pytest.raises(EmbeddingUnavailable, match=r"answered 503.*RETRY_S") as failed:
        client.embed(["a"])
    assert client.requests == 1  # a wait longer than the time left is not waited
    assert KEY not in str(failed.value)
    client.close()


def test_a_refusal_is_not_retried_and_names_the_setting(scripted: tuple[str, Script]) -> None:
    url, script = scripted
    script.answers["a"] = [(422, {})]
    client = embedder(url)
    with pytest.raises(EmbeddingFailed, match=r"422 scripted 422.*EMBEDDING_BATCH_SIZE"):
        client.embed(["a"])
    assert client.requests == 1
    client.close()


def test_the_width_is_read_from_the_first_answer_and_held(scripted: tuple[str, Script]) -> None:
    url, script = scripted
    client = embedder(url)
    assert client.dimension == 8
    script.width = 16
    with pytest.raises(EmbeddingFailed, match="16 dimensions after answering 8"):
        client.embed(["a"])
    client.close()
    with pytest.raises(EmbeddingFailed, match="ANCHORGRAPH_EMBEDDING_DIMENSIONS asks for 8"):
        embedder(url, dimensions=8).embed(["a"])
