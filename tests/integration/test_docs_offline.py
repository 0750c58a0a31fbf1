"""The interactive docs with no internet: /docs (Swagger UI) and /redoc (ReDoc) in headless
Chromium, every request that is not to the API itself aborted, render the API from files the
project installs (no CDN, no web fonts), and no request leaves loopback: the pages' own
Content-Security-Policy stops in the browser the one outside file ReDoc still names (Redocly's
logo), so that it is never sent.

Only the docs are read (the pages and /openapi.json), so the app is served without its lifespan:
no Neo4j, no model."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr
from uvicorn_thread import served

from anchorgraph.app import create_app
from anchorgraph.settings import Settings

CHROMIUM = Path("/usr/bin/chromium")
# Long enough for a shared, busy machine; the CDN's files never arrive, however long one waits.
RENDER_TIMEOUT_MS = 30_000


@pytest.fixture(scope="module")
def api() -> Iterator[str]:
    with served(create_app(Settings(_env_file=None)), lifespan="off") as url:
        yield url


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not CHROMIUM.exists():
        pytest.skip("Chromium is not installed: `make test` installs Debian's chromium")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM))
        yield browser
        browser.close()


@dataclass
class Offline:
    """A page whose every request off the API is aborted, and what it asked for."""

    page: Any
    requested: list[str] = field(default_factory=list)
    aborted: list[str] = field(default_factory=list)  # sent, and stopped by the test
    blocked: list[str] = field(default_factory=list)  # stopped by the page's CSP: never sent
    errors: list[str] = field(default_factory=list)


@pytest.fixture
def offline(chromium: Any, api: str) -> Iterator[Offline]:
    context = chromium.new_context(service_workers="block")
    seen = Offline(context.new_page())

    def only_the_api(route: Any) -> None:
        url = route.request.url
        if url == api or url.startswith(api + "/"):
            route.continue_()
        else:
            seen.aborted.append(url)
            route.abort("internetdisconnected")

    context.route("**/*", only_the_api)
    context.on("request", lambda request: seen.requested.append(request.url))
    context.on(
        "requestfailed",
        lambda request: request.failure == "csp" and seen.blocked.append(request.url),
    )
    seen.page.on("pageerror", lambda error: seen.errors.append(str(error)))
    yield seen
    context.close()


def assert_stayed_on_loopback(seen: Offline, api: str) -> None:
    assert seen.aborted == [], f"requests off the API: {seen.aborted}"
    sent = [url for url in seen.requested if url not in seen.blocked]
    assert sent and all(url.startswith(api + "/") for url in sent), sent
    assert seen.errors == [], seen.errors


def test_swagger_ui_renders_offline(offline: Offline, api: str) -> None:
    page = offline.page
    page.goto(f"{api}/docs")
    search = page.locator('.opblock-post .opblock-summary-path[data-path="/search"]')
    search.first.wait_for(state="visible", timeout=RENDER_TIMEOUT_MS)
    # The stylesheet came too: Swagger UI's own colour for a POST block.
    block = page.locator(".opblock-post").first
    assert block.evaluate("e => getComputedStyle(e).borderColor") == "rgb(73, 204, 144)"
    assert page.title() == "anchorgraph - Swagger UI"
    assert_stayed_on_loopback(offline, api)


def test_redoc_renders_offline(offline: Offline, api: str) -> None:
    page = offline.page
    page.goto(f"{api}/redoc")
    title = page.get_by_role("heading", level=1, name=re.compile(r"^anchorgraph"))
    title.wait_for(state="visible", timeout=RENDER_TIMEOUT_MS)
    # The operations are listed too, POST /search among them.
    page.get_by_text("/search", exact=True).first.wait_for(state="attached")
    assert_stayed_on_loopback(offline, api)


def test_the_docs_files_are_public_with_an_api_key() -> None:
    """Like /docs itself (service/api/security.py): a browser fetches them with no key. The
    pages allow only this server's files (their Content-Security-Policy)."""
    keyed = Settings(_env_file=None).model_copy(update={"api_key": SecretStr("k" * 32)})
    client = TestClient(create_app(keyed))
    assert client.get("/search").status_code == 401  # the key is asked for elsewhere
    for page in ("/docs", "/redoc"):
        html = client.get(page)
        assert html.status_code == 200
        assert "default-src 'self'" in html.headers["content-security-policy"]
        assets = re.findall(r'(?:src|href)="([^"]+)"', html.text)
        assert assets and all(asset.startswith("/") for asset in assets), assets
        for asset in assets:
            assert client.get(asset).status_code == 200, asset
