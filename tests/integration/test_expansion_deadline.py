"""The expansion never pushes a search past the request's deadline, with the real server: a search
whose expansion's read would take far longer than ``ANCHORGRAPH_REQUEST_DEADLINE_S`` answers by it
with its hits unexpanded and says so (``cut_short``), the read left to end on the server; the
CLI and the search page say so too.

The slow read is made of real links: a hit's chunk with ten thousand links to a whole document
of four thousand chunks, each link choosing its landing chunk by a cosine with every one of them
(``cypher/expand/reached.cypher``), tens of millions of similarities in one statement. A server
of this module's own holds them, so that no other module's searches meet its chunks.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from clients import app_seconds
from typer.testing import CliRunner
from uvicorn_thread import served

from anchorgraph.app import create_app
from anchorgraph.cli.main import app as cli
from anchorgraph.embedding import Embedder
from anchorgraph.graph.local_server import LocalNeo4j, throwaway_settings
from anchorgraph.loaders.read import read_bytes
from anchorgraph.retrieval.expansion import EXPANSION_SHARE
from anchorgraph.runtime import open_runtime
from anchorgraph.settings import Settings

pytestmark = [pytest.mark.integration, pytest.mark.slow]

# The request deadline of the API in this module (ANCHORGRAPH_REQUEST_DEADLINE_S): the
# setting's default, long enough for the flat search on a busy two-core machine.
DEADLINE_S = 10.0
COLLECTION = "slowlinks"
CHROMIUM = Path("/usr/bin/chromium")
LINKS, FAR_CHUNKS = 10_000, 4_000
QUERY = "the pump that feeds the cooling valve"
REQUEST = {"query": QUERY, "collections": [COLLECTION]}
FLAT_REQUEST = {**REQUEST, "expand": {"links": False, "bridges": False}}
NOTE = b"# Pump\n\nThe pump P-100 feeds the cooling valve of the north hall."
# Links from the note's chunk to a document of FAR_CHUNKS chunks, none of which any search path
# finds (no collection, no shard label, no text): only the expansion reads them. The collection
# is marked as holding links, as create_links.cypher marks it.
FAR_LINKS = """
MATCH (s:Chunk {collection: $collection})
CREATE (far:Document {id: 'elsewhere/far'})
WITH s, far
UNWIND range(1, $chunks) AS i
CREATE (far)-[:HAS_CHUNK]->(:Chunk {
  id: 'elsewhere/far#' + i, document_id: far.id, n_tokens: 10, text: 'far',
  embedding: [j IN range(1, 384) | rand() - 0.5]})
WITH DISTINCT s, far
UNWIND range(1, $links) AS i
CREATE (s)-[:LINKS_TO {href: 'far', anchor_text: 'far', context: 'far', fragment: '',
  context_embedding: [j IN range(1, 384) | rand() - 0.5]}]->(far)
WITH DISTINCT s
MATCH (c:Collection {name: $collection})
SET c.has_links = true
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    settings = throwaway_settings(
        Path(tmp_path_factory.mktemp("deadline")), heap="512m", pagecache="128m"
    )
    local = LocalNeo4j(settings)
    local.start()
    try:
        yield settings
    finally:
        local.stop()


@pytest.fixture(scope="module")
def api(server: Settings, embedder: Embedder) -> Iterator[str]:
    """The API on a port (for the CLI and a browser), its deadline ``DEADLINE_S``."""
    without_spacy = server.model_copy(update={"spacy_model": ""})
    app = create_app(
        without_spacy.model_copy(update={"request_deadline_s": DEADLINE_S}),
        embedder_factory=lambda _: embedder,
    )
    with (
        open_runtime(without_spacy, schema="apply", embedder_factory=lambda _: embedder) as runtime,
        served(app) as url,
    ):
        # The API's warm-up searches first (they have no deadline), on the graph still empty.
        assert app.state.warm_start.ready.wait(120)
        # Written through the runtime: a write's waits on a loaded machine may take longer than
        # this module's short deadline, which is for the searches.
        note = read_bytes(NOTE, doc_id="notes/pump.md", fmt="markdown", max_bytes=1_000)
        runtime.ingestor.ingest([note], collection=COLLECTION)
        runtime.graph.driver.execute_query(
            FAR_LINKS,
            {"collection": COLLECTION, "chunks": FAR_CHUNKS, "links": LINKS},
            database_=runtime.graph.database,
        )
        # Once, whatever it answers (a first search may overrun the deadline on a busy machine):
        # the server plans the search's statements.
        httpx.post(f"{url}/search", json=FLAT_REQUEST, timeout=3 * DEADLINE_S)
        yield url


@pytest.fixture(scope="module")
def client(api: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=api, timeout=3 * DEADLINE_S) as client:
        yield client


def test_a_search_whose_expansion_would_overrun_the_deadline_answers_by_it_unexpanded(
    client: httpx.Client,
) -> None:
    flat = client.post("/search", json=FLAT_REQUEST)
    assert flat.status_code == 200, flat.text
    assert flat.json()["cut_short"] == []
    # The default search expands along the links; their read is waited for no longer than its
    # share of the time left, and the answer comes by the deadline with the flat search's hits.
    answer = client.post("/search", json=REQUEST)
    assert answer.status_code == 200, answer.text
    took = app_seconds(answer.headers)
    assert took is not None and EXPANSION_SHARE * DEADLINE_S < took < DEADLINE_S
    result = answer.json()
    assert result["cut_short"] == ["expand"]
    assert [hit["chunk_id"] for hit in result["hits"]] == [
        hit["chunk_id"] for hit in flat.json()["hits"]
    ]
    assert all(hit["supporting"] == [] for hit in result["hits"])
    print(f"answered in {took:.2f} s, the expansion cut at {EXPANSION_SHARE:g} of the time left")


def test_the_cli_says_when_the_expansion_was_cut_short(api: str) -> None:
    search = ["search", QUERY, "-c", COLLECTION, "--api", api]
    cut = CliRunner().invoke(cli, search)
    assert cut.exit_code == 0, cut.output
    assert "cut short by the request's deadline: expand" in " ".join(cut.stdout.split())
    flat = CliRunner().invoke(cli, [*search, "--no-expand", "--no-bridge"])
    assert flat.exit_code == 0, flat.output
    assert "cut short" not in flat.stdout


def test_the_search_page_says_when_the_expansion_was_cut_short(api: str) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not CHROMIUM.exists():
        pytest.skip("Chromium is not installed: `make test` installs Debian's chromium")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM))
        page = chromium.new_page()
        page.goto(f"{api}/?collection={COLLECTION}")
        page.wait_for_selector(f"#collection option[value={COLLECTION}]", state="attached")

        def status() -> tuple[str, str]:
            page.fill("#query", QUERY)
            with page.expect_response(lambda r: r.url.endswith("/search")) as answer:
                page.press("#query", "Enter")
            assert answer.value.ok, answer.value.text()
            page.wait_for_function("document.querySelector('#status').textContent.includes(' in ')")
            return page.inner_text("#status"), page.get_attribute("#status", "class") or ""

        text, classes = status()
        assert "cut short by the deadline: expand" in text and "cut-short" in classes.split()
        page.uncheck("#expand")
        page.uncheck("#bridge")
        text, classes = status()
        assert "cut short" not in text and "cut-short" not in classes.split()
        chromium.close()
