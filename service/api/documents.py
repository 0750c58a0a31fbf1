"""/documents: add (JSON or file upload), read, list and delete documents, each within its
collection (``collection`` in the body or the query; ``default`` when none is given)."""

from __future__ import annotations

import json
import posixpath
from dataclasses import replace
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError
from starlette.datastructures import UploadFile

from anchorgraph.api.deadline import answered_by
from anchorgraph.api.deps import AccessDep, RuntimeDep, readable, writable
from anchorgraph.api.errors import problems, quoted_etag, unreadable_json
from anchorgraph.api.preconditions import precondition
from anchorgraph.api.schemas import (
    NO_NUL,
    VISIBLE_CHARACTER,
    DocumentIn,
    DocumentOut,
    DocumentPage,
    IngestResult,
    UploadFields,
)
from anchorgraph.errors import (
    Conflict,
    InvalidInput,
    NotFound,
    PreconditionFailed,
    UnsupportedFormat,
)
from anchorgraph.graph.deadline import paused
from anchorgraph.graph.queries import Query as Cypher
from anchorgraph.loaders.files import FileReading
from anchorgraph.loaders.formats import (
    DOCUMENT_FORMAT_NAMES,
    TEXT_FORMAT_NAMES,
    format_of_media_type,
    names,
    suffixes,
)
from anchorgraph.loaders.ingest import Refusal, Refused
from anchorgraph.loaders.model import SourceDocument
from anchorgraph.loaders.read import detect_format, read_bytes
from anchorgraph.scope import COLLECTION_PATTERN, DEFAULT_COLLECTION, scoped

router = APIRouter(prefix="/documents", tags=["documents"])

# The formats one request can carry (anchorgraph.loaders.formats), known by file name suffix and
# by a part's media type. PDF, Word and images come only as a file part: a plain form field is
# text, and the `format` field names a text format only, since no schema can say which bytes make
# a PDF (schemathesis would rightly call a schema-valid "format: pdf" that is refused a fault).
_TEXT_FORMATS = frozenset(TEXT_FORMAT_NAMES)
_FILE_FORMATS = frozenset(DOCUMENT_FORMAT_NAMES)
_FILE_ONLY = [name for name in DOCUMENT_FORMAT_NAMES if name not in _TEXT_FORMATS]
# The largest page offset: far beyond any graph here, and far inside Neo4j's 64-bit SKIP.
MAX_OFFSET = 1_000_000_000
# How much longer than its deadline a write waits for Neo4j's answer (service/api/deadline.py).
COMMIT_GRACE_S = 0.5

DocumentIdPath = Annotated[
    str,
    Path(
        description="The document's id within its collection (slashes allowed).",
        examples=["climate/ag-2048.md"],
    ),
]
_ETAG_HEADER = {
    "ETag": {
        "description": "The document's version (its content hash), for If-Match.",
        "schema": {"type": "string"},
    }
}
CollectionQuery = Annotated[
    str,
    Query(
        pattern=COLLECTION_PATTERN,
        description="The document's collection.",
        examples=["sample"],
    ),
]


def _schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema(ref_template="#/components/schemas/{model}")


def _upload_schema() -> dict[str, Any]:
    """The multipart body: a ``file`` part of UTF-8 text and the fields of ``UploadFields``.

    The file is text, so it is described as a string (OpenAPI 3.1's way for a text part); a
    part with a file name may leave ``id`` out (the name is used), which the schema does not
    try to say: it asks for ``id``.
    """
    fields = _schema(UploadFields)
    properties: dict[str, Any] = {
        "file": {
            "type": "string",
            "contentMediaType": "text/plain",
            "pattern": VISIBLE_CHARACTER,
            **NO_NUL,
            "description": "The document: UTF-8 text of a text format without a NUL character "
            f"(a file part, or a plain field of at most 1 MB), or a file part of a file format "
            f"({names(_FILE_ONLY)}; a scan is read by OCR). The format is the `format` field "
            f"(text formats: {names(TEXT_FORMAT_NAMES)}), else the file name's suffix "
            f"({suffixes(TEXT_FORMAT_NAMES)}; for a file part also {suffixes(_FILE_ONLY)}), "
            "else the part's content type (a plain field is text).",
        }
    }
    for name, schema in fields["properties"].items():
        # Optional form fields are left out rather than sent as null.
        branches = [branch for branch in schema.pop("anyOf", []) if branch.get("type") != "null"]
        properties[name] = {**schema, **(branches[0] if branches else {})}
        properties[name].pop("default", None)
    return {
        "type": "object",
        "required": ["file", "id"],
        "additionalProperties": False,
        "properties": properties,
    }


_EXAMPLE_DOCUMENT = {
    "id": "notes/sensor.md",
    "text": "# Sensor note\n\nThe AG-2048 logs every 5 minutes. See [the gateway](gateway.md).",
    "format": "markdown",
    "tags": ["sensors"],
}
_REQUEST_BODY = {
    # The conditions of RFC 9110 §13.1, read by ``precondition`` (written out here, so that the
    # schema says a string and no null). Neither carries an example: a client
    # sending both examples at once (as schemathesis's examples phase does) asks for a document
    # that both exists and does not, which no graph satisfies (412, whatever the body).
    "parameters": [
        {
            "name": "If-Match",
            "in": "header",
            "required": False,
            "description": "Replace only this version of the document: the ETag a GET or an "
            'earlier write answered ("9f2c4e1a…"), or * for whichever is stored (RFC 9110 '
            "§13.1.1). A write that names the stored version may replace a document of any "
            "origin; naming another, or no entity tag at all, is refused with 412 (unless the "
            "stored version is already exactly what is sent: unchanged).",
            # No pattern, as for If-None-Match: the route judges every value (above).
            "schema": {"type": "string"},
        },
        {
            "name": "If-None-Match",
            "in": "header",
            "required": False,
            "description": "* : create only, refused with 412 when the document exists (RFC "
            "9110 §13.1.2); or entity tags the stored version must not have. A value that is "
            "neither names no version, so the condition holds.",
            # No pattern: any value is taken (what is no entity tag matches nothing), as the
            # description says, rather than some refused and some not.
            "schema": {"type": "string"},
        },
    ],
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {"schema": _schema(DocumentIn), "example": _EXAMPLE_DOCUMENT},
            "multipart/form-data": {
                # No `encoding`: a text part needs no content type of its own (a file part may
                # say a text format's media type, which picks the format).
                "schema": _upload_schema(),
                "example": {"file": "The AG-2048 sensor logs every 5 minutes.", "id": "note.txt"},
            },
        },
    },
}
_INGESTED = {
    "id": "notes/sensor.md",
    "collection": "default",
    "status": "written",
    "etag": "9f2c4e1a",
    "chunks": 1,
    "mentions": 1,
    "triples": 0,
    "links": 1,
}
_PAGE = {
    "collection": "sample",
    "total": 12,
    "offset": 0,
    "limit": 1,
    "items": [
        {
            "id": "climate/ag-2048.md",
            "title": "Aerograph AG-2048 wireless sensor",
            "source": "",
            "source_type": "markdown",
            "folder": "climate",
            "tags": ["sensors", "climate"],
            "n_tokens": 412,
            "chunks": 3,
        }
    ],
}
_DOCUMENT = {
    "collection": "default",
    "id": "notes/sensor.md",
    "title": "Sensor note",
    "source_type": "markdown",
    "folder": "notes",
    "tags": ["sensors"],
    "identifiers": ["AG-2048"],
    "n_tokens": 21,
    "content_hash": "9f2c…",
    "modified": None,
    "chunks": [
        {
            "id": "notes/sensor.md#0",
            "ordinal": 0,
            "text": "Sensor note\n\nThe AG-2048 sensor logs every 5 minutes. See the gateway.",
            "start": 0,
            "end": 70,
            "n_tokens": 21,
            "heading_slugs": ["sensor-note"],
        }
    ],
    "links": [
        {
            "chunk_id": "notes/sensor.md#0",
            "href": "gateway.md",
            "anchor_text": "the gateway",
            "target_document": "notes/gateway.md",
            "target_chunk": None,
            "resolved": False,
        }
    ],
    "entities": [{"id": "ag-2048", "name": "AG-2048", "type": "PRODUCT", "count": 1}],
}


def _example(value: object) -> dict[str, Any]:
    return {"content": {"application/json": {"example": value}}}


@router.post(
    "",
    response_model=IngestResult,
    status_code=201,
    openapi_extra=_REQUEST_BODY,
    responses={
        200: {
            "model": IngestResult,
            "description": "Replaced (an earlier version is gone) or unchanged (already in the "
            "graph).",
            "headers": _ETAG_HEADER,
        },
        201: {**_example(_INGESTED), "headers": _ETAG_HEADER},
        **problems(400, 403, 404, 409, 412, 413, 415, 422, 502, 503),
    },
)
async def add_document(
    request: Request,
    response: Response,
    runtime: RuntimeDep,
    access: AccessDep,
) -> IngestResult:
    """Add or replace one document of a collection, sent as JSON or as a multipart upload (a
    `file` part and the same fields, `tags` comma-separated):
    `curl -F file=@note.md -F collection=notes localhost:8000/documents`.

    201 when it is new to the collection, 200 when it replaced an earlier version or the graph
    already holds exactly this content; either way the `ETag` header (and `etag`) is the
    document's version. A write never replaces a document unseen: one whose id the collection
    holds with other content is refused with 409 (whose `ETag` is the stored version's) unless
    it names that version in `If-Match`, or `replace` is true, or both came from the same `uri`.
    So a second upload of another `README.md` is refused until the caller says which to keep.
    `If-Match` naming another version, or `If-None-Match: *` for a document that exists, is
    refused with 412. A document whose text is not
    UTF-8 (a file may also be UTF-16 or UTF-32 with its byte-order mark), holds a NUL character
    or renders to nothing (Markdown or HTML without text) is refused with 400, as is a
    JSON body that is not valid JSON; a body that is neither JSON nor multipart with 415. A
    PDF, Word or image file larger than max_file_bytes is refused with 413; one with more pages
    than max_pages, or corrupt, or encrypted, with 422; a scan when Tesseract is not installed
    with 503. Nothing is written for a document that is refused.

    The document's waits on Neo4j end by the request deadline
    (`ANCHORGRAPH_REQUEST_DEADLINE_S`; reading and embedding it do not count): past it, 504,
    and nothing of it is written.
    """
    max_bytes = runtime.settings.max_document_bytes
    media_type = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    # Receiving and reading the file (OCR included) do not count against the request's
    # deadline, which bounds the waits on Neo4j (service/graph/deadline.py).
    with paused():
        if media_type == "multipart/form-data":
            files = FileReading.configured(runtime.settings)
            document, collection, replace = await _from_upload(request, max_bytes, files)
        elif media_type in {"", "application/json"} or media_type.endswith("+json"):
            document, collection, replace = _from_json(await request.body(), max_bytes)
        else:
            raise UnsupportedFormat(
                f"A document comes as application/json or multipart/form-data, not {media_type}."
            )
    writable(access, collection)
    conditions = precondition(request.headers.get("if-match"), request.headers.get("if-none-match"))
    ingestor = runtime.ingestor
    stats = await answered_by(
        lambda: ingestor.ingest(
            [document],
            collection=collection,
            replace=replace,
            preconditions={document.id: conditions} if conditions else None,
        ),
        grace_s=COMMIT_GRACE_S,
    )
    if stats.refused:
        raise _refused(stats.refused[0], collection)
    status = "replaced" if stats.replaced else "written" if stats.written else "unchanged"
    if status != "written":
        response.status_code = 200
    etag = ingestor.etag(document)
    response.headers["ETag"] = quoted_etag(etag)
    return IngestResult(
        id=document.id,
        collection=collection,
        status=status,
        etag=etag,
        chunks=stats.chunks,
        mentions=stats.mentions,
        triples=stats.triples,
        links=stats.links,
    )


def _refused(refusal: Refusal, collection: str) -> Conflict:
    """The answer to a write the ingest refused: 412 for a failed precondition, else 409 with
    what the caller may send to go ahead."""
    message = refusal.message(collection)
    if refusal.reason is Refused.PRECONDITION:
        return PreconditionFailed(message + ".", etag=refusal.stored_etag)
    if refusal.reason is Refused.STORED_AS:
        return Conflict(message + "; send replace: true to move it.")
    return Conflict(
        f'{message}; send If-Match: "{refusal.stored_etag}" (its ETag) or replace: true to '
        "replace it, or give this one another id.",
        etag=refusal.stored_etag,
    )


@router.get(
    "",
    response_model=DocumentPage,
    responses={200: _example(_PAGE), **problems(422, 503)},
)
async def list_documents(
    runtime: RuntimeDep,
    access: AccessDep,
    collection: CollectionQuery = DEFAULT_COLLECTION,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET, examples=[0])] = 0,
    limit: Annotated[int, Query(ge=1, le=500, examples=[50])] = 50,
) -> DocumentPage:
    """A page of a collection's documents, ordered by id (an empty page for a collection
    without documents)."""
    parameters = {"collection": readable(access, collection), "offset": offset, "limit": limit}
    page = await answered_by(
        lambda: runtime.graph.model(Cypher.LIST_DOCUMENTS, DocumentPage, parameters)
    )
    assert page is not None  # the statement always returns its one row
    return page


@router.get(
    "/{document_id:path}",
    response_model=DocumentOut,
    responses={200: {**_example(_DOCUMENT), "headers": _ETAG_HEADER}, **problems(404, 503)},
)
async def get_document(
    document_id: DocumentIdPath,
    runtime: RuntimeDep,
    access: AccessDep,
    response: Response,
    collection: CollectionQuery = DEFAULT_COLLECTION,
) -> DocumentOut:
    """A document with its chunks, outgoing links and mentioned entities; its `ETag` header is
    its version (`content_hash`), which a write names in `If-Match` to replace it."""
    document = None
    if access.can_read(collection):
        key = scoped(collection, document_id)
        parameters = {"collection": collection, "id": key}
        document = await answered_by(
            lambda: runtime.graph.model(Cypher.GET_DOCUMENT, DocumentOut, parameters)
        )
    if document is None:
        raise NotFound(_no_document(document_id, collection))
    if document.content_hash:
        response.headers["ETag"] = quoted_etag(document.content_hash)
    return document


@router.delete("/{document_id:path}", status_code=204, responses=problems(403, 404, 503))
def delete_document(
    document_id: DocumentIdPath,
    runtime: RuntimeDep,
    access: AccessDep,
    collection: CollectionQuery = DEFAULT_COLLECTION,
) -> Response:
    """Remove a document, its chunks and the entities nothing else mentions."""
    if not access.can_read(collection) and not access.can_write(collection):
        raise NotFound(_no_document(document_id, collection))
    writable(access, collection)
    if runtime.ingestor.delete([document_id], collection=collection) == 0:
        raise NotFound(_no_document(document_id, collection))
    return Response(status_code=204)


def _no_document(document_id: str, collection: str) -> str:
    """The one answer for a document that does not exist and for one the key may not see."""
    return f"No document with id {document_id!r} in collection {collection!r}."


# --- request bodies -----------------------------------------------------------------------------
def _invalid(error: ValidationError) -> RequestValidationError:
    """Pydantic's errors as FastAPI's, located in the body like those of any other route."""
    return RequestValidationError(
        [{**entry, "loc": ("body", *entry["loc"])} for entry in error.errors()]
    )


def _from_json(body: bytes, max_bytes: int) -> tuple[SourceDocument, str, bool]:
    """The document, its collection and whether it may replace another origin's. The body is
    read as FastAPI reads the body of every other route (``json.loads``, then the model), so
    that a missing body, one that is not JSON and one that does not match the schema get the
    same answers here as there."""
    if not body:
        raise RequestValidationError(
            [{"type": "missing", "loc": ("body",), "msg": "Field required", "input": None}]
        )
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as error:  # not JSON, not UTF-8, nested too deeply
        raise unreadable_json(error) from None
    try:
        payload = DocumentIn.model_validate(data)
    except ValidationError as error:
        raise _invalid(error) from error
    document = read_bytes(
        payload.text.encode("utf-8"),
        doc_id=payload.id,
        fmt=payload.format,
        title=payload.title,
        uri=payload.uri,
        source=payload.source,
        source_type=payload.source_type,
        folder=payload.folder or _folder_of(payload.id),
        tags=payload.tags,
        max_bytes=max_bytes,
    )
    if payload.language is not None:
        document = replace(document, language=payload.language)
    return document, payload.collection, payload.replace


async def _from_upload(
    request: Request, max_bytes: int, files: FileReading
) -> tuple[SourceDocument, str, bool]:
    """The uploaded document, its collection and whether it may replace another origin's."""
    # The context closes the spooled upload files when we are done with them.
    async with request.form() as form:
        part = form.get("file")
        file_part = isinstance(part, UploadFile)
        if isinstance(part, UploadFile):
            name, part_type = part.filename or "", part.content_type or ""
            # One byte more than the larger limit is enough to know the file is too large.
            data = await part.read(max(max_bytes, files.max_bytes) + 1)
        elif isinstance(part, str):  # a part without a file name: text
            name, part_type, data = "", "text/plain", part.encode("utf-8")
        else:
            raise InvalidInput("A multipart upload needs a 'file' part.")
        given = {key: value for key, value in form.items() if key != "file"}
    if name and not given.get("id"):
        given["id"] = name
    try:
        fields = UploadFields.model_validate(given)
    except ValidationError as error:
        raise _invalid(error) from error
    if fields.id is None:
        raise InvalidInput("The upload has no file name; give an 'id' field.")
    doc_id = fields.id
    known = _FILE_FORMATS if file_part else _TEXT_FORMATS
    fmt = fields.format or _upload_format(name or doc_id, part_type, known)
    # Off the event loop: a PDF takes a while to read, and a scan seconds a page.
    document = await run_in_threadpool(
        lambda: read_bytes(
            data,
            doc_id=doc_id,
            fmt=fmt,
            title=fields.title,
            source=fields.source,
            source_type=fields.source_type,
            folder=fields.folder or _folder_of(doc_id),
            tags=fields.tag_list(),
            max_bytes=max_bytes,
            files=files,
        )
    )
    if fields.language is not None:
        document = replace(document, language=fields.language)
    return document, fields.collection, fields.replace == "true"


def _upload_format(name: str, part_type: str, known: frozenset[str]) -> str:
    """One of ``known``: by the name's suffix, else by the part's content type
    (``anchorgraph.loaders.formats``)."""
    try:
        by_name: str | None = detect_format(name)
    except UnsupportedFormat:
        by_name = None
    if by_name is not None and by_name in known:
        return by_name
    by_type = format_of_media_type(part_type)
    if by_type is None or by_type.name not in known:
        readable = suffixes(n for n in DOCUMENT_FORMAT_NAMES if n in known)
        raise UnsupportedFormat(
            f"{name}: no reader for this file; send a {readable} file, a part with one of "
            "their content types, or a 'format' field."
        )
    return by_type.name


def _folder_of(doc_id: str) -> str:
    """An id shaped like a path ("notes/a.md") files the document in that folder ("notes")."""
    return "" if "://" in doc_id else posixpath.dirname(doc_id)
