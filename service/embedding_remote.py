"""Embeddings from a model server that speaks OpenAI's ``POST /v1/embeddings``: Text Embeddings
Inference, vLLM, Infinity, Ollama, OpenAI itself or Azure OpenAI (docs/embeddings.md).

An ingest hands ``embed`` hundreds of texts at once; they go out as requests of ``batch_size``
texts, several in flight. One bound holds for the whole process (``concurrency``): the
sub-batches of every caller (an ingest job, a document written over REST, the queries of
searches) share its slots, so stacked layers of concurrency never overrun a server's limits (as
they did dify's, langgenius/dify#41112). A caller waits until its own sub-batches are back:
that is the back-pressure, a reader never runs ahead of the server.

A request that fails for a reason that passes (no connection, a timeout, 408, 429 or a 5xx) is
sent again, alone, after the time the server asks for (``Retry-After``, in seconds or as a
date, or ``retry-after-ms``), else after an exponential backoff with jitter, for at most
``retry_s`` seconds in all; only the failed sub-batch is sent again, never its neighbours that
were answered (re-sending a whole document's texts on one 429 is the failure Tencent/WeKnora#2533
reports). Any other answer (401, a model the server does not know, a batch larger than it takes)
fails at once, with the server's own words. Nothing is written for a batch whose embedding
failed: the ingest stops before its transaction.

The vectors' width is read from the first answer (a probe text when ``dimension`` is asked for
first) and every later answer must match it; the runtime then checks it against the graph's
vector indexes. Vectors are L2-normalised here, whatever the server did.

Chunking counts tokens with a local tokenizer (``tokenizer_for``): the model's own when its
folder is on this machine, else the one given, else the packaged all-MiniLM-L6-v2's.
The API key goes in the ``Authorization`` header only: never logged, never in a message.
"""

from __future__ import annotations

import email.utils
import logging
import random
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, NotRequired, TypedDict

import httpx
import numpy as np
from pydantic import BaseModel

from anchorgraph.embedding import Vectors, local_model, resolve_model_path
from anchorgraph.errors import EmbeddingFailed, EmbeddingUnavailable, InvalidInput

if TYPE_CHECKING:
    from tokenizers import Tokenizer

log = logging.getLogger(__name__)

# Statuses a server answers while busy or restarting: worth the same request again later.
RETRYABLE = frozenset({408, 429, 500, 502, 503, 504})
# Backoff without a Retry-After: 0.5 s doubling to 8 s, each drawn in [half, whole] (the
# OpenAI SDK's schedule, src/openai/_constants.py).
BACKOFF_FIRST_S = 0.5
BACKOFF_MAX_S = 8.0
PROBE_TEXT = "dimension probe"
# The server's words in an error message, bounded: an HTML error page is not a message.
REPLY_CHARS = 300


class EmbeddingsRequest(TypedDict):
    """The body of ``POST {url}/embeddings`` (OpenAI's API reference, "Create embeddings")."""

    model: str
    input: list[str]
    encoding_format: str
    dimensions: NotRequired[int]


class EmbeddedText(BaseModel):
    """One row of the answer: the vector of the ``index``-th input."""

    index: int
    embedding: list[float]


class EmbeddingsAnswer(BaseModel):
    """The answer's part read here: its rows, in any order (the extra fields are ignored)."""

    data: list[EmbeddedText]


@dataclass(frozen=True)
class RemoteOptions:
    """Where and how the server is asked (``ANCHORGRAPH_EMBEDDING_*``)."""

    url: str  # the API's base, e.g. http://127.0.0.1:7997/v1; requests go to {url}/embeddings
    model: str  # as the server names it (the request's "model"); also what collections record
    api_key: str | None = None
    dimensions: int | None = None  # asked of models that can shorten their vectors
    batch_size: int = 32  # texts per request (TEI takes 32 by default)
    concurrency: int = 2  # requests in flight, for the whole process
    timeout_s: float = 60.0  # one request: connect, send, answer
    retry_s: float = 60.0  # how long failures that pass are retried

    @property
    def endpoint(self) -> str:
        return self.url.rstrip("/") + "/embeddings"


class RemoteEmbedder:
    """An ``Embedder`` over an OpenAI-compatible ``/embeddings`` endpoint."""

    runtime: ClassVar[str] = "http"  # what embeds a query (``GET /health``'s query_runtime)

    def __init__(
        self,
        options: RemoteOptions,
        tokenizer: Tokenizer,
        *,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        """Args:
        tokenizer: counts tokens for chunking (``tokenizer_for``), untruncated, unpadded.
        transport: httpx's transport (default: the network).
        """
        self.options = options
        self._tokenizer = tokenizer
        headers = {"Authorization": f"Bearer {options.api_key}"} if options.api_key else {}
        self._client = httpx.Client(
            headers=headers,
            timeout=options.timeout_s,
            limits=httpx.Limits(max_connections=options.concurrency),
            transport=transport,
        )
        self._slots = threading.BoundedSemaphore(options.concurrency)
        self._pool = ThreadPoolExecutor(options.concurrency, thread_name_prefix="embed-http")
        self._dimension: int | None = None
        self._dimension_lock = threading.Lock()
        self._counts = threading.Lock()
        self.requests = 0  # sent, retries included (the benchmark's and the tests' count)
        self.retries = 0

    @property
    def name(self) -> str:
        return self.options.model

    @property
    def dimension(self) -> int:
        """The vectors' width, from the first answer (a probe when nothing was embedded yet).

        Raises:
            EmbeddingUnavailable, EmbeddingFailed: the probe failed.
        """
        if self._dimension is None:
            self.embed([PROBE_TEXT])
        assert self._dimension is not None
        return self._dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        """One unit row per text, in order: ``batch_size`` texts per request, the requests
        sharing the process's ``concurrency`` slots.

        Raises:
            EmbeddingUnavailable: the server could not be reached, or was still busy or failing
                after ``retry_s`` seconds of retries.
            EmbeddingFailed: it refused a request, or answered something that is no embedding.
        """
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        size = self.options.batch_size
        batches = [list(texts[at : at + size]) for at in range(0, len(texts), size)]
        if len(batches) == 1:
            return self._send(batches[0])
        return np.concatenate(list(self._pool.map(self._send, batches)))

    def count_tokens(self, text: str) -> int:
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._client.close()

    # --- one request --------------------------------------------------------------------------
    def _send(self, texts: list[str]) -> Vectors:
        """One sub-batch, in one of the process's slots, retried while its failures pass."""
        body = EmbeddingsRequest(model=self.options.model, input=texts, encoding_format="float")
        if self.options.dimensions is not None:
            body["dimensions"] = self.options.dimensions
        give_up_at = time.monotonic() + self.options.retry_s
        attempt = 0
        # The slot is kept while the sub-batch waits to be sent again: a server that asks for
        # less gets fewer requests, rather than the same number from the other sub-batches.
        with self._slots:
            while True:
                with self._counts:
                    self.requests += 1
                try:
                    response = self._client.post(self.options.endpoint, json=body)
                except httpx.TransportError as error:
                    failure, wait = _transport_failure(error), _backoff(attempt)
                else:
                    if response.status_code == 200:
                        return self._vectors(response, len(texts))
                    if response.status_code not in RETRYABLE:
                        raise EmbeddingFailed(self._refusal(response))
                    failure = f"answered {response.status_code} {_reply(response)}"
                    wait = _retry_after(response) or _backoff(attempt)
                attempt += 1
                left = give_up_at - time.monotonic()
                if wait > left:
                    raise EmbeddingUnavailable(
                        f"The embedding server {self.options.endpoint} {failure}; tried "
                        f"{attempt} time(s) over {self.options.retry_s:g} s "
                        "(ANCHORGRAPH_EMBEDDING_RETRY_S). Nothing of this batch was written."
                    )
                log.warning(
                    "embedding server %s %s; again in %.1f s",
                    self.options.endpoint,
                    failure,
                    wait,
                )
                with self._counts:
                    self.retries += 1
                time.sleep(wait)

    def _vectors(self, response: httpx.Response, expected: int) -> Vectors:
        """The answer's rows in input order, unit length, of the width of every answer."""
        try:
            answer = EmbeddingsAnswer.model_validate_json(response.content)
            rows = sorted(answer.data, key=lambda row: row.index)
            vectors = np.asarray([row.embedding for row in rows], dtype=np.float32)
        except ValueError as error:
            raise EmbeddingFailed(
                f"The embedding server {self.options.endpoint} answered something that is not "
                f"an embeddings list ({type(error).__name__}: {error})."
            ) from None
        if vectors.ndim != 2 or len(vectors) != expected:
            raise EmbeddingFailed(
                f"The embedding server {self.options.endpoint} answered {len(vectors)} vectors "
                f"for {expected} texts."
            )
        self._check_width(int(vectors.shape[1]))
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return np.asarray(vectors / np.clip(norms, 1e-12, None), dtype=np.float32)

    def _check_width(self, width: int) -> None:
        with self._dimension_lock:
            if self._dimension is None:
                wanted = self.options.dimensions
                if wanted is not None and width != wanted:
                    raise EmbeddingFailed(
                        f"The embedding server's {self.options.model!r} answered vectors of "
                        f"{width} dimensions; ANCHORGRAPH_EMBEDDING_DIMENSIONS asks for {wanted} "
                        "(a model that cannot shorten its vectors ignores it: unset it)."
                    )
                self._dimension = width
            elif width != self._dimension:
                raise EmbeddingFailed(
                    f"The embedding server's {self.options.model!r} answered vectors of {width} "
                    f"dimensions after answering {self._dimension}: is another model served now?"
                )

    def _refusal(self, response: httpx.Response) -> str:
        hint = {
            401: " Check ANCHORGRAPH_EMBEDDING_API_KEY.",
            403: " Check ANCHORGRAPH_EMBEDDING_API_KEY.",
            404: " Check ANCHORGRAPH_EMBEDDING_URL (it ends before /embeddings, e.g. with /v1) "
            "and ANCHORGRAPH_EMBEDDING_MODEL.",
            413: " Lower ANCHORGRAPH_EMBEDDING_BATCH_SIZE.",
            422: " If the batch is too large for it, lower ANCHORGRAPH_EMBEDDING_BATCH_SIZE "
            "(TEI takes 32 texts a request by default).",
        }.get(response.status_code, "")
        return (
            f"The embedding server {self.options.endpoint} refused a request of "
            f"{self.options.model!r}: {response.status_code} {_reply(response)}.{hint}"
        )


def _reply(response: httpx.Response) -> str:
    """The server's words: a JSON error's message, else the start of its text."""
    try:
        body = response.json()
    except ValueError:
        return " ".join(response.text.split())[:REPLY_CHARS]
    error = body.get("error", body) if isinstance(body, dict) else body
    message = error.get("message", error) if isinstance(error, dict) else error
    detail = body.get("detail") if isinstance(body, dict) else None
    return str(detail or message)[:REPLY_CHARS]


def _transport_failure(error: httpx.TransportError) -> str:
    if isinstance(error, httpx.TimeoutException):
        return f"did not answer in time ({type(error).__name__}; ANCHORGRAPH_EMBEDDING_TIMEOUT_S)"
    return f"cannot be reached ({type(error).__name__}: {error})"


def _backoff(attempt: int) -> float:
    """Seconds before attempt ``attempt + 1``: 0.5, 1, 2, 4, 8, 8, … each drawn from its upper
    half, so that clients that failed together do not come back together."""
    ceiling = min(BACKOFF_MAX_S, BACKOFF_FIRST_S * 2**attempt)
    return float(ceiling * random.uniform(0.5, 1.0))  # jitter, not a secret


def _retry_after(response: httpx.Response) -> float | None:
    """The wait the server asks for: ``retry-after-ms`` (OpenAI's), else ``Retry-After`` in
    seconds or as an HTTP date (RFC 9110 §10.2.3); None when it asks for none."""
    milliseconds = response.headers.get("retry-after-ms")
    if milliseconds is not None:
        try:
            return max(0.0, float(milliseconds) / 1000)
        except ValueError:
            pass
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def tokenizer_for(model: str, given: str | Path | None = None) -> Tokenizer:
    """The tokenizer chunk sizes are counted with: ``given`` (a folder holding tokenizer.json,
    or the file), else the model's own when it is a local folder (or the packaged model), else
    the packaged all-MiniLM-L6-v2's; untruncated and unpadded.

    Raises:
        InvalidInput: ``given`` holds no tokenizer.json.
    """
    from tokenizers import Tokenizer

    if given is not None:
        where = Path(given)
    else:
        where = local_model(model) or Path(resolve_model_path("all-MiniLM-L6-v2"))
    path = where / "tokenizer.json" if where.is_dir() else where
    try:
        tokenizer = Tokenizer.from_file(str(path))
    except Exception as error:  # missing, or not a tokenizers file
        raise InvalidInput(
            f"{path}: no tokenizer to count chunk tokens with ({error}); set "
            "ANCHORGRAPH_EMBEDDING_TOKENIZER to a folder holding the model's tokenizer.json."
        ) from None
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer
