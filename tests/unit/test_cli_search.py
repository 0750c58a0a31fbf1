"""``anchorgraph search`` takes its options from ``SearchOptions``: a flag per field, described
and bounded as the model has them, the model deciding defaults and refusals."""

from __future__ import annotations

from importlib import resources
from typing import Any

import pytest
from pydantic import BaseModel
from typer.testing import CliRunner

from anchorgraph.cli import search
from anchorgraph.cli.main import app
from anchorgraph.cli.search_flags import (
    FLAGS_FILE,
    NOT_A_FLAG,
    OWN_WAY,
    flags_json,
    flags_of,
    read_flags,
)
from anchorgraph.graph.bounds import BRIDGED_MENTIONS
from anchorgraph.retrieval.defaults import DEFAULT_BRIDGE_MAX_MENTIONS
from anchorgraph.retrieval.options import FLAT_NAMES, SearchOptions


def test_the_flags_file_is_what_the_model_gives() -> None:
    """Regenerate with `python -m anchorgraph.cli.search_flags > service/cli/search_flags.json`."""
    shipped = resources.files("anchorgraph.cli").joinpath(FLAGS_FILE).read_text("utf-8")
    assert shipped == flags_json(SearchOptions, FLAT_NAMES)


def test_every_field_is_a_flag_or_taken_its_own_way() -> None:
    flagged = {".".join(flag.path) for flag in read_flags()}
    groups = {"fusion", "feedback", "fd", "expand"}
    every = {
        f"{name}.{inner}" if name in groups else name
        for name, info in SearchOptions.model_fields.items()
        for inner in (info.annotation.model_fields if name in groups else [""])  # type: ignore[union-attr]
    }
    assert flagged | OWN_WAY | NOT_A_FLAG == every
    assert not flagged & (OWN_WAY | NOT_A_FLAG)
    # Named as the first, flat request named them, where it did.
    assert {flag.name for flag in read_flags()} >= set(FLAT_NAMES) - {"weights"}


def test_a_field_that_is_no_flag_is_refused_by_name() -> None:
    class Request(BaseModel):
        k: int = 1
        costs: dict[str, float] = {}

    with pytest.raises(TypeError, match="NOT_A_FLAG"):
        flags_of(Request)


def test_the_help_shows_each_field_with_its_description_and_range() -> None:
    shown = CliRunner().invoke(app, ["search", "--help"], terminal_width=200)
    assert shown.exit_code == 0
    for flag in read_flags():
        assert flag.option in shown.output
    assert "Only entities that at most this many chunks mention bridge" in shown.output
    expected = f"Range [2, {BRIDGED_MENTIONS}]. Default: {DEFAULT_BRIDGE_MAX_MENTIONS}."
    assert expected in shown.output


@pytest.fixture
def searched(monkeypatch: pytest.MonkeyPatch) -> list[SearchOptions]:
    """The options each search would run with; the graph is not opened."""
    seen: list[SearchOptions] = []

    def capture(options: SearchOptions) -> Any:
        seen.append(options)
        raise SystemExit(0)

    monkeypatch.setattr(search, "_search_here", capture)
    return seen


def test_given_flags_reach_the_options_and_the_rest_keep_the_model_defaults(
    searched: list[SearchOptions],
) -> None:
    arguments = ["search", "pump valve", "-k", "3", "--level", "document", "--fd-lambda", "0.3"]
    arguments += ["--expand", "--expand-top", "5", "--paths", "dense", "--paths", "bm25"]
    arguments += ["--folder", "lab", "-c", "sample"]
    done = CliRunner().invoke(app, arguments)
    assert done.exit_code == 0, done.output
    (options,) = searched
    assert (options.query, options.k, options.level, options.fd.weight) == (
        "pump valve", 3, "document", 0.3,
    )  # fmt: skip
    assert options.expand.links and options.expand.top == 5
    assert options.paths == ["dense", "bm25"]
    assert options.filters.folders == ["lab"] and options.collections == ["sample"]
    defaults = SearchOptions(query="pump valve")
    assert options.expand.depth == defaults.expand.depth
    assert options.feedback == defaults.feedback and options.fusion == defaults.fusion


def test_a_switch_on_by_default_is_turned_off_by_its_no_form(
    searched: list[SearchOptions],
) -> None:
    plain = CliRunner().invoke(app, ["search", "pump valve"])
    assert plain.exit_code == 0, plain.output
    done = CliRunner().invoke(app, ["search", "pump valve", "--no-expand", "--no-bridge"])
    assert done.exit_code == 0, done.output
    default, off = searched
    assert (default.expand.links, default.expand.bridges) == (True, True)
    assert (off.expand.links, off.expand.bridges) == (False, False)


def test_a_value_the_model_refuses_ends_the_command_before_any_search(
    searched: list[SearchOptions],
) -> None:
    done = CliRunner().invoke(app, ["search", "x", "--expand-depth", "9", "--mode", "magic"])
    assert done.exit_code == 2
    assert "expand.depth: Input should be less than or equal to 3" in done.output
    assert "mode: Input should be" in done.output
    assert not searched


def test_a_refusal_quotes_the_model_s_pattern_whole(searched: list[SearchOptions]) -> None:
    """Brackets in the model's words are text, not terminal markup."""
    done = CliRunner().invoke(app, ["search", "x", "-c", "Bad"])
    assert done.exit_code == 2
    assert "'^[a-z0-9][a-z0-9_-]{0,62}$'" in done.output
    assert not searched


@pytest.mark.parametrize(
    ("arguments", "url", "k"),
    [
        (["pump valve", "--api"], "", 10),
        (["--api", "pump valve"], "", 10),
        (["pump valve", "--api", "-k", "3"], "", 3),
        (["pump valve", "--api", "http://api.test:8001", "-k", "3"], "http://api.test:8001", 3),
        (["pump valve", "--api=http://api.test:8001"], "http://api.test:8001", 10),
        (["pump valve", "--api", "localhost:8001"], "localhost:8001", 10),
    ],
)  # fmt: skip
def test_api_takes_a_url_or_none_for_the_configured_one(
    arguments: list[str], url: str, k: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[tuple[str, SearchOptions]] = []

    def capture(given: str, options: SearchOptions) -> Any:
        asked.append((given, options))
        raise SystemExit(0)

    monkeypatch.setattr(search, "_search_api", capture)
    done = CliRunner().invoke(app, ["search", *arguments])
    assert done.exit_code == 0, done.output
    ((given, options),) = asked
    assert (given, options.query, options.k) == (url, "pump valve", k)


def test_a_query_after_a_double_dash_may_say_api(searched: list[SearchOptions]) -> None:
    done = CliRunner().invoke(app, ["search", "--", "--api"])
    assert done.exit_code == 0, done.output
    assert searched[0].query == "--api"
