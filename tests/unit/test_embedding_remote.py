"""The remote embedder's answers to failures a real server will not give on demand: a scripted
HTTP server on loopback (``http.server``, named as such; the real server's tests are in
tests/integration/test_embedding_server.py) answers what each test scripts — 429 with
Retry-After, 503 then success, a refusal, vectors of a changing width, answers later than the
timeout — and counts the requests it holds at once."""

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
from anchorgraph.runtime import remote_embedder
from anchorgraph.settings import Settings

KEY = "sk-scripted-5150"


# How long the server holds the requests in flight once there are as many as the client may
# send: time for any request beyond the bound, already waiting to be sent, to arrive and be
# counted. A correct client passes whatever it is; a shorter one would only catch less.
HOLD_S = 0.3
WAIT_S = 60.0  # a safety net only: a held request waits for the others, not on time


class Script:
    """What the server answers: each request pops the next (status, headers, width) for the
    first text of its batch, or answers 200 with vectors of ``width`` when none is left. The
    first ``late`` requests of a text are answered only once the test has ended.
    With ``hold`` N, every request waits until N are in flight and then ``HOLD_S`` more;
    ``peak`` is the most it held at once."""

    def __init__(self) -> None:
        self.answers: dict[str, list[tuple[int, dict[str, str]]]] = {}
        self.width = 8
        self.seen: list[list[str]] = []
        self.keys: list[str] = []
        self.lock = threading.Lock()
        self.late: dict[str, int] = {}
        self.ended = threading.Event()
        self.hold: int | None = None
        self.held = threading.Event()
        self.in_flight = self.peak = 0

    def arrived(self, text: str) -> bool:
        """Count a request in; whether it is to be answered late (its first text is ``text``)."""
        with self.lock:
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
            if self.hold is not None and self.in_flight >= self.hold:
                self.held.set()
            late = self.late.get(text, 0)
            self.late[text] = max(0, late - 1)
            return late > 0

    def wait(self, late: bool) -> None:
        if self.hold is not None:
            self.held.wait(WAIT_S)
            time.sleep(HOLD_S)
        if late:
            self.ended.wait(WAIT_S)

    def answering(self) -> None:
        """Count a request out as its answer is sent: the client cannot send the next request
        in its place before it has the answer, so the count never runs ahead of the client's."""
        with self.lock:
            self.in_flight -= 1


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
            script.wait(script.arrived(body["input"][0]))
            script.answering()
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
            try:
                self.send_response(status)
                for name, value in {"Content-Type": "application/json", **headers}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)
            except OSError:  # a late answer: the client gave up on it and closed
                pass

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", script
    finally:
        script.ended.set()  # late answers go now, to a client that is gone
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


def test_requests_in_flight_never_exceed_the_concurrency_setting_and_reach_it(
    scripted: tuple[str, Script], monkeypatch: pytest.MonkeyPatch
) -> None:
    """ANCHORGRAPH_EMBEDDING_CONCURRENCY bounds the whole process: two ingests' many sub-batches
    (the embedder's pool) and two queries of one text each (sent from their own threads) share
    it. The server holds every request until as many as the setting allows are in flight, so
    the bound is reached whatever the machine's speed, and counts any beyond it."""
    url, script = scripted
    concurrency = 3
    for name, value in {
        "URL": url,
        "MODEL": "scripted",
        "BATCH_SIZE": "2",
        "CONCURRENCY": str(concurrency),
    }.items():
        monkeypatch.setenv(f"ANCHORGRAPH_EMBEDDING_{name}", value)
    client = remote_embedder(Settings(_env_file=None))
    script.hold = concurrency
    ingests = [[f"{name}{n}" for n in range(8)] for name in ("a", "b")]
    callers = [*ingests, ["query one"], ["query two"]]
    answers: dict[int, int] = {}

    def embed(place: int) -> None:
        answers[place] = len(client.embed(callers[place]))

    threads = [threading.Thread(target=embed, args=(n,)) for n in range(len(callers))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT_S)
    assert answers == {n: len(texts) for n, texts in enumerate(callers)}
    assert len(script.seen) == 4 + 4 + 1 + 1
    assert script.peak == concurrency
    client.close()


def test_an_answer_later_than_the_timeout_is_asked_again_and_taken(
    scripted: tuple[str, Script],
) -> None:
    url, script = scripted
    script.late["a"] = 1  # answered only once the test has ended
    client = embedder(url, timeout_s=0.5, retry_s=30.0)
    started = time.monotonic()
    vectors = client.embed(["a"])
    assert time.monotonic() - started >= 0.5  # the first request's whole timeout
    assert vectors.shape == (1, 8) and script.seen == [["a"], ["a"]]
    assert (client.requests, client.retries) == (2, 1)
    client.close()


def test_a_server_answering_after_the_timeout_fails_clearly_once_no_retry_time_is_left(
    scripted: tuple[str, Script],
) -> None:
    url, script = scripted
    script.late["a"] = 10
    client = embedder(url, timeout_s=0.5, retry_s=0.0)
    started = time.monotonic()
    with pytest.raises(
        EmbeddingUnavailable,
        match=r"did not answer in time \(ReadTimeout; ANCHORGRAPH_EMBEDDING_TIMEOUT_S\); "
        r"tried 1 time\(s\) over 0 s \(ANCHORGRAPH_EMBEDDING_RETRY_S\)\. Nothing of this batch",
    ):
        client.embed(["a"])
    assert time.monotonic() - started >= 0.5
    assert client.requests == 1 and script.seen == [["a"]]
    client.close()
