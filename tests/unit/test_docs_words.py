"""What a reader meets: the README short, every link in the docs leading somewhere, and no word a
reader cannot look up (internal names of the project's working documents, paths to folders only
its developers have) in the README, the docs, the OpenAPI document or the MCP tools' schemas."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path
from typing import Any, cast

import anyio
import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

# Each pattern is a word that once reached readers and means nothing to them.
UNKNOWN_WORDS = {
    r"\bseed\s*0\d\d": "the working name of a specification document",
    r"\b(the )?seed'?s\b(?! \d)": "the working name of a specification document",
    r"\bcondition [A-D]\b": "a condition letter of an unpublished experiment",
    r"\.\./shared\b": "a folder only the developers have",
    r"\bissue'?s (targets|latency)\b": "an internal issue",
}
README_WORDS = 1_000  # five minutes at about 200 words a minute


def unknown_words(text: str) -> list[str]:
    return [
        f"{match.group(0)!r} ({why})"
        for pattern, why in UNKNOWN_WORDS.items()
        for match in re.finditer(pattern, text, flags=re.IGNORECASE)
    ]


def test_the_patterns_catch_what_they_are_for() -> None:
    assert unknown_words("the FD*-optimised rerank (seed 000, condition C) from seed 001's run")
    assert unknown_words("eval --dataset ../shared/datasets/scifact")
    assert not unknown_words("a random seed 3, `--seed 1`, seeded vectors, condition `cosine`")


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_no_page_speaks_in_words_a_reader_cannot_look_up(page: Path) -> None:
    assert unknown_words(page.read_text(encoding="utf-8")) == []


def test_the_readme_is_read_in_five_minutes() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.split()) <= README_WORDS
    # It starts with the two commands.
    commands = re.search(r"```bash\n(.*?)```", text, flags=re.DOTALL)
    assert commands is not None
    assert [line.split()[:2] for line in commands.group(1).splitlines()] == [
        ["make", "run"],
        ["make", "test"],
    ]


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = unicodedata.normalize("NFC", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
    return {slug(heading) for heading in re.findall(r"^#+ (.+)$", text, flags=re.MULTILINE)}


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_link_leads_somewhere(page: Path) -> None:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue  # http(s), mailto: not followed here
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        missing_anchor = anchor and linked.suffix == ".md" and anchor not in anchors(linked)
        if not linked.exists() or missing_anchor:
            broken.append(target)
    assert broken == []


def test_the_openapi_document_speaks_plainly() -> None:
    from anchorgraph.app import create_app
    from anchorgraph.settings import Settings

    document = create_app(Settings(_env_file=None)).openapi()  # type: ignore[call-arg]
    assert unknown_words(str(document)) == []


def test_the_mcp_tools_speak_plainly() -> None:
    from anchorgraph.adapters.mcp import build_server
    from anchorgraph.library import Searcher

    # Listing the tools reads their schemas only; the searcher is first used by a call.
    server = build_server(cast(Searcher, object()))
    tools: list[Any] = anyio.run(server.list_tools)
    assert {tool.name for tool in tools} >= {"search", "get_document", "explain_fd"}
    assert unknown_words(str([(t.description, t.inputSchema, t.outputSchema) for t in tools])) == []


def test_the_command_line_help_speaks_plainly() -> None:
    import typer
    from typer.testing import CliRunner

    from anchorgraph.cli.main import app

    def paths(command: Any, path: list[str]) -> list[list[str]]:
        # Typer 0.29 carries its own click; its groups are the commands with sub-commands.
        found = [path]
        for name, sub in getattr(command, "commands", {}).items():
            found += paths(sub, [*path, name])
        return found

    every = paths(typer.main.get_command(app), [])
    assert len(every) > 20  # every command and group, not only the top
    runner = CliRunner()
    texts = [runner.invoke(app, [*path, "--help"], terminal_width=200).output for path in every]
    assert all("Usage" in text for text in texts)
    assert unknown_words("\n".join(texts)) == []
