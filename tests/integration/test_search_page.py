"""The search page at / in headless Chromium, against the real API, model and Neo4j with the sample
corpus: a query typed and sent with Enter, mode and top k changed, results whose breakdown bars
add up to their scores, entity and identifier badges (identifiers as typed), source-type and FD*
badges, supporting chunks with their link path, and a Neo4j Browser link whose Cypher finds the
hit; each hit's evidence, and a notice when no hit has any; errors that replace the results, the
query box's limit and a search with no path, which the page refuses itself. A screenshot goes to
the artifacts, and to docs/img/ with UPDATE_DOC_SCREENSHOTS=1."""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import httpx
import pytest
from fastapi import FastAPI
from sample_graph import SampleGraphs
from uvicorn_thread import served

from anchorgraph.api.warm import (
    FIRST_SEARCHES,
    IN_COLLECTION_SEARCHES,
    WARM_DOCUMENT_ID,
    WARM_QUERIES,
    WARM_SEARCHES,
)
from anchorgraph.app import create_app
from anchorgraph.embedding import Embedder
from anchorgraph.graph.gateway import Graph
from anchorgraph.ingestion import sample_gazetteer
from anchorgraph.loaders.entities import EntityExtractor, load_gazetteer
from anchorgraph.loaders.ingest import Ingestor
from anchorgraph.loaders.read import read_bytes
from anchorgraph.retrieval.defaults import DEFAULT_RANKING
from anchorgraph.settings import Settings

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
INCIDENT = "what happened in the Gallery 3 incident?"
# Each hit's own Browser link (its supporting chunks, folded under it, have theirs).
HIT_LINKS = "#results > .hit > .actions .browser-link"


@pytest.fixture(scope="module")
def app(sample_graph: SampleGraphs, settings: Settings, embedder: Embedder) -> FastAPI:
    graph = sample_graph(embedder, gazetteer=True)
    extractor = EntityExtractor(None, gazetteer=load_gazetteer(sample_gazetteer()))
    ingestor = Ingestor(graph, embedder, extractor)
    # A second collection, for the picker.
    cloakroom = b"# Cloakroom\n\nThe cloakroom keeps coats and umbrellas until 18:30."
    note = read_bytes(
        cloakroom, doc_id="cloakroom.md", fmt="markdown", source_type="guide", max_bytes=10_000
    )
    ingestor.ingest([note], collection="notes")
    return create_app(settings, embedder_factory=lambda _: embedder)


@pytest.fixture(scope="module")
def api(app: FastAPI) -> Iterator[str]:
    with served(app) as url:
        yield url


@pytest.fixture(scope="module")
def page(api: str) -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not CHROMIUM.exists():
        pytest.skip("Chromium is not installed: `make test` installs Debian's chromium")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM))
        page = chromium.new_page(viewport={"width": 1440, "height": 1000})
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{api}/")
        page.wait_for_selector("#mode option", state="attached")  # from /ui/config
        yield page
        assert errors == [], errors
        chromium.close()


def search(page: Any, query: str) -> list[dict[str, Any]]:
    """Type the query, press Enter, wait for the answer; each hit as the page shows it."""
    page.fill("#query", query)
    with page.expect_response(lambda response: response.url.endswith("/search")) as answer:
        page.press("#query", "Enter")
    assert answer.value.ok, answer.value.text()
    page.wait_for_function("document.querySelector('#status').textContent.includes(' in ')")
    return page.eval_on_selector_all(
        "#results > .hit",
        """hits => hits.map(hit => ({
            chunk: hit.dataset.chunkId,
            collection: hit.dataset.collection,
            score: Number(hit.dataset.score),
            parts: [...hit.querySelectorAll(':scope > .legend li')].map(
                li => [li.dataset.part, Number(li.dataset.contribution)]),
            segments: [...hit.querySelectorAll(':scope > .bar .segment')].map(
                s => s.getBoundingClientRect().width),
            marks: [...hit.querySelectorAll(':scope > .text mark')].map(m => m.textContent),
            link: hit.querySelector(':scope > .actions .browser-link').href,
            where: hit.querySelector(':scope > .where').textContent,
        }))""",
    )


def assert_bars_add_up(hits: list[dict[str, Any]]) -> None:
    for hit in hits:
        assert hit["parts"], hit["chunk"]
        assert sum(value for _, value in hit["parts"]) == pytest.approx(hit["score"], abs=1e-6)
        positive = [value for _, value in hit["parts"] if value > 0]
        assert len(hit["segments"]) == len(positive) and all(w > 0 for w in hit["segments"])


def artifact(name: str) -> Path:
    """TEST_ARTIFACTS_DIR, else /tmp/anchorgraph-artifacts (pytest's own temporary
    folders are removed after three runs)."""
    default = Path(tempfile.gettempdir()) / "anchorgraph-artifacts"
    folder = Path(os.environ.get("TEST_ARTIFACTS_DIR") or default)
    folder.mkdir(parents=True, exist_ok=True)
    return folder / name


def test_the_api_warmed_up_a_write_and_every_search(app: FastAPI, api: str) -> None:
    assert app.state.warm_start.ready.wait(120)
    (first,) = app.state.warm_start.warmups
    # The graph has a collection: the searches in it are warmed too.
    searches = len(FIRST_SEARCHES) + len(WARM_SEARCHES) + len(IN_COLLECTION_SEARCHES)
    assert first.searches == searches * len(WARM_QUERIES) and first.failed is None
    assert first.writes == 1
    # The rehearsed write left nothing: no new collection, nor its document in any.
    collections = [c["name"] for c in httpx.get(f"{api}/collections").json()]
    assert sorted(collections) == ["default", "notes"]
    for collection in collections:
        found = httpx.get(f"{api}/documents/{WARM_DOCUMENT_ID}", params={"collection": collection})
        assert found.status_code == 404, collection


def test_a_search_shows_hits_whose_bars_add_up_to_the_score(page: Any) -> None:
    hits = search(page, INCIDENT)
    assert len(hits) == 10
    assert hits[0]["chunk"].startswith("climate/incident-2022.md")
    assert_bars_add_up(hits)
    # Hybrid at chunk level: the paths' shares, dense and BM25 at least.
    assert {"dense", "bm25"} <= {name for name, _ in hits[0]["parts"]}
    assert {mark.lower() for mark in hits[0]["marks"]} >= {"gallery", "incident"}
    stages = page.eval_on_selector_all("#timings .stage", "s => s.map(x => x.dataset.stage)")
    assert {"analyse", "paths", "fuse", "hydrate"} <= set(stages)
    # The page sends what it shows: the same ranking as the API gives for the same request.
    body = page.evaluate("JSON.stringify(request())")
    assert '"explain":true' in body and '"k":10' in body


def test_a_hit_shows_where_its_text_stands(page: Any, api: str) -> None:
    (hit, *_) = search(page, INCIDENT)
    body = {"query": INCIDENT, "k": 1, "explain": True}
    (answer,) = httpx.post(f"{api}/search", json=body).json()["hits"]
    assert answer["chunk_id"] == hit["chunk"] and answer["pages"] == []  # Markdown: no pages
    assert hit["where"] == (
        f"default · {hit['chunk']} · characters {answer['start']}–{answer['end']} · "
        f"{answer['n_tokens']} tokens"
    )
    # A paged document's hit names its page, or both pages of a sentence across a break.
    assert page.evaluate("pagesCited({pages: [2]})") == " · page 2"
    assert page.evaluate("pagesCited({pages: [3, 4]})") == " · pages 3–4"


def test_an_answer_without_evidence_says_nothing_matches(page: Any) -> None:
    hits = search(page, "Ottoline Brabazon")  # a name no document holds
    assert hits and page.is_visible("#no-match")
    shown = page.eval_on_selector_all(
        "#results > .hit .badge.evidence", "b => b.map(x => [x.dataset.matched, x.textContent])"
    )
    assert len(shown) == len(hits) and {tuple(x) for x in shown} == {("false", "no evidence")}
    search(page, INCIDENT)
    assert not page.is_visible("#no-match")
    matched, text = page.eval_on_selector(
        "#results > .hit .badge.evidence", "b => [b.dataset.matched, b.textContent]"
    )
    assert matched == "true" and text.startswith("evidence: terms")


def test_changing_the_mode_and_top_k(page: Any) -> None:
    page.select_option("#k", "20")
    hits = search(page, INCIDENT)
    assert len(hits) == 20
    assert_bars_add_up(hits)

    page.select_option("#mode", "multisignal")
    assert page.is_visible("#signals") and page.is_visible("#paths")
    page.select_option("#k", "10")
    hits = search(page, INCIDENT)
    assert len(hits) == 10  # documents: multisignal scoring ranks documents
    assert len({hit["chunk"].split("#")[0] for hit in hits}) == 10
    assert_bars_add_up(hits)
    # The signals, or for a document the expansion placed by its inherited score, that score.
    assert {name for hit in hits for name, _ in hit["parts"]} <= {
        "doc", "segment", "entity", "triple", "text", "fd", "expansion"
    }  # fmt: skip

    page.select_option("#mode", "bm25")
    assert not page.is_visible("#paths")
    page.select_option("#k", "50")
    page.uncheck("#expand")  # BM25 alone: no chunk placed by what it inherited
    page.uncheck("#bridge")
    hits = search(page, "museum")
    assert 10 < len(hits) <= 50
    assert all(hit["parts"] == [["bm25", hit["score"]]] for hit in hits)  # BM25's raw score
    assert all("museum" in [m.lower() for m in hit["marks"]] for hit in hits)
    page.check("#expand")
    page.check("#bridge")
    page.select_option("#mode", "hybrid")
    page.select_option("#k", "10")


def test_entities_and_identifiers_named_in_the_query_get_badges(page: Any) -> None:
    search(page, "When did MAC install the AG-2048 sensors?")
    entities = page.eval_on_selector_all(".badge.entity", "b => b.map(x => x.dataset.entity)")
    identifiers = page.eval_on_selector_all(
        ".badge.identifier", "b => b.map(x => x.dataset.identifier)"
    )
    assert {"museu de arte contemporânea", "aerograph ag-2048"} <= set(entities)
    assert identifiers  # codes and acronyms the graph knows
    names = page.eval_on_selector_all(".badge.entity", "b => b.map(x => x.textContent)")
    assert any(name.startswith("Museu de Arte Contemporânea") for name in names)


def test_the_browser_link_opens_the_hits_neighbourhood(page: Any, graph: Graph) -> None:
    hits = search(page, INCIDENT)
    config = page.evaluate("config")
    for hit in hits[:3]:
        link = hit["link"]
        assert link.startswith(f"{config['browser_url']}?cmd=edit&arg=")
        # Read the URL as Browser does: decoded whole, then `arg` up to the first '&' or '#'.
        decoded = unquote(link.replace("+", " "))
        (statement,) = re.findall(r"[?&]arg=([^&#]*)", decoded)
        key = f"{hit['collection']}/{hit['chunk']}"  # the chunk as the graph stores it
        expected_id = key.replace("#", "\\u0023")
        assert statement == config["neighbourhood_cypher"].replace("$id", f'"{expected_id}"')
        records = graph.driver.execute_query(statement).records
        assert {record["centre"]["id"] for record in records} == {key}
        assert any(record["around"] is not None for record in records)


def test_the_graph_s_boxes_start_ticked_and_unticked_turn_it_off(page: Any) -> None:
    # The API's default (default-v4): the expansion along links and through entities.
    assert page.is_checked("#expand") and page.is_checked("#bridge")
    with page.expect_request(lambda request: request.url.endswith("/search")) as sent:
        search(page, INCIDENT)
    assert sent.value.post_data_json["expand"] == {"links": True, "bridges": True}
    assert page.locator("#results .supporting").count() >= 1
    page.uncheck("#expand")
    page.uncheck("#bridge")
    search(page, INCIDENT)
    assert page.locator("#results .supporting").count() == 0
    page.check("#expand")
    page.check("#bridge")


def test_expansion_shows_supporting_chunks_with_their_link_path(page: Any) -> None:
    page.uncheck("#bridge")  # links alone
    search(page, INCIDENT)
    supporting = page.locator("#results .supporting").first
    supporting.locator("summary").click()
    items = supporting.locator("li")
    assert items.count() >= 1
    first = items.first
    assert first.locator(".hops q").count() >= 1  # the anchor text of each hop
    assert first.locator(".hops q").first.inner_text().strip()
    chunk_id = first.get_attribute("data-chunk-id")
    link = unquote(first.locator(".browser-link").get_attribute("href"))
    assert chunk_id.replace("#", "\\u0023") in link  # its own neighbourhood
    page.focus("#query")
    shot = artifact("search-page.png")
    page.screenshot(path=str(shot))
    if os.environ.get("UPDATE_DOC_SCREENSHOTS") == "1":
        shutil.copy(shot, ROOT / "docs" / "img" / shot.name)
    page.check("#bridge")


def test_bridges_show_the_entity_they_cross(page: Any) -> None:
    page.uncheck("#expand")  # bridges alone
    search(page, "Vasconcelos writes to the city council")
    hops = page.locator("#results .supporting .hops").all_text_contents()
    assert any("via entity " in hop for hop in hops), hops
    page.check("#expand")


def test_the_collection_picker_narrows_the_search(page: Any) -> None:
    page.wait_for_selector("#collection option[value=notes]", state="attached")
    options = page.eval_on_selector_all("#collection option", "os => os.map(o => o.value)")
    assert options == ["", "default", "notes"]  # every collection, then each by name
    everywhere = search(page, "until when are coats kept?")
    assert {hit["collection"] for hit in everywhere} == {"default", "notes"}
    page.select_option("#collection", "notes")
    narrowed = search(page, "until when are coats kept?")
    assert [(hit["collection"], hit["chunk"]) for hit in narrowed] == [("notes", "cloakroom.md#0")]
    page.select_option("#collection", "")


def test_the_page_works_from_the_keyboard(page: Any) -> None:
    page.focus("#query")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Search"
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline != "none"  # the focus is visible
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")  # past the header's links, into the options
    assert page.evaluate("document.activeElement.id") == "collection"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "mode"
    page.keyboard.press("/")  # back to the query box from anywhere but a text field
    assert page.evaluate("document.activeElement.id") == "query"


def hits_on_screen(page: Any) -> int:
    return page.locator("#results > .hit").count()


def failed_search(page: Any, query: str) -> str:
    """Type the query, press Enter, wait for the API's refusal; the status line then."""
    page.fill("#query", query)
    with page.expect_response(lambda response: response.url.endswith("/search")) as answer:
        page.press("#query", "Enter")
    assert not answer.value.ok
    page.wait_for_selector("#status.error")
    return page.inner_text("#status")


def refused_without_asking(page: Any, query: str) -> str:
    """Type the query, press Enter; the page must refuse it without calling the API."""
    sent: list[str] = []

    def listener(request: Any) -> None:
        sent.append(request.url)

    page.on("request", listener)
    try:
        page.fill("#query", query)
        page.press("#query", "Enter")
        page.wait_for_selector("#status.error")
        page.wait_for_timeout(300)  # a request the page should not send would have gone by now
    finally:
        page.remove_listener("request", listener)
    assert [url for url in sent if url.endswith("/search")] == []
    return page.inner_text("#status")


def test_an_error_replaces_the_results(page: Any) -> None:
    assert search(page, INCIDENT)  # results and badges on screen
    # A 422 of the real API: a top k above its limit, as a hand-edited option would send.
    page.eval_on_selector("#k", "k => k.append(new Option('5000', '5000'))")
    page.select_option("#k", "5000")
    try:
        status = failed_search(page, INCIDENT)
    finally:
        page.eval_on_selector("#k", "k => k.querySelector('option[value=\"5000\"]').remove()")
        page.select_option("#k", "10")
    assert hits_on_screen(page) == 0
    assert page.locator("#detected .badge").count() == 0 and not page.is_visible("#timings")
    assert "422" in status and "body.k" in status  # the API's own words

    # A 503, as the API answers when Neo4j is down (simulated: the graph serves other tests).
    assert search(page, INCIDENT)
    problem = {
        "type": "urn:anchorgraph:problem:graph-unavailable",
        "title": "Neo4j is unavailable",
        "status": 503,
        "detail": "Neo4j is unavailable: connection refused.",
    }
    page.route(
        "**/search",
        lambda route: route.fulfill(
            status=503, content_type="application/problem+json", body=json.dumps(problem)
        ),
    )
    try:
        status = failed_search(page, INCIDENT)
    finally:
        page.unroute("**/search")
    assert hits_on_screen(page) == 0
    assert "503" in status and "Neo4j is unavailable" in status


def test_the_query_box_takes_no_more_than_the_api(page: Any) -> None:
    assert page.get_attribute("#query", "maxlength") == "4096"
    assert page.evaluate("config.max_query_chars") == 4096  # from SearchOptions.query
    page.fill("#query", "a" * 4096)
    page.focus("#query")
    page.keyboard.press("End")
    page.keyboard.type("bc")
    assert page.input_value("#query") == "a" * 4096  # typing stops at the limit
    # A longer query can still arrive through the address (?q=…): the page refuses it itself.
    assert search(page, INCIDENT)
    page.eval_on_selector("#query", "q => { q.value = 'x'.repeat(5000); }")
    page.press("#query", "Enter")
    page.wait_for_selector("#status.error")
    assert "4096" in page.inner_text("#status") and hits_on_screen(page) == 0


def test_a_search_with_every_path_unchecked_is_refused_by_the_page(page: Any) -> None:
    page.select_option("#mode", "hybrid")
    assert search(page, INCIDENT)
    boxes = page.locator("#path-rows [data-path]")
    for index in range(boxes.count()):
        boxes.nth(index).uncheck()
    try:
        status = refused_without_asking(page, INCIDENT)
    finally:
        for index in range(boxes.count()):
            boxes.nth(index).check()
    assert "at least one path" in status
    assert hits_on_screen(page) == 0
    assert search(page, INCIDENT)  # with the paths back, it searches again


def test_identifier_badges_show_what_the_query_wrote(page: Any) -> None:
    search(page, "When did MAC install the AG-2048 sensors?")
    badges = page.eval_on_selector_all(
        ".badge.identifier", "b => b.map(x => [x.dataset.identifier, x.textContent])"
    )
    assert dict(badges) == {
        "museu de arte contemporânea": "MAC",  # an alias of the museum
        "aerograph ag-2048": "AG-2048",  # an alias of the sensor
    }
    search(page, "when was the ag-2048 installed?")  # typed in lower case: shown so
    badges = page.eval_on_selector_all(
        ".badge.identifier", "b => b.map(x => [x.dataset.identifier, x.textContent])"
    )
    assert badges == [["aerograph ag-2048", "ag-2048"]]


def test_source_type_badges_only_say_more_than_the_format(page: Any) -> None:
    page.select_option("#k", "20")
    try:
        hits = search(page, "until when are coats kept?")
        sources = page.eval_on_selector_all(
            "#results > .hit",
            "hits => hits.map(h => [h.dataset.collection, "
            "[...h.querySelectorAll('.badge.source')].map(b => b.textContent)])",
        )
    finally:
        page.select_option("#k", "10")
    assert {hit["collection"] for hit in hits} == {"default", "notes"}
    assert sorted(set(map(tuple, (s for _, s in sources)))) == [(), ("guide",)]
    assert all(badges == ["guide"] for collection, badges in sources if collection == "notes")
    assert all(badges == [] for collection, badges in sources if collection == "default")


# In the words of docs/design.md, "Factual density (FD*)".
FD_MEANING = (
    "FD* (factual density): how many checkable facts this text states per word, compared with "
    "texts of similar length in its collection and weighted by its source's authority; above 0 "
    "is denser than usual, below 0 sparser."
)


def sign_of(shown: str) -> str:
    if shown == "–":
        return "none"
    value = float(shown)
    return "positive" if value > 0 else "negative" if value < 0 else "zero"


def test_the_fd_badge_is_coloured_by_its_sign_and_says_what_fd_is(page: Any) -> None:
    page.select_option("#mode", "bm25")
    page.select_option("#k", "50")
    try:
        search(page, "museum")
        badges = page.eval_on_selector_all(
            ".hit .badge.fd",
            """bs => bs.map(b => ({
                sign: b.dataset.sign,
                text: b.firstChild.textContent,
                title: b.title,
                background: getComputedStyle(b).backgroundColor,
            }))""",
        )
    finally:
        page.select_option("#mode", "hybrid")
        page.select_option("#k", "10")
    signs = {badge["sign"] for badge in badges}
    assert {"positive", "negative"} <= signs, signs
    for badge in badges:
        assert badge["sign"] == sign_of(badge["text"].removeprefix("FD* ")), badge
        meaning, figures = badge["title"].split("\n")  # one sentence, then what it came from
        assert meaning == FD_MEANING and figures.startswith("FD_raw ")
    colour = {badge["sign"]: badge["background"] for badge in badges}
    assert colour["positive"] != colour["negative"]
    assert colour["positive"] == "rgb(234, 245, 223)"  # green above typical
    assert colour["negative"] == "rgb(251, 234, 234)"  # red below it


def test_browser_links_share_one_tab(page: Any) -> None:
    """Every Browser link opens in the one tab named "neo4j-browser": the first click opens it,
    later ones load their query there instead of opening a tab each (as rel="noopener" on a link
    would make it do). Browser is stubbed: the stub counts its loads in the tab's
    sessionStorage, which only the same tab keeps."""
    hits = search(page, INCIDENT)
    links = page.locator("a.browser-link, a#browser-home")
    targets = links.evaluate_all("as => as.map(a => [a.target, a.getAttribute('rel')])")
    assert len(targets) > len(hits)
    assert {tuple(target) for target in targets} == {("neo4j-browser", None)}

    browser = page.evaluate("browserUrl()")
    stub = "<script>sessionStorage.loads = Number(sessionStorage.loads || 0) + 1</script>"

    def is_browser(url: str) -> bool:
        return url.startswith(browser)

    page.context.route(is_browser, lambda route: route.fulfill(content_type="text/html", body=stub))
    pages = len(page.context.pages)
    try:
        with page.expect_popup() as opened:
            page.locator(HIT_LINKS).first.click()
        tab = opened.value
        tab.wait_for_load_state()
        assert tab.url == hits[0]["link"]
        for then in (page.locator(HIT_LINKS).nth(1), page.locator("#browser-home")):
            href = then.evaluate("a => a.href")
            then.click()
            tab.wait_for_url(href)
            assert len(page.context.pages) == pages + 1  # still the first tab only
        assert tab.evaluate("sessionStorage.loads") == "3"  # one tab, its session kept
        tab.close()
    finally:
        page.context.unroute(is_browser)


def test_a_hit_can_be_judged_for_the_collection_s_tuning(page: Any, graph: Graph) -> None:
    hits = search(page, INCIDENT)
    assert f"ranking {DEFAULT_RANKING}" in page.text_content("#status")
    first = page.locator("#results > .hit").first
    first.locator("button.judge[data-relevant='true']").click()
    page.wait_for_function(
        "document.querySelector('#results > .hit .judged').textContent === 'judged relevant'"
    )
    second = page.locator("#results > .hit").nth(1)
    second.locator("button.judge[data-relevant='false']").click()
    page.wait_for_function(
        "document.querySelectorAll('#results > .hit .judged')[1].textContent.includes('not')"
    )
    stored = graph.driver.execute_query(
        "MATCH (j:Judgment)-[:JUDGES]->(d:Document) RETURN j.query AS query, "
        "j.collection AS collection, d.id AS document, j.relevance AS relevance "
        "ORDER BY relevance DESC"
    ).records
    top, runner_up = (hit["chunk"].split("#")[0] for hit in hits[:2])
    assert [(r["query"], r["collection"], r["document"], r["relevance"]) for r in stored] == [
        (INCIDENT, hits[0]["collection"], f"{hits[0]['collection']}/{top}", 1),
        (INCIDENT, hits[1]["collection"], f"{hits[1]['collection']}/{runner_up}", 0),
    ]
    graph.driver.execute_query("MATCH (j:Judgment) DETACH DELETE j")
