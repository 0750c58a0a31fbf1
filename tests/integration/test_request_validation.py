"""Honest validation through the real app, on every route that takes a JSON body (POST /search,
POST /documents, POST /audit/coverage): a blank query or text, an empty list of paths, a body
that is not JSON, an empty body and a text over its bound each get one answer, in the same shape
and the same words on every route, and the one the OpenAPI document gives.

Plumbing only (the fake embedder, no spaCy pipeline): every request here is refused before it
reads the graph, which is checked to stay empty."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from clients import api_client
from fastapi.testclient import TestClient

from anchorgraph.embedding import Embedder
from anchorgraph.graph.gateway import Graph
from anchorgraph.settings import Settings

pytestmark = pytest.mark.integration

PROBLEM_JSON = "application/problem+json"
VALIDATION_ERROR = "urn:anchorgraph:problem:validation-error"
INVALID_INPUT = "urn:anchorgraph:problem:invalid-input"
# A valid body of each route that takes JSON, to which each case changes one field.
VALID = {
    "/search": {"query": "AG-2048 battery life"},
    "/documents": {"id": "notes/a.txt", "text": "The AG-2048 logs every 5 minutes."},
    "/audit/coverage": {"claims": ["The AG-2048 battery lasts four years."]},
}
JSON_ROUTES = list(VALID)


@pytest.fixture(scope="module")
def client(graph: Graph, settings: Settings, fake_embedder: Embedder) -> Iterator[TestClient]:
    with api_client(settings, fake_embedder) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def openapi(client: TestClient) -> dict[str, Any]:
    document: dict[str, Any] = client.get("/openapi.json").json()
    return document


@pytest.fixture(autouse=True)
def _writes_nothing(clean_graph: Graph, client: TestClient) -> Iterator[None]:
    yield
    assert client.get("/documents").json()["total"] == 0


def problem(response: Any, status: int, type_uri: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM_JSON
    body: dict[str, Any] = response.json()
    assert body["type"] == type_uri and body["status"] == status, body
    return body


def issue_at(body: dict[str, Any], loc: list[str | int]) -> dict[str, Any]:
    """The one issue of a 422 at ``loc``, also named in the detail."""
    (issue,) = [issue for issue in body["errors"] if issue["loc"] == loc]
    assert f"{'.'.join(map(str, loc))}: {issue['msg']}" in body["detail"]
    return issue


# --- blank text ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("route", "field", "blank", "loc"),
    [
        ("/search", "query", " ", ["body", "query"]),
        ("/search", "query", "\t\n  \r", ["body", "query"]),
        ("/search", "query", "\u200b\u2060\u00a0\u3000", ["body", "query"]),
        ("/documents", "text", "  \n\t\u200b ", ["body", "text"]),
        ("/audit/coverage", "claims", ["\u200b\u00ad"], ["body", "claims", 0]),
    ],
    ids=["search-space", "search-whitespace", "search-invisible", "document-text", "claim"],
)
def test_blank_text_is_refused_in_words(
    client: TestClient, route: str, field: str, blank: object, loc: list[str | int]
) -> None:
    """Whitespace and invisible characters alone are no query (before: 200 and ten arbitrary
    hits) and no text; the message says so rather than quoting a regular expression."""
    body = problem(client.post(route, json={**VALID[route], field: blank}), 422, VALIDATION_ERROR)
    issue = issue_at(body, loc)
    assert issue == {
        "loc": loc,
        "msg": "String should hold a visible character, not only whitespace",
        "type": "string_blank",
    }


# --- an empty list of paths ---------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["hybrid", "multisignal", "bm25"])
def test_an_empty_list_of_paths_is_refused_with_the_reason(client: TestClient, mode: str) -> None:
    """Before: 200 with the candidates of every path, as if the list had been left out."""
    request = {**VALID["/search"], "mode": mode, "paths": []}
    body = problem(client.post("/search", json=request), 422, VALIDATION_ERROR)
    issue = issue_at(body, ["body", "paths"])
    assert issue["type"] == "paths_empty"
    assert "at least one path" in issue["msg"] and "leave paths out" in issue["msg"]


# --- a body that is not JSON --------------------------------------------------------------------
NOT_JSON = {
    "truncated": (b'{"query": "q", ', "Expecting property name enclosed in double quotes"),
    "bare-words": (b"{not json", "Expecting property name enclosed in double quotes"),
    "trailing-garbage": (b'{"id": "x"} {', "Extra data"),
    "not-utf8": (b'{"query": "caf\xe9"}', "not UTF-8"),
}


@pytest.mark.parametrize("route", JSON_ROUTES)
@pytest.mark.parametrize("case", list(NOT_JSON))
def test_a_body_that_is_not_json_is_one_problem_on_every_route(
    client: TestClient, openapi: dict[str, Any], route: str, case: str
) -> None:
    """Before: 422 ``body.19: JSON decode error`` on /search and /audit/coverage, 422 ``Invalid
    JSON: …`` on /documents, 400 ``about:blank`` for bytes that are not UTF-8 on the first two;
    the OpenAPI document said 400 all along."""
    content, reason = NOT_JSON[case]
    response = client.post(route, content=content, headers={"content-type": "application/json"})
    body = problem(response, 400, INVALID_INPUT)
    assert body["title"] == "Invalid input" and "errors" not in body
    assert body["detail"].startswith("The request body is not valid JSON: ")
    assert reason in body["detail"]
    # The same words whichever route (and parser) met it.
    others = [
        client.post(other, content=content, headers={"content-type": "application/json"})
        for other in JSON_ROUTES
    ]
    assert {other.json()["detail"] for other in others} == {body["detail"]}
    # And what the OpenAPI document says of this operation.
    documented = openapi["paths"][route]["post"]["responses"][str(response.status_code)]
    assert "not valid JSON" in documented["description"]
    example = documented["content"][PROBLEM_JSON]["example"]
    assert example["type"] == body["type"] and example["detail"].startswith(
        "The request body is not valid JSON: "
    )


def test_where_the_json_breaks_is_told_by_line_and_column(client: TestClient) -> None:
    content = b'{\n  "query": "q",\n  "k": 5,\n}'
    for route in JSON_ROUTES:
        response = client.post(route, content=content, headers={"content-type": "application/json"})
        assert problem(response, 400, INVALID_INPUT)["detail"] == (
            "The request body is not valid JSON: Expecting property name enclosed in double "
            "quotes (line 4, column 1)."
        )


def test_a_body_nested_too_deeply_is_one_problem_on_every_route(client: TestClient) -> None:
    """JSON lets a parser bound its nesting (RFC 8259 §9); Python's stops near 1,000 levels.
    Before: 400 ``about:blank`` on /search and /audit/coverage, 422 on /documents."""
    content = b"[" * 50_000 + b"]" * 50_000
    for route in JSON_ROUTES:
        response = client.post(route, content=content, headers={"content-type": "application/json"})
        assert problem(response, 400, INVALID_INPUT)["detail"] == (
            "The request body cannot be read as JSON: it nests too deeply."
        )


def test_an_empty_body_is_a_missing_body_on_every_route(client: TestClient) -> None:
    """Before: /documents said ``Invalid JSON: EOF while parsing a value``, the others that the
    body is missing."""
    for route in JSON_ROUTES:
        response = client.post(route, content=b"", headers={"content-type": "application/json"})
        body = problem(response, 422, VALIDATION_ERROR)
        assert body["errors"] == [{"loc": ["body"], "msg": "Field required", "type": "missing"}]


# --- text over its bound ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("route", "change", "loc", "bound"),
    [
        ("/search", {"query": "x" * 21_000}, ["body", "query"], 4096),
        ("/search", {"filters": {"tags": ["t" * 600]}}, ["body", "filters", "tags", 0], 512),
        ("/documents", {"title": "T" * 1001}, ["body", "title"], 1000),
        ("/documents", {"tags": ["t" * 201]}, ["body", "tags", 0], 200),
    ],
    ids=["search-query", "search-tag", "document-title", "document-tag"],
)
def test_text_over_its_bound_is_counted_in_characters(
    client: TestClient, route: str, change: dict[str, Any], loc: list[str | int], bound: int
) -> None:
    """Before: ``Value should have at most 4096 items after validation, not 21000``."""
    response = client.post(route, json={**VALID[route], **change})
    issue = issue_at(problem(response, 422, VALIDATION_ERROR), loc)
    assert issue["msg"] == f"String should have at most {bound} characters"
    assert issue["type"] == "string_too_long"
