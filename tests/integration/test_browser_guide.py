"""Neo4j Browser, ready on first login: the guide is generated from cypher/browser/ and every query
in it runs on the sample corpus as it stands; the guide and the style load from Browser's origin
(CORS on those routes only); and in headless Chromium, logging in to the local server's Browser
applies the style and plays the guide (a screenshot of it goes to the artifacts, and to
docs/img/ with UPDATE_DOC_SCREENSHOTS=1).

The Browser test starts a Neo4j of its own: the local server's neo4j.conf points Browser at the
API's port, so that server and the API it serves with must be started together."""

from __future__ import annotations

import html
import json
import math
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from fastapi.testclient import TestClient
from sample_graph import SampleGraph, SampleGraphs, ingest_sample
from uvicorn_thread import served

from anchorgraph.api.browser import GUIDE, guide_query
from anchorgraph.app import create_app
from anchorgraph.embedding import HashEmbedder
from anchorgraph.factual_density import BinStats, fd_star
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.local_server import LocalNeo4j, free_port, throwaway_settings
from anchorgraph.graph.queries import Query, every_statement
from anchorgraph.ingestion import sample_corpus
from anchorgraph.runtime import open_runtime
from anchorgraph.settings import Settings

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
# What Browser 5.24's own page loads from outside, whatever the server's settings.
PAGE_ASSETS = {"script", "stylesheet", "font"}
ASSET_HOSTS = {"fonts.googleapis.com", "fonts.gstatic.com", "cdn.segment.com", "canny.io"}
# Browser 5.24 starts Sentry with performance tracing at a 20 % sample rate before it has read
# any setting, and its filter of crash reports (beforeSend) does not apply to those traces, so
# a sampled page-load trace may go out; no setting of Neo4j 5.26 or of Browser stops it.
TRACE_HOST = re.compile(r"\.ingest\.sentry\.io$")
RUNNABLE = re.compile(r'<pre class="[^"]*\brunnable\b[^"]*">(.*?)</pre>', re.DOTALL)


# The sample corpus with the sample gazetteer's entities (no spaCy: plumbing only), in its own
# collection as `make run` loads it.
SAMPLE = SampleGraph(gazetteer=True, collections=("sample",))


@pytest.fixture(scope="module")
def sample(sample_graph: SampleGraphs, fake_embedder: HashEmbedder) -> Graph:
    return sample_graph.holding(fake_embedder, SAMPLE)


@pytest.fixture(scope="module")
def client(sample: Graph, settings: Settings, fake_embedder: HashEmbedder) -> Iterator[TestClient]:
    with TestClient(create_app(settings, embedder_factory=lambda _: fake_embedder)) as client:
        yield client


def runnable_blocks(guide: str) -> list[str]:
    return [html.unescape(block) for block in RUNNABLE.findall(guide)]


def test_every_browser_query_is_a_slide_with_an_example() -> None:
    assert set(GUIDE) == {query for query in every_statement() if query.name.startswith("browser/")}
    for query in GUIDE:
        slide = guide_query(query)  # raises when the example leaves out a parameter
        assert slide.title and slide.about, query
        assert "$" not in slide.runnable, query


def test_the_guide_is_generated_from_the_catalogue_and_every_query_runs(
    client: TestClient, sample: Graph
) -> None:
    guide = client.get("/browser/guide.html").text
    blocks = runnable_blocks(guide)
    queries = [block for block in blocks if not block.startswith(":")]
    assert queries == [guide_query(query).runnable for query in GUIDE]
    assert f":style {client.base_url}/browser/style.grass" in blocks
    assert guide.count("<slide") == len(GUIDE) + 2  # a welcome and a style slide around them

    results = {
        query: sample.driver.execute_query(block).records
        for query, block in zip(GUIDE, queries, strict=True)
    }
    for query, records in results.items():
        assert records, f"{query} found nothing in the sample corpus"

    counts = {row["label"]: row["nodes"] for row in results[Query.BROWSER_OVERVIEW]}
    assert counts["Document"] == 12 and counts["Chunk"] > 12

    chunks = results[Query.BROWSER_DOCUMENT_CHUNKS]
    assert {row["chunks"].start_node["id"] for row in chunks} == {"sample/timeline.md"}
    assert any(row["links"] is not None for row in chunks)

    # "MAC" is an alias: every mention found is of the museum.
    mentions = results[Query.BROWSER_ENTITY_MENTIONS]
    assert {row["mentions"].end_node["name"] for row in mentions} == {"Museu de Arte Contemporânea"}
    assert len({row["mentions"].start_node["id"] for row in mentions}) >= 3

    hops = results[Query.BROWSER_EXPANSION_PATHS]
    first = [row for row in hops if row["hop"] == 1]
    assert first and all(
        row["link"].start_node["id"] == "sample/climate/incident-2022.md#0" for row in first
    )
    assert all(row["kept"] == (row["validation"] >= 0.3) for row in hops)
    kept_landings = {row["landing_id"] for row in first if row["kept"]}
    assert all(row["link"].start_node["id"] in kept_landings for row in hops if row["hop"] == 2)

    # FD* as the search computes it (anchorgraph.factual_density), from the same bin statistics.
    for row in results[Query.BROWSER_FOLDER_FD]:
        assert row["document"].startswith("sample/climate/")
        chunk_id = f"{row['document']}#0"
        (inputs,) = sample.read(Query.FD_INPUTS, {"chunk_ids": [chunk_id]})
        own = inputs["document"]
        stats = BinStats(own["n"], own["total"], own["total_sq"])
        assert row["fd_star"] == round(fd_star(own["fd_raw"], stats, inputs["a_source"]), 3)
        assert math.isclose(row["bin_mean"], round(stats.mean, 5))

    (centre,) = {row["centre"]["id"] for row in results[Query.BROWSER_NEIGHBOURHOOD]}
    assert centre == "sample/climate/incident-2022.md#1"

    # The collection holds its folders and, through them, every document of the sample.
    trees = results[Query.BROWSER_COLLECTIONS]
    assert {row["collection"]["name"] for row in trees} == {"sample"}
    assert {row["tree"].end_node["id"] for row in trees} == {
        f"sample/{path}" for path in SAMPLE_IDS
    }


SAMPLE_IDS = {
    path.relative_to(sample_corpus()).as_posix() for path in sample_corpus().rglob("*.md")
}
BROWSER_ORIGIN = "http://127.0.0.1:7474"


@pytest.mark.parametrize("path", ["/browser/guide.html", "/browser/style.grass"])
def test_guide_and_style_load_from_browsers_origin(client: TestClient, path: str) -> None:
    loaded = client.get(path, headers={"Origin": BROWSER_ORIGIN})
    assert loaded.status_code == 200
    assert loaded.headers["access-control-allow-origin"] == "*"
    # What Browser's guide request sends (Cache-Control, Pragma) makes it preflighted.
    preflight = client.options(
        path,
        headers={
            "Origin": BROWSER_ORIGIN,
            "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "cache-control,pragma",
        },
    )
    assert preflight.status_code == 204
    assert "GET" in preflight.headers["access-control-allow-methods"]
    allowed = {
        h.strip().lower() for h in preflight.headers["access-control-allow-headers"].split(",")
    }
    assert {"cache-control", "pragma"} <= allowed
    # CORS is these routes' own: the rest of the API sends none by default.
    other = client.get("/ui/config", headers={"Origin": BROWSER_ORIGIN})
    assert "access-control-allow-origin" not in other.headers


def test_the_style_has_a_rule_and_caption_for_every_label(
    client: TestClient, sample: Graph
) -> None:
    grass = client.get("/browser/style.grass").text
    rules = dict(re.findall(r"^(node\.\w+|relationship\.\w+) \{(.*?)^\}", grass, re.M | re.S))
    labels = {
        row["label"]
        for row in sample.driver.execute_query("CALL db.labels() YIELD label RETURN label").records
    }
    for label in labels:
        assert "caption:" in rules[f"node.{label}"], label
    assert "'{title}'" in rules["node.Document"] and "'{name}'" in rules["node.Entity"]
    assert "'{anchor_text}'" in rules["relationship.LINKS_TO"]
    # Bigger where more hangs off a node: collections, folders, documents, entities, chunks, claims.
    sizes = {
        label: float(re.search(r"diameter: (\d+)px", rules[f"node.{label}"])[1])  # type: ignore[index]
        for label in ("Collection", "Folder", "Document", "Entity", "Chunk", "Claim")
    }
    assert list(sizes.values()) == sorted(sizes.values(), reverse=True)


# --- Neo4j Browser in headless Chromium -------------------------------------------------------
def artifact(name: str) -> Path:
    """Where a screenshot goes: TEST_ARTIFACTS_DIR, else /tmp/anchorgraph-artifacts
    (outside pytest's own temporary folders, which it removes after three runs)."""
    default = Path(tempfile.gettempdir()) / "anchorgraph-artifacts"
    folder = Path(os.environ.get("TEST_ARTIFACTS_DIR") or default)
    folder.mkdir(parents=True, exist_ok=True)
    return folder / name


def publish(screenshot: Path) -> None:
    """Copy a screenshot into docs/img when asked to (UPDATE_DOC_SCREENSHOTS=1)."""
    if os.environ.get("UPDATE_DOC_SCREENSHOTS") == "1":
        shutil.copy(screenshot, ROOT / "docs" / "img" / screenshot.name)


@pytest.fixture(scope="module")
def browser_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LocalNeo4j, str]]:
    """A local Neo4j whose Browser is told to load the guide from an API on a known port, with
    the sample corpus, and that API serving."""
    settings = throwaway_settings(
        tmp_path_factory.mktemp("browser-neo4j"), heap="512m", pagecache="128m"
    ).model_copy(update={"api_port": free_port(), "spacy_model": ""})
    local = LocalNeo4j(settings)
    local.start()
    embedder = HashEmbedder(dimension=384)
    try:
        with open_runtime(settings, schema="apply", embedder_factory=lambda _: embedder) as rt:
            ingest_sample(rt.graph, settings, embedder, SAMPLE)
        app = create_app(settings, embedder_factory=lambda _: embedder)
        with served(app, settings.api_port) as api:
            yield local, api
    finally:
        local.stop()


def test_browser_after_login_has_the_style_and_plays_the_guide(
    browser_server: tuple[LocalNeo4j, str],
) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not CHROMIUM.exists():
        pytest.skip("Chromium is not installed: `make test` installs Debian's chromium")
    local, api = browser_server
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM))
        page = chromium.new_page(viewport={"width": 1440, "height": 1000})
        requested: list[tuple[str, str, str, str]] = []
        page.on(
            "request",
            lambda request: requested.append(
                (request.method, request.resource_type, request.url, request.post_data or "")
            ),
        )
        page.goto(local.browser_url)
        page.fill("[data-testid=boltaddress]", local.bolt_uri)
        page.fill("[data-testid=username]", local.settings.neo4j_user)
        page.fill("[data-testid=password]", local.password())
        page.click("[data-testid=connect]")
        # After login Browser runs the post-connect commands: the style, then the guide.
        page.get_by_text("anchorgraph: the graph behind the search").wait_for(timeout=60_000)
        assert page.get_by_text(f":style {api}/browser/style.grass").count() >= 1
        # Run a slide's query as a person would: to the third, click it into the editor.
        page.click("[data-testid=nextSlide]")
        page.click("[data-testid=nextSlide]")
        page.click("[data-testid=nextSlide]")
        page.get_by_role("heading", name="A document's chunks and links").wait_for()
        page.locator("pre.runnable").first.click()
        page.click("[data-testid=editor-Run]")
        page.locator("svg .node").first.wait_for(timeout=30_000)
        # The style is in force: documents are drawn in their colour, with their titles.
        fills = page.eval_on_selector_all(
            "svg .node circle.b-outline", "nodes => nodes.map(n => n.getAttribute('fill'))"
        )
        assert "#2F6DB5" in fills
        assert page.locator("svg .node text", has_text="Timeline").count() >= 1
        # No usage-data consent banner, and no usage data sent: with client.allow_telemetry
        # off, what leaves this machine is the fonts and scripts Browser 5.24's page itself
        # loads (Neo4j 5.26 has no setting left that stops those), never an event sent to the
        # analytics or feedback services they come from, and no crash report; at most the
        # sampled performance trace that Browser's code sends whatever its settings say.
        assert page.get_by_text(re.compile("usage data|product analytics", re.I)).count() == 0
        outside = [r for r in requested if urlsplit(r[2]).hostname not in LOOPBACK]
        assets = [r for r in outside if not TRACE_HOST.search(urlsplit(r[2]).hostname or "")]
        assert all(
            method == "GET" and kind in PAGE_ASSETS and urlsplit(url).hostname in ASSET_HOSTS
            for method, kind, url, _ in assets
        ), [(m, k, urlsplit(u).hostname) for m, k, u, _ in assets]
        item_types = [
            json.loads(line).get("type")
            for *_, body in set(outside) - set(assets)
            for line in body.splitlines()[1::2]  # an envelope: header, then item header, item
        ]
        assert set(item_types) <= {"transaction"}, item_types
        page.wait_for_timeout(1500)  # the force layout settles
        shot = artifact("neo4j-browser.png")
        page.screenshot(path=str(shot))
        chromium.close()
    publish(shot)
