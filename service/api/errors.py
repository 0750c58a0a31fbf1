"""The one place where errors become HTTP responses: RFC 9457 problem details.

Every error body is ``application/problem+json``: ``type`` (a URI naming the kind of problem),
``title`` (the same for every problem of that type), ``status``, ``detail`` (this occurrence)
and, for a request that does not match the schema (422), ``errors``: each offending field, in
the words of the request (a string's length in characters, whatever pydantic's own wording).
anchorgraph's own errors (``anchorgraph.errors``) get a ``urn:anchorgraph:problem:…`` type;
FastAPI's (an unknown route, a method a route does not have) get ``about:blank`` with the status's
reason phrase as title, as RFC 9457 §4.2.1 asks. A body that is not JSON is ``invalid-input`` (400)
on every route, whichever parser met it (``unreadable_json``).

The OpenAPI document says the same: ``install_error_handlers`` also rewrites it so that every
error status an operation declares (``problems(404, 503)``) is a ``ProblemDetails`` body.
"""

from __future__ import annotations

import http
import json
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException
from starlette.responses import Response
from starlette.routing import Match

from anchorgraph.errors import (
    AnchorgraphError,
    ClaimExtractionError,
    Conflict,
    DeadlineExceeded,
    DocumentTooLarge,
    EmbeddingFailed,
    EmbeddingUnavailable,
    Forbidden,
    GraphUnavailable,
    IndexNotReady,
    InvalidInput,
    JobRunning,
    ModelMismatch,
    NotFound,
    OcrUnavailable,
    PreconditionFailed,
    SourceUnavailable,
    TooManyPages,
    UnreadableDocument,
    UnsupportedFormat,
)
from anchorgraph.loaders.formats import DOCUMENT_FORMAT_NAMES, suffixes
from anchorgraph.retrieval.fields import BLANK_TEXT, VISIBLE_CHARACTER

log = logging.getLogger(__name__)

PROBLEM_JSON = "application/problem+json"
PROBLEM_SCHEMA = "#/components/schemas/ProblemDetails"
TYPE_PREFIX = "urn:anchorgraph:problem:"
# A detail is for people: an error about a megabyte of input does not echo the megabyte.
DETAIL_CHARS = 1000


class ValidationIssue(BaseModel):
    """One field of the request that does not match the schema."""

    loc: list[str | int] = Field(
        description="Where: the part of the request (body, query, path) and the field's path."
    )
    msg: str = Field(description="What is wrong with it.")
    type: str = Field(description="The kind of mismatch (pydantic's error type).")


class ProblemDetails(BaseModel):
    """An error, as RFC 9457 problem details (``application/problem+json``)."""

    type: str = Field(
        description="A URI naming the kind of problem: urn:anchorgraph:problem:<kind>, or "
        "about:blank for a plain HTTP error.",
        examples=["urn:anchorgraph:problem:not-found"],
    )
    title: str = Field(description="A short summary of the kind of problem.")
    status: int = Field(ge=400, le=599, description="The HTTP status code.")
    detail: str = Field(description="What went wrong this time.")
    errors: list[ValidationIssue] | None = Field(
        None, description="With 422: every field of the request that does not match the schema."
    )


@dataclass(frozen=True)
class ProblemType:
    """How one kind of error is answered: its status, type URI and title."""

    status: int
    kind: str  # the end of the type URI
    title: str

    @property
    def uri(self) -> str:
        return TYPE_PREFIX + self.kind


UNSUPPORTED_FORMAT = ProblemType(415, "unsupported-format", "Unsupported format")
DOCUMENT_TOO_LARGE = ProblemType(413, "document-too-large", "Document too large")
INVALID_INPUT = ProblemType(400, "invalid-input", "Invalid input")
TOO_MANY_PAGES = ProblemType(422, "too-many-pages", "Too many pages")
UNREADABLE_DOCUMENT = ProblemType(422, "unreadable-document", "The file cannot be read")
OCR_UNAVAILABLE = ProblemType(503, "ocr-unavailable", "OCR is not installed")
NOT_FOUND = ProblemType(404, "not-found", "Not found")
FORBIDDEN = ProblemType(403, "forbidden", "Not allowed to this key")
CONFLICT = ProblemType(409, "conflict", "It would replace a document unseen")
PRECONDITION_FAILED = ProblemType(412, "precondition-failed", "A precondition does not hold")
MODEL_MISMATCH = ProblemType(
    409, "model-mismatch", "The collection was embedded with another model"
)
JOB_RUNNING = ProblemType(409, "job-running", "An ingest job is writing into the collection")
EMBEDDING_UNAVAILABLE = ProblemType(
    503, "embedding-unavailable", "The embedding server is unavailable"
)
EMBEDDING_FAILED = ProblemType(502, "embedding-failed", "The embedding server refused the request")
GRAPH_UNAVAILABLE = ProblemType(503, "graph-unavailable", "Neo4j is unavailable")
DEADLINE_EXCEEDED = ProblemType(504, "deadline-exceeded", "Neo4j did not answer in time")
CLAIM_EXTRACTION_FAILED = ProblemType(502, "claim-extraction-failed", "Claim extraction failed")
INDEX_NOT_READY = ProblemType(503, "index-not-ready", "An index is not ready")
SOURCE_UNAVAILABLE = ProblemType(502, "source-unavailable", "The source cannot be read")
INTERNAL_ERROR = ProblemType(500, "internal-error", "Internal error")
VALIDATION_ERROR = ProblemType(422, "validation-error", "The request does not match the schema")
# Most specific first: the first class an error is an instance of decides its problem type.
_PROBLEM_TYPES: tuple[tuple[type[AnchorgraphError], ProblemType], ...] = (
    (UnsupportedFormat, UNSUPPORTED_FORMAT),
    (DocumentTooLarge, DOCUMENT_TOO_LARGE),
    (TooManyPages, TOO_MANY_PAGES),
    (UnreadableDocument, UNREADABLE_DOCUMENT),
    (InvalidInput, INVALID_INPUT),
    (NotFound, NOT_FOUND),
    (Forbidden, FORBIDDEN),
    (PreconditionFailed, PRECONDITION_FAILED),
    (ModelMismatch, MODEL_MISMATCH),
    (JobRunning, JOB_RUNNING),
    (Conflict, CONFLICT),
    (GraphUnavailable, GRAPH_UNAVAILABLE),
    (DeadlineExceeded, DEADLINE_EXCEEDED),
    (ClaimExtractionError, CLAIM_EXTRACTION_FAILED),
    (IndexNotReady, INDEX_NOT_READY),
    (OcrUnavailable, OCR_UNAVAILABLE),
    (SourceUnavailable, SOURCE_UNAVAILABLE),
    (EmbeddingUnavailable, EMBEDDING_UNAVAILABLE),
    (EmbeddingFailed, EMBEDDING_FAILED),
)


def problem_type(error: AnchorgraphError) -> ProblemType:
    return next(
        (known for kind, known in _PROBLEM_TYPES if isinstance(error, kind)), INTERNAL_ERROR
    )


def _printable(text: str) -> str:
    """Text that UTF-8 can carry: a lone surrogate from the request is shown as ``\\ud800``."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _cut(text: str) -> str:
    text = _printable(text)
    return text if len(text) <= DETAIL_CHARS else text[: DETAIL_CHARS - 1] + "…"


def problem_response(
    status: int,
    detail: str,
    *,
    type_uri: str = "about:blank",
    title: str | None = None,
    errors: Sequence[ValidationIssue] | None = None,
    headers: Mapping[str, str] | None = None,
) -> JSONResponse:
    """A problem-details response. Middleware that refuses a request (a size limit, a missing
    API key) answers with this too, so every error body has the one shape."""
    problem = ProblemDetails(
        type=type_uri,
        title=title or http.HTTPStatus(status).phrase,
        status=status,
        detail=_cut(detail),
        errors=list(errors) if errors is not None else None,
    )
    return JSONResponse(
        problem.model_dump(mode="json", exclude_none=True),
        status_code=status,
        headers=dict(headers or {}),
        media_type=PROBLEM_JSON,
    )


# --- a body that is not JSON ----------------------------------------------------------------------
def unreadable_json(error: ValueError | RecursionError) -> InvalidInput:
    """The answer to a request body that cannot be read as JSON (the error of ``json.loads``,
    which FastAPI's routes and ``POST /documents`` both use): a 400 ``invalid-input`` in the same
    words on every route. Not a 422: no field of the schema is at fault, the body is no JSON."""
    if isinstance(error, json.JSONDecodeError):
        return InvalidInput(
            f"The request body is not valid JSON: {error.msg} "
            f"(line {error.lineno}, column {error.colno})."
        )
    if isinstance(error, UnicodeDecodeError):
        byte = error.object[error.start : error.start + 1].hex()
        return InvalidInput(
            f"The request body is not valid JSON: it is not UTF-8 (byte 0x{byte} at offset "
            f"{error.start})."
        )
    if isinstance(error, RecursionError):
        return InvalidInput("The request body cannot be read as JSON: it nests too deeply.")
    return InvalidInput(f"The request body is not valid JSON: {error}.")


def _json_syntax_error(error: RequestValidationError) -> ValueError | None:
    """The parser's error, when FastAPI could not parse a route's JSON body (its one
    ``json_invalid`` entry, raised from the ``json.JSONDecodeError``)."""
    entries = error.errors()
    if len(entries) != 1 or entries[0]["type"] != "json_invalid":
        return None
    cause = error.__cause__
    if isinstance(cause, ValueError):
        return cause
    return ValueError(str((entries[0].get("ctx") or {}).get("error", entries[0]["msg"])))


# --- handlers -------------------------------------------------------------------------------------
async def _anchorgraph_error(_: Request, error: Exception) -> Response:
    assert isinstance(error, AnchorgraphError)
    known = problem_type(error)
    if known is INTERNAL_ERROR:
        log.error("unmapped %s", type(error).__name__, exc_info=error)
        return _internal_error()
    # The stored version's ETag, which a write refused for not naming it may then name.
    headers = (
        {"ETag": quoted_etag(error.etag)} if isinstance(error, Conflict) and error.etag else {}
    )
    return problem_response(
        known.status, str(error), type_uri=known.uri, title=known.title, headers=headers
    )


def quoted_etag(etag: str) -> str:
    """An entity tag as HTTP writes it (RFC 9110 §8.8.3): the content hash, in quotes."""
    return f'"{etag}"'


def _issue(error: Mapping[str, Any]) -> ValidationIssue:
    loc = [part if isinstance(part, int) else _printable(str(part)) for part in error["loc"]]
    kind, msg = _in_words(error)
    return ValidationIssue(loc=loc, msg=_printable(msg), type=kind)


def _in_words(error: Mapping[str, Any]) -> tuple[str, str]:
    """Pydantic's type and message of an error, said as the request has it.

    A length bound that follows a validator (``Annotated[Text, StringConstraints(...)]``) is
    checked by pydantic as a generic one, "Value should have at most 4096 items after
    validation": for a string it is a number of characters, as pydantic says of bounds it checks
    on the string itself. A text without a visible character (``VISIBLE_CHARACTER`` as a
    pattern) is said in words, as ``HasVisibleCharacter`` says it, not by quoting the pattern.
    """
    kind, msg = str(error["type"]), str(error["msg"])
    context = error.get("ctx") or {}
    if kind in {"too_long", "too_short"} and isinstance(error.get("input"), str):
        most = kind == "too_long"
        bound = context.get("max_length" if most else "min_length")
        if isinstance(bound, int):
            plural = "" if bound == 1 else "s"
            side = "at most" if most else "at least"
            return f"string_{kind}", f"String should have {side} {bound} character{plural}"
    if kind == "string_pattern_mismatch" and context.get("pattern") == VISIBLE_CHARACTER:
        return "string_blank", BLANK_TEXT
    return kind, msg


def describe_issues(issues: Sequence[ValidationIssue]) -> str:
    """One line naming the fields at fault: ``body.k: Input should be a number; …``."""
    shown = [f"{'.'.join(map(str, issue.loc))}: {issue.msg}" for issue in issues[:3]]
    more = f" (and {len(issues) - 3} more)" if len(issues) > 3 else ""
    return "; ".join(shown) + more


async def _validation_error(request: Request, error: Exception) -> Response:
    # Pydantic's own entries also carry the input and its context; they are left out, so that
    # an answer never echoes a request's megabyte (or a secret in it).
    assert isinstance(error, RequestValidationError)
    unparsed = _json_syntax_error(error)
    if unparsed is not None:
        return await _anchorgraph_error(request, unreadable_json(unparsed))
    issues = [_issue(entry) for entry in error.errors()]
    return problem_response(
        VALIDATION_ERROR.status,
        describe_issues(issues),
        type_uri=VALIDATION_ERROR.uri,
        title=VALIDATION_ERROR.title,
        errors=issues,
    )


async def _http_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, HTTPException)
    cause = error.__cause__
    if error.status_code == 400 and isinstance(cause, UnicodeDecodeError | RecursionError):
        # FastAPI's "There was an error parsing the body": a JSON body that is not UTF-8 (or
        # nests too deeply for Python's parser).
        return await _anchorgraph_error(request, unreadable_json(cause))
    headers = dict(error.headers or {})
    if error.status_code == 405:
        # Starlette names the methods of the first route whose path matched; a path served by
        # several routes (GET and POST /documents) allows all of theirs.
        headers["Allow"] = ", ".join(_allowed_methods(request))
    if error.status_code < 400:  # not an error: no body to give
        return Response(status_code=error.status_code, headers=headers)
    return problem_response(error.status_code, str(error.detail), headers=headers)


def _allowed_methods(request: Request) -> list[str]:
    """The methods some route serves at this path: each asked of the router in turn (routers
    included with a prefix match as one route, so their routes cannot be listed directly)."""
    routes = request.app.router.routes
    return [
        method
        for method in _METHODS
        if any(
            route.matches({**request.scope, "method": method})[0] is Match.FULL for route in routes
        )
    ]


_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")


def _internal_error() -> JSONResponse:
    return problem_response(
        500,
        "The server failed to answer; its log has the details.",
        type_uri=INTERNAL_ERROR.uri,
        title=INTERNAL_ERROR.title,
    )


async def _unexpected_error(_: Request, error: Exception) -> Response:
    # Starlette logs the traceback and re-raises after sending this; the body names nothing.
    return _internal_error()


def install_error_handlers(app: FastAPI) -> None:
    """Answer every error as problem details, and say so in the app's OpenAPI document."""
    app.add_exception_handler(AnchorgraphError, _anchorgraph_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(HTTPException, _http_error)
    app.add_exception_handler(Exception, _unexpected_error)
    app.openapi = _documenting_problems(app.openapi)  # type: ignore[method-assign]


# --- the OpenAPI document -------------------------------------------------------------------------
_DESCRIPTIONS: dict[int, str] = {
    400: "Invalid input: a request body that is not valid JSON (or not UTF-8), or a document "
    "with no text.",
    403: "The key may read this collection but not write it.",
    404: "No such collection, document, chunk or route (or none this key may see).",
    409: "The document would replace, unseen, one the collection holds from another origin "
    "or from a request without one (the response's ETag names it: send If-Match with it, or "
    "replace: true, to replace it), or another write changed it meanwhile; or the collection "
    "was embedded with another model than this API's (model-mismatch).",
    412: "A precondition of the write does not hold: If-Match names another version than the "
    "one stored (its ETag is in the response), or If-None-Match: * and the document exists.",
    413: "The body or the document is larger than the configured limit.",
    415: "A content type or file format no reader handles.",
    422: "The request does not match the schema (`errors` names each field), or the file "
    "cannot be read (corrupt or encrypted) or has more pages than the limit.",
    502: "The configured claim extractor failed, or the embedding server refused the request.",
    503: "Neo4j is unavailable, an index is not ready, a page needs OCR and Tesseract is not "
    "installed, or the embedding server cannot be reached.",
    504: "Neo4j did not answer within the request deadline (ANCHORGRAPH_REQUEST_DEADLINE_S); "
    "nothing was written.",
}
_EXAMPLES: dict[int, tuple[ProblemType, str]] = {
    400: (
        INVALID_INPUT,
        "The request body is not valid JSON: Expecting ',' delimiter (line 1, column 18).",
    ),
    403: (FORBIDDEN, "This key may read collection 'wiki' but not write it."),
    404: (NOT_FOUND, "No document with id 'notes/missing.md' in collection 'default'."),
    409: (
        CONFLICT,
        "'README.md' in collection 'default' came from a request without a uri; a request "
        'without a uri has the same id and would replace it; send If-Match: "9f2c…" (its '
        "ETag) or replace: true to replace it, or give this one another id.",
    ),
    412: (
        PRECONDITION_FAILED,
        "'README.md' in collection 'default': If-Match names another version: the stored "
        'one\'s ETag is "9f2c…"',
    ),
    413: (DOCUMENT_TOO_LARGE, "big.txt: 6,000,000 bytes is over the limit of 5,000,000 bytes."),
    415: (
        UNSUPPORTED_FORMAT,
        f"scan.xls: no reader for this file; send a {suffixes(DOCUMENT_FORMAT_NAMES)} file, a "
        "part with one of their content types, or a 'format' field.",
    ),
    422: (VALIDATION_ERROR, "body.k: Input should be less than or equal to 1000"),
    502: (CLAIM_EXTRACTION_FAILED, "claim extractor at http://127.0.0.1:8080 failed: timed out"),
    503: (GRAPH_UNAVAILABLE, "Neo4j at bolt://127.0.0.1:7687 is unavailable."),
    504: (
        DEADLINE_EXCEEDED,
        "Neo4j did not answer within the request deadline of 10 s "
        "(ANCHORGRAPH_REQUEST_DEADLINE_S); nothing was written. Try again, or raise the "
        "deadline if Neo4j is only slow.",
    ),
}


@dataclass(frozen=True)
class Said:
    """What an error status means on one route, where it is not what every route's
    ``_DESCRIPTIONS`` say, with the problem its example shows."""

    description: str
    problem: ProblemType
    detail: str


# The 409 of a route that embeds a query.
EMBEDDED_WITH_ANOTHER_MODEL = Said(
    "A collection it reads was embedded with another model than this API's (model-mismatch): "
    "its vectors and the query's would not compare. `anchorgraph collections reembed NAME` "
    "embeds it again with the API's model.",
    MODEL_MISMATCH,
    "Collection 'letters' was embedded with 'all-MiniLM-L6-v2'; this process embeds with "
    "'multilingual-e5-small', whose vectors cannot be compared with its own. Use it with "
    "ANCHORGRAPH_EMBEDDING_MODEL=all-MiniLM-L6-v2 (and its server, if it has one), or re-embed "
    "it with the new model: anchorgraph collections reembed letters",
)


def problems(*statuses: int, said: Mapping[int, Said] | None = None) -> dict[int | str, Any]:
    """The ``responses`` of a route for the error statuses it can answer: each becomes a
    ``ProblemDetails`` body in the OpenAPI document, described as ``said`` says for this route
    or else as for every route. A route that may answer 503 waits on Neo4j, so within the
    request deadline: it may answer 504 too."""
    waits = (504,) if 503 in statuses else ()
    own = said or {}
    return {
        status: _said(status, own[status])
        if status in own
        else {"description": _DESCRIPTIONS[status]}
        for status in (*statuses, *waits)
    }


def _said(status: int, said: Said) -> dict[str, Any]:
    example = ProblemDetails(
        type=said.problem.uri, title=said.problem.title, status=status, detail=said.detail
    )
    body = example.model_dump(mode="json", exclude_none=True)
    content = {"schema": {"$ref": PROBLEM_SCHEMA}, "example": body}
    return {"description": said.description, "content": {PROBLEM_JSON: content}}


def _example(status: int) -> dict[str, Any]:
    known, detail = _EXAMPLES[status]
    example = ProblemDetails(type=known.uri, title=known.title, status=status, detail=detail)
    if status == 422:
        example.errors = [
            ValidationIssue(
                loc=["body", "k"],
                msg="Input should be less than or equal to 1000",
                type="less_than_equal",
            )
        ]
    return example.model_dump(mode="json", exclude_none=True)


def _documenting_problems(build: Callable[[], dict[str, Any]]) -> Callable[[], dict[str, Any]]:
    def openapi() -> dict[str, Any]:
        document = build()  # FastAPI caches it: the rewrite below runs on the first call only
        schemas = document.setdefault("components", {}).setdefault("schemas", {})
        if "ProblemDetails" not in schemas:
            _rewrite_error_responses(document, schemas)
        return document

    return openapi


def _rewrite_error_responses(document: dict[str, Any], schemas: dict[str, Any]) -> None:
    problem_schema = ProblemDetails.model_json_schema(ref_template="#/components/schemas/{model}")
    schemas.update(problem_schema.pop("$defs", {}))
    schemas["ProblemDetails"] = problem_schema
    reference = {"$ref": PROBLEM_SCHEMA}
    for operation in _operations(document):
        for code, response in operation.get("responses", {}).items():
            status = int(code) if str(code).isdigit() else 0
            if status < 400 or not _is_problem(response):
                continue
            response["description"] = _DESCRIPTIONS.get(status, response.get("description", ""))
            response["content"] = {PROBLEM_JSON: {"schema": reference, "example": _example(status)}}
    # FastAPI's own 422 body, replaced everywhere above.
    for name in ("HTTPValidationError", "ValidationError"):
        schemas.pop(name, None)


def _operations(document: Mapping[str, Any]) -> Iterable[dict[str, Any]]:
    for path_item in document.get("paths", {}).values():
        yield from (
            op
            for method, op in path_item.items()
            if isinstance(op, dict) and method != "parameters"
        )


def _is_problem(response: Mapping[str, Any]) -> bool:
    """An error response the route left to us: no body of its own, or FastAPI's 422 body (a
    route may give an error status a body of its own, as /health does with 503)."""
    content = response.get("content")
    if not content:
        return True
    schemas = [media.get("schema", {}) for media in content.values()]
    return any(schema.get("$ref", "").endswith("/HTTPValidationError") for schema in schemas)
