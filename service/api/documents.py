"""/documents: add (JSON or file upload), read, list and delete documents."""

from __future__ import annotations

import posixpath
from typing import Annotated

from fastapi import APIRouter, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError
from starlette.datastructures import UploadFile

from loaders.model import SourceDocument
from loaders.read import detect_format, read_bytes
from service.api.deps import RuntimeDep
from service.api.schemas import (
    DocumentIn,
    DocumentOut,
    DocumentPage,
    IngestResult,
)
from service.errors import InvalidInput, NotFound
from service.graph.queries import Query as Cypher

router = APIRouter(prefix="/documents", tags=["documents"])

_UPLOAD_FIELDS = {
    "file": {"type": "string", "format": "binary"},
    "id": {"type": "string", "description": "Default: the file name."},
    "format": {"type": "string", "description": "text, markdown or html; default: by name."},
    "title": {"type": "string"},
    "source": {"type": "string"},
    "source_type": {"type": "string"},
    "folder": {"type": "string"},
    "tags": {"type": "string", "description": "Comma-separated."},
}
_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/DocumentIn"}},
            "multipart/form-data": {
                "schema": {"type": "object", "required": ["file"], "properties": _UPLOAD_FIELDS}
            },
        },
    }
}


@router.post(
    "",
    response_model=IngestResult,
    status_code=201,
    openapi_extra=_BODY,
    responses={200: {"model": IngestResult, "description": "Unchanged: already in the graph."}},
)
async def add_document(request: Request, response: Response, runtime: RuntimeDep) -> IngestResult:
    """Add or replace one document, sent as JSON or as a multipart file upload.

    201 when it was written, 200 when the graph already holds exactly this content.
    """
    max_bytes = runtime.settings.max_document_bytes
    if request.headers.get("content-type", "").startswith("multipart/form-data"):
        document = await _from_upload(request, max_bytes)
    else:
        document = _from_json(await request.body(), max_bytes)
    stats = await run_in_threadpool(runtime.ingestor.ingest, [document])
    if not stats.written:
        response.status_code = 200
    return IngestResult(
        id=document.id,
        status="written" if stats.written else "unchanged",
        chunks=stats.chunks,
        mentions=stats.mentions,
        triples=stats.triples,
        links=stats.links,
    )


@router.get("", response_model=DocumentPage)
def list_documents(
    runtime: RuntimeDep,
    offset: Annotated[int, Query(ge=0)] = 0,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
) -> DocumentPage:
    """A page of documents, ordered by id."""
    page = runtime.graph.model(
        Cypher.LIST_DOCUMENTS, DocumentPage, {"offset": offset, "limit": limit}
    )
    assert page is not None  # the statement always returns its one row
    return page


@router.get("/{document_id:path}", response_model=DocumentOut)
def get_document(document_id: str, runtime: RuntimeDep) -> DocumentOut:
    """A document with its chunks, outgoing links and mentioned entities."""
    document = runtime.graph.model(Cypher.GET_DOCUMENT, DocumentOut, {"id": document_id})
    if document is None:
        raise NotFound(f"No document with id {document_id!r}")
    return document


@router.delete("/{document_id:path}", status_code=204)
def delete_document(document_id: str, runtime: RuntimeDep) -> Response:
    """Remove a document, its chunks and the entities nothing else mentions."""
    if runtime.ingestor.delete([document_id]) == 0:
        raise NotFound(f"No document with id {document_id!r}")
    return Response(status_code=204)


# --- request bodies -----------------------------------------------------------------------------
def _from_json(body: bytes, max_bytes: int) -> SourceDocument:
    try:
        payload = DocumentIn.model_validate_json(body)
    except ValidationError as error:
        raise RequestValidationError(error.errors()) from error
    return read_bytes(
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


async def _from_upload(request: Request, max_bytes: int) -> SourceDocument:
    # The context closes the spooled upload files when we are done with them.
    async with request.form() as form:
        upload = form.get("file")
        if not isinstance(upload, UploadFile):
            raise InvalidInput("A multipart upload needs a 'file' part.")
        fields = {key: value for key, value in form.items() if isinstance(value, str)}
        name = upload.filename or ""
        # One byte more than allowed is enough to know the file is too large.
        data = await upload.read(max_bytes + 1)
    doc_id = fields.get("id") or name
    if not doc_id:
        raise InvalidInput("The upload has no file name; give an 'id' field.")
    return read_bytes(
        data,
        doc_id=doc_id,
        fmt=fields.get("format") or detect_format(name or doc_id),
        title=fields.get("title", ""),
        source=fields.get("source", ""),
        source_type=fields.get("source_type", ""),
        folder=fields.get("folder") or _folder_of(doc_id),
        tags=[tag.strip() for tag in fields.get("tags", "").split(",") if tag.strip()],
        max_bytes=max_bytes,
    )


def _folder_of(doc_id: str) -> str:
    """An id shaped like a path ("notes/a.md") files the document in that folder ("notes")."""
    return "" if "://" in doc_id else posixpath.dirname(doc_id)
