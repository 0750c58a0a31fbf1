"""The API's security defaults, as ASGI middleware: an optional API key, CORS only when
configured, and a bound on every request body.

All three are off or loose only where the settings say so (``service/settings.py``): with no
``api_key`` every route is open (the API listens on loopback unless ``api_host`` says otherwise),
with no ``api_cors_origins`` no CORS header is sent, and the body limit always holds. They are
plain ASGI middleware rather than FastAPI dependencies so that they also cover what no route
handles (unknown paths, bodies of routes that never read them) and answer before a body is read.
"""

from __future__ import annotations

import hmac
from collections.abc import Sequence

from fastapi import FastAPI
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.api.errors import problem_response
from service.settings import Settings

# Routes open without a key: the probe and the interactive docs (FastAPI's defaults).
PUBLIC_PATHS = ("/health", "/docs", "/docs/oauth2-redirect", "/redoc", "/openapi.json")
API_KEY_HEADER = "x-api-key"


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
    if settings.api_key is not None:
        app.add_middleware(
            ApiKeyMiddleware,
            key=settings.api_key.get_secret_value(),
            public=(*PUBLIC_PATHS, *public),
        )
    if settings.api_cors_origins:
        app.add_middleware(
            ConfiguredCors,
            origins=settings.api_cors_origins,
            exempt=tuple(own_cors),
        )


def _matches(path: str, prefixes: Sequence[str]) -> bool:
    return any(path == prefix or path.startswith(prefix.rstrip("/") + "/") for prefix in prefixes)


class ApiKeyMiddleware:
    """Every request outside ``public`` must carry the key, as ``X-API-Key: KEY`` or
    ``Authorization: Bearer KEY``; otherwise 401. The comparison takes the same time whatever
    the key sent (``hmac.compare_digest``), and neither key appears in a response or a log."""

    def __init__(self, app: ASGIApp, key: str, public: Sequence[str]) -> None:
        self.app = app
        self._key = key.encode("utf-8")
        self._public = tuple(public)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or _matches(scope["path"], self._public):
            await self.app(scope, receive, send)
            return
        if self._authorised(Headers(scope=scope)):
            await self.app(scope, receive, send)
            return
        response = problem_response(
            401,
            "This API needs its key: send it as 'X-API-Key: <key>' or "
            "'Authorization: Bearer <key>'.",
            headers={"WWW-Authenticate": 'Bearer realm="anchorgraph"'},
        )
        await response(scope, receive, send)

    def _authorised(self, headers: Headers) -> bool:
        offered = headers.get(API_KEY_HEADER)
        if offered is None:
            scheme, _, token = headers.get("authorization", "").partition(" ")
            offered = token.strip() if scheme.lower() == "bearer" else None
        if not offered:
            return False
        # Headers arrive as latin-1 text; their bytes are compared, never the decoded text.
        return hmac.compare_digest(offered.encode("latin-1", "replace"), self._key)


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
