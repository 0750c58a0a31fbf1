"""The MCP tool and the library take the rules of ``POST /search`` (``SearchOptions``): a blank
query and an empty list of paths are refused, in the same words, before any search runs; the
MCP tool's published schema says so too."""

from __future__ import annotations

import re
from typing import Any

import anyio
import pytest
from pydantic import ValidationError

from anchorgraph.library import Searcher
from anchorgraph.retrieval.fields import QUERY_TEXT

REFUSED: list[tuple[dict[str, Any], str]] = [
    ({"query": " \t\u200b"}, "String should hold a visible character, not only whitespace"),
    ({"query": "q", "paths": []}, "List should name at least one path"),
    ({"query": "x" * 5000}, "String should have at most 4096 characters"),
]


class NoSearch:
    """A searcher that fails any search: every call here must be refused before one runs."""

    @property
    def context(self) -> Any:
        raise AssertionError("a search ran")


def test_the_mcp_tool_publishes_and_applies_the_rules() -> None:
    pytest.importorskip("mcp")
    from mcp.server.fastmcp.exceptions import ToolError

    from anchorgraph.adapters.mcp import build_server

    server = build_server(NoSearch())  # type: ignore[arg-type]

    async def exercise() -> tuple[dict[str, Any], list[str]]:
        (search,) = [tool for tool in await server.list_tools() if tool.name == "search"]
        refusals = []
        for arguments, _ in REFUSED:
            with pytest.raises(ToolError) as raised:
                await server.call_tool("search", arguments)
            refusals.append(str(raised.value))
        return search.inputSchema["properties"], refusals

    properties, refusals = anyio.run(exercise)
    assert properties["query"]["pattern"] == QUERY_TEXT
    (array,) = [branch for branch in properties["paths"]["anyOf"] if branch.get("type") == "array"]
    assert array["minItems"] == 1
    for (arguments, words), refusal in zip(REFUSED, refusals, strict=True):
        assert words in refusal, (arguments, refusal)


def test_the_library_applies_the_rules() -> None:
    for arguments, words in REFUSED:
        with pytest.raises(ValidationError, match=re.escape(words)):
            Searcher.options(**arguments)
