"""The API's security defaults, as ASGI middleware: optional API keys (each allowed to read
and write a set of collections), CORS only when configured, and a bound on every request body.

All three are off or loose only where the settings say so (``service/settings.py``): with no
``api_key`` and no ``api_keys_file`` every route is open and every collection readable and
writable (the API listens on loopback unless ``api_host`` says otherwise), with no
``api_cors_origins`` no CORS header is sent, and the body limit always holds. They are plain ASGI
middleware rather than FastAPI dependencies so that they also cover what no route handles
(unknown paths, bodies of routes that never read them) and answer before a body is read. The
key middleware leaves the key's ``Access`` in the request's state, where the routes read it
(``anchorgraph.api.deps.AccessDep``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from fastapi import FastAPI
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, model_validator
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from anchorgraph.api.errors import problem_response
from anchorgraph.errors import InvalidInput
from anchorgraph.scope import FULL_ACCESS, Access, CollectionName
from anchorgraph.settings import Settings

# Routes open without a key: the probe and the interactive docs (FastAPI's defaults).
PUBLIC_PATHS = ("/health", "/docs", "/docs/oauth2-redirect", "/redoc", "/openapi.json")
API_KEY_HEADER = "x-api-key"
# Where the key middleware leaves the caller's Access (Starlette's request.state).
ACCESS_STATE = "access"


class KeyEntry(BaseModel):
    """One key of ``api_keys_file``: its name (for the operator; never sent or logged with the
    key), the key itself or its SHA-256 (hex), and the collections it may read and write
    (``"*"``: every one)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, max_length=100)
    key: SecretStr | None = None
    key_sha256: str | None = Field(default=None, pattern=r"^[0-9a-fA-F]{64}$")
    read: list[CollectionName] | Literal["*"] = Field(default_factory=list)
    write: list[CollectionName] | Literal["*"] = Field(default_factory=list)

    @model_validator(mode="after")
    def _one_key(self) -> KeyEntry:
        if (self.key is None) == (self.key_sha256 is None):
            raise ValueError("give either 'key' or 'key_sha256'")
        if self.key is not None and len(self.key.get_secret_value()) < 16:
            raise ValueError("a key needs at least 16 characters")
        return self

    def digest(self) -> bytes:
        if self.key_sha256 is not None:
            return bytes.fromhex(self.key_sha256)
        assert self.key is not None
        return _sha256(self.key.get_secret_value().encode("utf-8"))

    def access(self) -> Access:
        def collections(value: list[str] | Literal["*"]) -> frozenset[str] | None:
            return None if value == "*" else frozenset(value)

        return Access(read=collections(self.read), write=collections(self.write))


def _sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


@dataclass(frozen=True)
class KeyTable:
    """The configured keys, as SHA-256 digests with what each may do."""

    keys: tuple[tuple[bytes, Access], ...]

    @classmethod
    def configured(cls, settings: Settings) -> KeyTable | None:
        """The keys of ``api_key`` (every collection) and ``api_keys_file``; None when neither
        is set (the API is open).

        Raises:
            InvalidInput: the keys file cannot be read or is not a list of valid entries.
        """
        keys: list[tuple[bytes, Access]] = []
        if settings.api_key is not None:
            keys.append((_sha256(settings.api_key.get_secret_value().encode()), FULL_ACCESS))
        if settings.api_keys_file is not None:
            keys += [(entry.digest(), entry.access()) for entry in _read_keys(settings)]
        return cls(tuple(keys)) if keys else None

    def access(self, offered: str) -> Access | None:
        """What the key ``offered`` may do, or None for no key of the table. Every entry is
        compared, in constant time each (``hmac.compare_digest`` of SHA-256 digests), so the
        time taken says nothing about the key or which entry it matched."""
        digest = _sha256(offered.encode("latin-1", "replace"))
        found: Access | None = None
        for known, access in self.keys:
            if hmac.compare_digest(digest, known) and found is None:
                found = access
        return found


def _read_keys(settings: Settings) -> list[KeyEntry]:
    path = settings.api_keys_file
    assert path is not None
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise InvalidInput(f"The keys file {path} cannot be read: {error}") from None
    if not isinstance(entries, list):
        raise InvalidInput(f"The keys file {path} must hold a JSON list of keys.")
    try:
        return [KeyEntry.model_validate(entry) for entry in entries]
    except ValidationError as error:
        # The entries' values (keys among them) stay out of the message.
        problems = "; ".join(
            f"entry {'.'.join(map(str, e['loc']))}: {e['msg']}"
            for e in error.errors(include_input=False)
        )
        raise InvalidInput(f"The keys file {path} has invalid entries: {problems}") from None


def install_security(
    app: FastAPI,
    settings: Settings,
    *,
    public: Sequence[str] = (),
    own_cors: Sequence[str] = (),
) -> None:
    """Add the middleware the settings ask for.

    Args:
        public: more path prefixes open without a key (beside ``PUBLIC_PATHS``), e.g. what
            Neo4j Browser fetches, which cannot send one.
        own_cors: path prefixes whose routes set CORS headers of their own (for Neo4j Browser's
            origin); the configured CORS middleware leaves them alone.
    """
    # Starlette runs the middleware added last first: CORS answers preflights before the key
    # is asked for (browsers send none with them), and the key is checked before a body is read.
    app.add_middleware(BodyLimitMiddleware, limit=settings.request_limit_bytes)
    keys = KeyTable.configured(settings)
    if keys is not None:
        app.add_middleware(ApiKeyMiddleware, keys=keys, public=(*PUBLIC_PATHS, *public))
    if settings.api_cors_origins:
        app.add_middleware(
            ConfiguredCors,
            origins=settings.api_cors_origins,
            exempt=tuple(own_cors),
        )


def _matches(path: str, prefixes: Sequence[str]) -> bool:
    return any(path == prefix or path.startswith(prefix.rstrip("/") + "/") for prefix in prefixes)


class ApiKeyMiddleware:
    """Every request outside ``public`` must carry a key of ``keys``, as ``X-API-Key: KEY`` or
    ``Authorization: Bearer KEY``; otherwise 401. The key's ``Access`` goes into the request's
    state for the routes. The comparison takes the same time whatever the key sent
    (``KeyTable.access``), and no key appears in a response or a log."""

    def __init__(self, app: ASGIApp, keys: KeyTable, public: Sequence[str]) -> None:
        self.app = app
        self._keys = keys
        self._public = tuple(public)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or _matches(scope["path"], self._public):
            await self.app(scope, receive, send)
            return
        access = self._authorised(Headers(scope=scope))
        if access is not None:
            scope.setdefault("state", {})[ACCESS_STATE] = access
            await self.app(scope, receive, send)
            return
        response = problem_response(
            401,
            "This API needs its key: send it as 'X-API-Key: <key>' or "
            "'Authorization: Bearer <key>'.",
            headers={"WWW-Authenticate": 'Bearer realm="anchorgraph"'},
        )
        await response(scope, receive, send)

    def _authorised(self, headers: Headers) -> Access | None:
        offered = headers.get(API_KEY_HEADER)
        if offered is None:
            scheme, _, token = headers.get("authorization", "").partition(" ")
            offered = token.strip() if scheme.lower() == "bearer" else None
        if not offered:
            return None
        # Headers arrive as latin-1 text; their bytes are compared, never the decoded text.
        return self._keys.access(offered)


class ConfiguredCors(CORSMiddleware):
    """Starlette's CORS for the configured origins, with the headers a client of this API sends
    (``Content-Type``, the key); routes under ``exempt`` answer CORS for themselves."""

    def __init__(self, app: ASGIApp, origins: Sequence[str], exempt: Sequence[str]) -> None:
        super().__init__(
            app,
            allow_origins=list(origins),
            allow_methods=["GET", "POST", "DELETE"],
            allow_headers=["Content-Type", "X-API-Key", "Authorization"],
            max_age=600,
        )
        self._inner = app
        self._exempt = tuple(exempt)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and _matches(scope["path"], self._exempt):
            await self._inner(scope, receive, send)
            return
        await super().__call__(scope, receive, send)


class BodyTooLarge(HTTPException):
    """Raised from ``receive`` when a streamed body passes the limit. An ``HTTPException``,
    because FastAPI turns any other error met while reading a body into a 400."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"The request body is larger than the limit of {limit} bytes.")


class BodyLimitMiddleware:
    """Refuse a request body over ``limit`` bytes with 413: at once when its Content-Length
    says so, and as soon as a streamed (chunked) body passes it, never holding more than the
    limit plus one chunk."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            await self._refuse(scope, receive, send)
            return
        received = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    raise BodyTooLarge(self.limit)
            return message

        async def watched_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, limited_receive, watched_send)
        except BodyTooLarge:
            # Normally the app's own handler answered it; this is for code that let it through.
            if started:
                raise
            await self._refuse(scope, receive, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        detail = str(BodyTooLarge(self.limit).detail)
        # The rest of the body is not read: the connection is closed after the answer.
        response = problem_response(413, detail, headers={"Connection": "close"})
        await response(scope, receive, send)
