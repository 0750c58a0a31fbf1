"""The interactive API docs, /docs (Swagger UI) and /redoc, served with every file they load from
this server, so that they work offline."""

from __future__ import annotations

from pathlib import Path

import fastapi_offline
from fastapi import FastAPI, Request
from fastapi.openapi.docs import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

# Swagger UI's and ReDoc's files, as the fastapi-offline package ships them (a dependency, so pip
# installs them with the project): the docs pages load nothing from a CDN, and work offline.
DOCS_FILES = Path(fastapi_offline.__file__).parent / "static"
# Under /docs, so that they are public with the pages (service/api/security.py PUBLIC_PATHS).
DOCS_ASSETS = "/docs/assets"
# The pages may load nothing from elsewhere: ReDoc's sidebar shows Redocly's logo from their CDN,
# which the browser then never asks for (the image hides itself when it fails). Inline scripts
# and styles are the pages' own (FastAPI's HTML, ReDoc's styled components), and ReDoc's search
# runs in a worker made from a blob.
DOCS_CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; worker-src 'self' blob:; "
    "connect-src 'self'; frame-ancestors 'self'; base-uri 'self'; form-action 'self'"
)


def install_docs(app: FastAPI) -> None:
    """/docs (Swagger UI, with /docs/oauth2-redirect) and /redoc, as FastAPI serves them, but
    with their JavaScript, CSS and icon from ``DOCS_FILES`` at ``DOCS_ASSETS``, and no web
    fonts: every file the pages load comes from this server."""
    app.mount(DOCS_ASSETS, StaticFiles(directory=DOCS_FILES), name="docs-assets")
    openapi_url = app.openapi_url
    oauth2_redirect_url = app.swagger_ui_oauth2_redirect_url
    assert openapi_url is not None and oauth2_redirect_url is not None

    def root(request: Request) -> str:
        """The path the app is mounted under, when behind a proxy that says so."""
        return str(request.scope.get("root_path", "")).rstrip("/")

    def own_files_only(page: HTMLResponse) -> HTMLResponse:
        page.headers["Content-Security-Policy"] = DOCS_CSP
        return page

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        prefix = root(request)
        page = get_swagger_ui_html(
            openapi_url=prefix + openapi_url,
            title=f"{app.title} - Swagger UI",
            oauth2_redirect_url=prefix + oauth2_redirect_url,
            init_oauth=app.swagger_ui_init_oauth,
            swagger_ui_parameters=app.swagger_ui_parameters,
            swagger_js_url=f"{prefix}{DOCS_ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{prefix}{DOCS_ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{prefix}{DOCS_ASSETS}/favicon.png",
        )
        return own_files_only(page)

    @app.get(oauth2_redirect_url, include_in_schema=False)
    async def swagger_ui_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    @app.get("/redoc", include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        prefix = root(request)
        page = get_redoc_html(
            openapi_url=prefix + openapi_url,
            title=f"{app.title} - ReDoc",
            redoc_js_url=f"{prefix}{DOCS_ASSETS}/redoc.standalone.js",
            redoc_favicon_url=f"{prefix}{DOCS_ASSETS}/favicon.png",
            with_google_fonts=False,
        )
        return own_files_only(page)
