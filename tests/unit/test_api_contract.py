"""The API's published contract without a server: the OpenAPI document (error bodies, examples),
the request models' bounds and strictness, the cross-field rules in the schema, and the problem
details the one error mapping answers (service/api/errors.py) on a bare app."""

from __future__ import annotations

import contextlib
import itertools
import json
import math
from typing import Annotated, Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from jsonschema import Draft202012Validator
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from anchorgraph.api import errors
from anchorgraph.api.errors import PROBLEM_JSON, TYPE_PREFIX, ProblemType, install_error_handlers
from anchorgraph.app import create_app
from anchorgraph.errors import GraphUnavailable, LocalServerError
from anchorgraph.retrieval.fields import VISIBLE_CHARACTER, Text
from anchorgraph.retrieval.options import SearchOptions, nested
from anchorgraph.settings import Settings

# What a route's error example may be: a problem the API answers with that status.
ANSWERED = [known for known in vars(errors).values() if isinstance(known, ProblemType)]


@pytest.fixture(scope="module")
def openapi() -> dict[str, Any]:
    # Building the app connects to nothing: its runtime opens in the lifespan, not run here.
    document: dict[str, Any] = create_app(Settings(_env_file=None)).openapi()
    return document


def operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method.upper(), path, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
    ]


def validator(document: dict[str, Any], schema: dict[str, Any]) -> Draft202012Validator:
    """A validator of ``schema`` whose ``#/components/...`` references resolve in ``document``."""
    return Draft202012Validator({**schema, "components": document["components"]})


def test_every_error_status_is_a_problem_details_body(openapi: dict[str, Any]) -> None:
    schemas = openapi["components"]["schemas"]
    assert {"ProblemDetails", "ValidationIssue"} <= set(schemas)
    assert "HTTPValidationError" not in schemas  # FastAPI's own 422 body, replaced
    checked = 0
    for method, path, operation in operations(openapi):
        for code, response in operation["responses"].items():
            status = int(code)
            if status < 400 or (path, status) == ("/health", 503):  # /health: its own body
                continue
            media = response["content"][PROBLEM_JSON]
            assert media["schema"] == {"$ref": "#/components/schemas/ProblemDetails"}
            assert media["example"]["status"] == status, (method, path, status)
            kind = media["example"]["type"].removeprefix(TYPE_PREFIX)
            assert kind in {k.kind for k in ANSWERED if k.status == status}, (path, status)
            assert validator(openapi, media["schema"]).is_valid(media["example"])
            checked += 1
    assert checked >= 25


@pytest.mark.parametrize(
    ("operation", "statuses"),
    [
        ("POST /documents", {400, 413, 415, 422, 503, 504}),
        ("GET /documents", {422, 503}),
        ("GET /documents/{document_id}", {404, 503}),
        ("DELETE /documents/{document_id}", {404, 503}),
        ("POST /search", {400, 409, 422, 502, 503, 504}),
        ("POST /ingest/jobs", {400, 403, 404, 409, 413, 415, 422, 503, 504}),
        ("GET /ingest/jobs/{job_id}", {403, 404, 422, 503}),
        ("DELETE /ingest/jobs/{job_id}", {403, 404, 422, 503}),
        ("POST /judgments", {400, 403, 404, 422, 503}),
        ("GET /entities", {422, 503}),
        ("POST /audit/coverage", {400, 422, 503}),
        ("GET /graph/neighbourhood/{node_id}", {404, 422, 503}),
    ],
)
def test_operations_document_the_errors_they_answer(
    openapi: dict[str, Any], operation: str, statuses: set[int]
) -> None:
    method, path = operation.split(" ")
    documented = {int(code) for code in openapi["paths"][path][method.lower()]["responses"]}
    assert statuses <= documented


def test_every_operation_has_examples_that_match_its_schemas(openapi: dict[str, Any]) -> None:
    for method, path, operation in operations(openapi):
        if path.startswith(("/ui", "/browser")):  # the page's own routes, not the API's
            continue
        success = [code for code in operation["responses"] if code.startswith("2")]
        examples = 0
        for code in success:
            media = operation["responses"][code].get("content", {}).get("application/json")
            if media and "example" in media:
                errors = list(validator(openapi, media["schema"]).iter_errors(media["example"]))
                assert not errors, (
                    path,
                    code,
                    [(error.json_path, error.message) for error in errors],
                )
                examples += 1
        assert examples or success == ["204"], (method, path)
        body = operation.get("requestBody", {}).get("content", {})
        for media in body.values():
            schema = media["schema"]
            samples = [media["example"]] if "example" in media else []
            samples += schema.get("examples", [])
            if "$ref" in schema:
                name = schema["$ref"].rsplit("/", 1)[-1]
                samples += openapi["components"]["schemas"][name].get("examples", [])
            assert samples, (method, path)
            for sample in samples:
                errors = list(validator(openapi, schema).iter_errors(sample))
                assert not errors, (path, sample, [error.message for error in errors])
        for parameter in operation.get("parameters", []):
            if parameter.get("required"):
                assert parameter["schema"].get("examples"), (method, path, parameter["name"])


def test_a_body_that_is_not_json_is_documented_as_such_where_a_body_is_json(
    openapi: dict[str, Any],
) -> None:
    """Every operation that takes a JSON body says what one that is not JSON gets: 400
    invalid-input (before: its example was a document without text, on /search too)."""
    json_bodies = [
        (method, path, operation)
        for method, path, operation in operations(openapi)
        if "application/json" in operation.get("requestBody", {}).get("content", {})
    ]
    assert {f"{method} {path}" for method, path, _ in json_bodies} == {
        "POST /documents",
        "POST /search",
        "POST /judgments",
        "POST /audit/coverage",
        "POST /ingest/jobs",
    }
    for method, path, operation in json_bodies:
        bad_request = operation["responses"]["400"]
        assert "not valid JSON" in bad_request["description"], (method, path)
        example = bad_request["content"][PROBLEM_JSON]["example"]
        assert example["type"] == "urn:anchorgraph:problem:invalid-input"
        assert example["detail"].startswith("The request body is not valid JSON: ")
        assert "JSON" not in operation["responses"]["422"]["description"]


def test_documents_post_body_resolves_and_offers_json_and_multipart(
    openapi: dict[str, Any],
) -> None:
    content = openapi["paths"]["/documents"]["post"]["requestBody"]["content"]
    assert set(content) == {"application/json", "multipart/form-data"}
    text = json.dumps(content)
    refs = {part.split('"')[0] for part in text.split('"$ref": "')[1:]}
    assert all(ref.rsplit("/", 1)[-1] in openapi["components"]["schemas"] for ref in refs)
    upload = content["multipart/form-data"]["schema"]
    assert upload["required"] == ["file", "id"]
    assert "null" not in json.dumps(upload["properties"])  # form fields are never null


# --- the search request ----------------------------------------------------------------------
def search_schema_validator(openapi: dict[str, Any]) -> Draft202012Validator:
    return validator(openapi, {"$ref": "#/components/schemas/SearchOptions"})


def pydantic_accepts(model: type[BaseModel], body: dict[str, Any]) -> bool:
    try:
        model.model_validate(body)
    except ValidationError:
        return False
    return True


def test_the_schema_says_which_search_requests_are_accepted(openapi: dict[str, Any]) -> None:
    """Every combination of the options the cross-field rules tie together: the JSON schema
    and the model agree on each (so a client can trust the schema alone)."""
    schema = search_schema_validator(openapi)
    absent = object()
    grid = {
        "level": [absent, "chunk", "document"],
        "mode": [absent, "dense", "bm25", "tfidf", "hybrid", "multisignal"],
        "paths": [absent, None, [], ["dense"], ["bm25"], ["doc_bm25"], ["doc_dense", "bm25"]],
        "feedback.documents": [absent, None, 0, 2],
        "fusion.pagerank_weight": [absent, 0, 0.5],
        "fusion.fd_weight": [absent, 0.0, 1],
        "fusion.walk_weight": [absent, 0.5],
    }
    disagreements, refused = [], 0
    for values in itertools.product(*grid.values()):
        body: dict[str, Any] = {"query": "q"}
        for key, value in zip(grid, values, strict=True):
            if value is not absent:
                group, _, field = key.rpartition(".")
                (body.setdefault(group, {}) if group else body)[field] = value
        by_model = pydantic_accepts(SearchOptions, body)
        refused += not by_model
        if schema.is_valid(body) != by_model:
            disagreements.append(body)
    assert not disagreements, disagreements[:5]
    assert refused > 100  # the grid does reach every rule


def test_the_schema_says_which_flat_requests_of_api_0_1_are_accepted(
    openapi: dict[str, Any],
) -> None:
    """The deprecated flat shape, alone and mixed with the groups: schema and model agree."""
    schema = search_schema_validator(openapi)
    absent = object()
    grid = {
        "level": [absent, "chunk", "document"],
        "mode": [absent, "dense", "bm25", "hybrid", "multisignal"],
        "paths": [absent, None, ["bm25"], ["doc_dense", "bm25"]],
        "feedback": [absent, None, 0, 2, {"documents": 2}, {"weight": 0.5}],
        "feedback_weight": [absent, 0.4],
        "pagerank_weight": [absent, 0, 0.5],
        "fusion": [absent, "rrf", {"fd_weight": 1}, {"pagerank_weight": 0.5}],
    }
    disagreements, refused, flat = [], 0, 0
    for values in itertools.product(*grid.values()):
        body = {"query": "q"} | {
            key: value for key, value in zip(grid, values, strict=True) if value is not absent
        }
        by_model = pydantic_accepts(SearchOptions, body)
        refused += not by_model
        with contextlib.suppress(ValueError):  # one option named both ways
            flat += bool(nested(body)[1])
        if schema.is_valid(body) != by_model:
            disagreements.append(body)
    assert not disagreements, disagreements[:5]
    assert refused > 100 and flat > 1000  # every rule, and both names of an option, reached


@pytest.mark.parametrize(
    "body",
    [
        {"k": True},
        {"k": "10"},
        {"k_over": 1.5},
        {"explain": 1},
        {"expand": "true"},
        {"fd_lambda": False},
        {"weights": {"dense": True}},
        {"weights": {"dense": 1.8e308}},
        {"signal_weights": {"doc": 1e300}},
        {"rrf_k": 10**30},
        {"threshold": math.inf},
        {"threshold": math.nan},
        {"feedback": True},
        {"feedback": 51},
        {"query": "\ud800"},
        {"filters": {"tags": ["a\udfffb"]}},
    ],
)
def test_search_numbers_are_numbers_bounded_and_text_is_unicode(
    openapi: dict[str, Any], body: dict[str, Any]
) -> None:
    request = {"query": "q"} | body
    assert not pydantic_accepts(SearchOptions, request)
    if "\\ud" not in json.dumps(request) and not any(
        isinstance(v, float) and not math.isfinite(v) for v in request.values()
    ):
        assert not search_schema_validator(openapi).is_valid(request)  # and the schema says so


def test_the_schema_and_the_model_refuse_a_blank_query_and_an_empty_list_of_paths(
    openapi: dict[str, Any],
) -> None:
    """Before: both accepted the first three."""
    schema = search_schema_validator(openapi)
    for body, valid in [
        ({"query": "  "}, False),
        ({"query": "\u200b\n"}, False),
        ({"query": "q", "paths": []}, False),
        ({"query": ""}, False),
        ({"query": "x" * 4097}, False),
        ({"query": " q "}, True),
        ({"query": "x" * 4096, "paths": ["bm25"]}, True),
    ]:
        assert pydantic_accepts(SearchOptions, body) is valid, body
        assert schema.is_valid(body) is valid, body


def test_integral_floats_are_integers_as_json_schema_has_it() -> None:
    assert SearchOptions.model_validate({"query": "q", "k": 20.0, "rrf_k": 60.0}).k == 20


def test_k_over_is_at_least_k() -> None:
    assert SearchOptions(query="q", k=500).k_over == 500  # the default 100, raised
    assert SearchOptions(query="q", k=5, k_over=2).k_over == 5
    assert SearchOptions(query="q", k=5, k_over=300).k_over == 300


def test_the_largest_weights_keep_scores_finite() -> None:
    options = SearchOptions.model_validate(
        {"query": "q", "weights": dict.fromkeys(["dense", "bm25", "tfidf"], 100.0)}
    )
    assert math.isfinite(sum(options.path_weights().values()) * 1e6)


# --- problem details on a bare app --------------------------------------------------------------
class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")

    k: int


class Labelled(BaseModel):
    """Bounds as the API's models place them: after a validator (``Text``), on the string
    itself, a visible character as a pattern, and a list's."""

    label: Annotated[Text, StringConstraints(min_length=2, max_length=5)] = "ab"
    name: Annotated[str, StringConstraints(max_length=3)] = ""
    note: Annotated[str, StringConstraints(pattern=VISIBLE_CHARACTER)] = "n"
    tags: list[int] = Field(default_factory=list, max_length=2)


@pytest.fixture(scope="module")
def bare() -> TestClient:
    app = FastAPI()
    install_error_handlers(app)

    @app.get("/thing")
    def get_thing() -> dict[str, str]:
        raise GraphUnavailable("Neo4j at bolt://127.0.0.1:7687 is unavailable.")

    @app.post("/thing")
    def post_thing(body: Body) -> dict[str, int]:
        return {"k": body.k}

    @app.post("/labelled")
    def post_labelled(body: Labelled) -> dict[str, str]:
        return {"label": body.label}

    @app.get("/unmapped")
    def unmapped() -> None:
        raise LocalServerError("secret path /root/x")

    @app.get("/crash")
    def crash() -> None:
        raise RuntimeError("password=hunter2")

    return TestClient(app, raise_server_exceptions=False)


def problem(response: Any) -> dict[str, Any]:
    assert response.headers["content-type"] == PROBLEM_JSON
    body: dict[str, Any] = response.json()
    assert set(body) >= {"type", "title", "status", "detail"}
    assert body["status"] == response.status_code
    return body


def test_anchorgraph_errors_map_to_their_status_and_type(bare: TestClient) -> None:
    body = problem(bare.get("/thing"))
    assert body["type"] == "urn:anchorgraph:problem:graph-unavailable"
    assert body["status"] == 503 and "bolt://127.0.0.1:7687" in body["detail"]


def test_validation_errors_name_each_field_without_echoing_input(bare: TestClient) -> None:
    secret = "x" * 5000
    response = bare.post("/thing", json={"k": secret})
    body = problem(response)
    assert response.status_code == 422 and body["type"].endswith("validation-error")
    assert body["errors"][0]["loc"] == ["body", "k"]
    assert secret not in response.text


@pytest.mark.parametrize(
    ("content", "detail"),
    [
        (b"{", "Expecting property name enclosed in double quotes (line 1, column 2)."),
        (b'{"k": 1,\n "k": }', "Expecting value (line 2, column 7)."),
        (b'{"k": "caf\xe9"}', "it is not UTF-8 (byte 0xe9 at offset 10)."),
    ],
)
def test_a_body_that_is_not_json_is_invalid_input(
    bare: TestClient, content: bytes, detail: str
) -> None:
    """Not a 422 naming a field (``body.1: JSON decode error``), nor an ``about:blank`` 400: the
    body is no JSON at all, which the OpenAPI document calls invalid input."""
    response = bare.post("/thing", content=content, headers={"content-type": "application/json"})
    body = problem(response)
    assert response.status_code == 400 and body["type"] == "urn:anchorgraph:problem:invalid-input"
    assert body["detail"] == f"The request body is not valid JSON: {detail}"
    assert "errors" not in body


def test_validation_errors_are_said_in_the_words_of_the_request(bare: TestClient) -> None:
    """A string's bound is in characters wherever pydantic checks it (before: "Value should
    have at most 5 items after validation" when it follows a validator), a blank text is
    said in words (before: the pattern); a list's bound stays in items."""
    cases = [
        ("label", "x" * 6, "string_too_long", "String should have at most 5 characters"),
        ("label", "x", "string_too_short", "String should have at least 2 characters"),
        ("note", " \t\u200b", "string_blank", "String should hold a visible character, not "
         "only whitespace"),
        ("name", "x" * 4, "string_too_long", "String should have at most 3 characters"),
        ("tags", [1, 2, 3], "too_long", "List should have at most 2 items after validation, not 3"),
    ]  # fmt: skip
    for field, value, kind, msg in cases:
        response = bare.post("/labelled", json={field: value})
        body = problem(response)
        assert response.status_code == 422
        assert body["errors"] == [{"loc": ["body", field], "msg": msg, "type": kind}]
        assert body["detail"] == f"body.{field}: {msg}"


def test_a_lone_surrogate_in_a_json_body_is_refused_whole(bare: TestClient) -> None:
    for content in (b'{"k": 1, "\\ud800": 2}', b'{"k": "\\udfff"}'):
        response = bare.post(
            "/thing", content=content, headers={"content-type": "application/json"}
        )
        assert response.status_code == 422, response.text
        assert problem(response)["errors"][0]["type"] == "string_unicode"


def test_framework_errors_are_problems_too(bare: TestClient) -> None:
    missing = bare.get("/nowhere")
    assert missing.status_code == 404 and problem(missing)["type"] == "about:blank"
    assert problem(missing)["title"] == "Not Found"
    refused = bare.delete("/thing")
    assert refused.status_code == 405 and problem(refused)["title"] == "Method Not Allowed"
    assert refused.headers["allow"] == "GET, POST"  # both routes of the path


def test_unexpected_errors_say_nothing_of_what_failed(bare: TestClient) -> None:
    for path in ("/crash", "/unmapped"):
        response = bare.get(path)
        body = problem(response)
        assert response.status_code == 500 and body["type"].endswith("internal-error")
        assert "hunter2" not in response.text and "/root" not in response.text
