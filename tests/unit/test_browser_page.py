"""The pure parts of the search page, the Neo4j Browser guide and the warm start: Cypher literals,
the guide's HTML, the settings that point Browser at the API (local server and Docker alike),
and the warm-start watcher's rule (warm at start, and once after each outage)."""

from __future__ import annotations

import html
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from anchorgraph.api.browser import GUIDE, GUIDE_TITLE, cypher_literal, guide_html, guide_query
from anchorgraph.api.warm import Warmer, WarmUp
from anchorgraph.errors import GraphUnavailable
from anchorgraph.graph.local_server import browser_settings
from anchorgraph.graph.queries import Query
from anchorgraph.settings import Settings

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("value", "literal"),
    [
        ("timeline.md#1", '"timeline.md#1"'),
        ('say "hi"\n', '"say \\"hi\\"\\n"'),
        ("Tietê", '"Tietê"'),
        (0.3, "0.3"),
        (3, "3"),
        (True, "true"),
    ],
)
def test_cypher_literals(value: str | float | bool, literal: str) -> None:
    assert cypher_literal(value) == literal


def test_the_guide_has_a_slide_per_query_with_its_filled_in_statement() -> None:
    guide = guide_html("http://127.0.0.1:8000/")
    assert f"<title>{html.escape(GUIDE_TITLE)}</title>" in guide
    assert guide.count("<slide") == len(GUIDE) + 2
    for query in GUIDE:
        slide = guide_query(query)
        assert html.escape(slide.runnable) in guide, query
        assert f"cypher/{query.name}.cypher" in guide
    assert "http://127.0.0.1:8000/browser/style.grass" in guide
    assert '<a href="http://127.0.0.1:8000/"' in guide  # back to the search page


def test_every_parameter_is_filled_in_from_the_example() -> None:
    slide = guide_query(Query.BROWSER_DOCUMENT_CHUNKS)
    assert "$document_id" in slide.statement
    assert '{id: "sample/timeline.md"}' in slide.runnable


@pytest.mark.parametrize(
    ("host", "expected"),
    [("127.0.0.1", "127.0.0.1"), ("0.0.0.0", "127.0.0.1"), ("myhost", "myhost")],
)
def test_browser_is_pointed_at_the_api(host: str, expected: str) -> None:
    conf = browser_settings(Settings(_env_file=None, api_host=host, api_port=8123))
    api = f"http://{expected}:8123"
    assert conf["browser.post_connect_cmd"] == (
        'config {"allowCrashReports": false, "allowUserStats": false}; '
        f"style {api}/browser/style.grass; play {api}/browser/guide.html"
    )
    assert expected in conf["browser.remote_content_hostname_whitelist"].split(",")


def test_docker_compose_points_browser_at_the_published_api() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    environment = compose["services"]["neo4j"]["environment"]

    def setting(variable: str) -> str:  # the image's rule: '_' stands for '.', '__' for '_'
        return (
            variable.removeprefix("NEO4J_").replace("__", "\0").replace("_", ".").replace("\0", "_")
        )

    browser = {
        setting(k): v
        for k, v in environment.items()
        if k.startswith(("NEO4J_browser_", "NEO4J_client_"))
    }
    local = browser_settings(Settings(_env_file=None))
    assert browser.keys() == local.keys()
    published = compose["services"]["api"]["ports"][0].rsplit(":", 1)[-1]
    assert browser["browser.post_connect_cmd"] == local["browser.post_connect_cmd"].replace(
        "127.0.0.1", "localhost"
    ).replace(":8000", f":{published}")
    assert "localhost" in browser["browser.remote_content_hostname_whitelist"].split(",")


class FakeNeo4j:
    """A ping that fails while ``down`` and records when it was asked."""

    def __init__(self) -> None:
        self.down = False
        self.pinged = threading.Event()

    def ping(self) -> None:
        self.pinged.set()
        if self.down:
            raise GraphUnavailable("Neo4j at bolt://nowhere is unavailable")


def wait_for_pings(neo4j: FakeNeo4j, count: int = 2) -> None:
    for _ in range(count):
        neo4j.pinged.clear()
        assert neo4j.pinged.wait(5)


def test_the_api_serves_once_the_first_part_is_warm_while_the_rest_warms() -> None:
    first_part, rest = threading.Event(), threading.Event()

    def warm(serving: Callable[[], None]) -> WarmUp:
        assert first_part.wait(5)
        serving()
        assert rest.wait(5)
        return WarmUp(searches=6, ms=5000.0)

    warmer = Warmer(FakeNeo4j().ping, warm, interval_s=0.01)
    entered = threading.Event()

    def serve() -> None:
        with warmer.running():
            entered.set()
            assert warmer.ready.wait(5)

    api = threading.Thread(target=serve)
    api.start()
    assert not entered.wait(0.2)  # the first part is not warm: the API does not serve yet
    first_part.set()
    assert entered.wait(5) and not warmer.ready.is_set()  # serving while the rest warms
    rest.set()
    api.join(5)
    assert [w.searches for w in warmer.warmups] == [6]


def test_the_warmer_warms_at_start_and_once_after_each_outage() -> None:
    neo4j = FakeNeo4j()
    warmed = threading.Event()

    def warm(serving: Callable[[], None]) -> WarmUp:
        serving()
        warmed.set()
        return WarmUp(searches=6, ms=1.0)

    warmer = Warmer(neo4j.ping, warm, interval_s=0.01)
    with warmer.running():
        assert warmer.ready.wait(5)  # in the background, while the API serves
        assert len(warmer.warmups) == 1
        wait_for_pings(neo4j)
        assert len(warmer.warmups) == 1  # up all along: nothing more
        neo4j.down = True
        wait_for_pings(neo4j)
        assert len(warmer.warmups) == 1
        warmed.clear()
        neo4j.down = False
        assert warmed.wait(5)  # back: warmed again
        wait_for_pings(neo4j)
        assert len(warmer.warmups) == 2
    assert [w.searches for w in warmer.warmups] == [6, 6]


def test_a_warm_up_that_fails_is_tried_again_at_the_next_ping() -> None:
    neo4j = FakeNeo4j()
    results = iter(
        [WarmUp(6, 1.0), WarmUp(2, 1.0, failed="GraphUnavailable: gone"), WarmUp(6, 1.0)]
    )
    done = threading.Event()

    def warm(serving: Callable[[], None]) -> WarmUp:
        serving()
        result = next(results)
        if result.searches == 6 and done.is_set() is False and len(warmer.warmups) == 2:
            done.set()
        return result

    warmer = Warmer(neo4j.ping, warm, interval_s=0.01)
    with warmer.running():
        neo4j.down = True
        wait_for_pings(neo4j)
        neo4j.down = False
        assert done.wait(5)
    assert [w.failed is None for w in warmer.warmups] == [True, False, True]
