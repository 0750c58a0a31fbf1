"""/ingest/jobs: ingest a server folder, a URL or uploaded files in the background, follow the job's
progress, cancel it (service/jobs.py, docs/jobs.md)."""

from __future__ import annotations

import json
import shutil
import uuid
from typing import Annotated, Any, Literal, TypeVar, cast

from fastapi import APIRouter, Path, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.datastructures import UploadFile

from anchorgraph.api.deps import AccessDep, RuntimeDep, writable
from anchorgraph.api.errors import (
    FORBIDDEN,
    INVALID_INPUT,
    JOB_RUNNING,
    NOT_FOUND,
    Said,
    problems,
    unreadable_json,
)
from anchorgraph.errors import InvalidInput, UnsupportedFormat
from anchorgraph.jobs import Job, JobRunner, JobState, allowed_location, spool_uploads
from anchorgraph.scope import COLLECTION_PATTERN, DEFAULT_COLLECTION

Fields = TypeVar("Fields", bound=BaseModel)

router = APIRouter(prefix="/ingest/jobs", tags=["ingest jobs"])

JobIdPath = Annotated[
    str,
    Path(
        pattern=r"^[0-9a-f]{32}$",
        description="The job's id.",
        examples=["4c0f9a2b5d6e47f8a1b2c3d4e5f60718"],
    ),
]


class JobUploadFields(BaseModel):
    """The fields of a multipart job beside its files."""

    collection: str = Field(default=DEFAULT_COLLECTION, pattern=COLLECTION_PATTERN)
    replace: Literal["true", "false"] = Field(
        default="false",
        description="true: replace documents of another origin; otherwise they are refused "
        "and listed (nothing is replaced unseen).",
    )


class JobIn(BaseModel):
    """A job reading a server folder or a URL under the prefixes the API allows."""

    model_config = ConfigDict(extra="forbid")

    source: str = Field(
        min_length=1,
        max_length=4096,
        pattern=r"^[^\x00]+$",
        description="A folder or file on the server, or a URL (s3://bucket/prefix), under "
        "ANCHORGRAPH_INGEST_JOB_PREFIXES.",
        examples=["s3://archive/letters/"],
    )
    collection: str = Field(default=DEFAULT_COLLECTION, pattern=COLLECTION_PATTERN)
    replace: bool = Field(
        default=False,
        description="Replace documents of the collection that came from another origin; "
        "otherwise they are refused and listed (nothing is replaced unseen).",
    )


class JobOut(Job):
    """A job's state and progress, with where to follow it and its rate."""

    url: str = Field(description="Where to follow it: GET, and DELETE to cancel.")
    chunks_per_s: float
    eta_s: float | None = Field(description="Seconds left at the rate so far; null: unknown.")

    @classmethod
    def of(cls, job: Job, url: str) -> JobOut:
        seconds = job.seconds
        files_rate = job.read / seconds if seconds > 0 else 0.0
        left = max(0, job.listed - job.read)
        running = job.state is JobState.RUNNING
        return cls(
            **job.model_dump(),
            url=url,
            chunks_per_s=job.chunks / seconds if seconds > 0 else 0.0,
            eta_s=left / files_rate if files_rate > 0 and running else None,
        )


def _form_fields(model: type[BaseModel]) -> dict[str, Any]:
    """The model's fields as multipart form fields: strings, none of them null."""
    properties: dict[str, Any] = model.model_json_schema()["properties"]
    for schema in properties.values():
        schema.pop("default", None)
        schema.pop("title", None)
    return properties


_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {
                "schema": JobIn.model_json_schema(),
                "example": {"source": "/srv/archive/letters", "collection": "letters"},
            },
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["files"],
                    "properties": {
                        "files": {
                            "type": "array",
                            "items": {"type": "string", "format": "binary"},
                            "minItems": 1,
                            "description": "Files to ingest; a .zip is unpacked. Of two files "
                            "of one name, the later is kept.",
                        },
                        **_form_fields(JobUploadFields),
                    },
                },
                "example": {"files": ["# Letter\n\nDear director."], "collection": "letters"},
            },
        },
    }
}


def runner(request: Request) -> JobRunner:
    return cast(JobRunner, request.app.state.jobs)


def job_out(request: Request, job: Job) -> JobOut:
    return JobOut.of(job, str(request.url_for("get_job", job_id=job.id)))


_JOB_EXAMPLE = {
    "id": "4c0f9a2b5d6e47f8a1b2c3d4e5f60718",
    "url": "http://localhost:8000/ingest/jobs/4c0f9a2b5d6e47f8a1b2c3d4e5f60718",
    "collection": "letters",
    "source": "/srv/archive/letters",
    "files": [],
    "replace": False,
    "state": "running",
    "listed": 130,
    "read": 64,
    "written": 61,
    "unchanged": 1,
    "refused": 1,
    "skipped": 1,
    "chunks": 412,
    "seconds": 21.4,
    "chunks_per_s": 19.3,
    "eta_s": 22.1,
    "refusals": [
        {
            "id": "a.md",
            "reason": "other-origin",
            "message": "'a.md' in collection 'letters' came from a request without a uri; "
            "file:///srv/archive/letters/a.md has the same id and would replace it",
        }
    ],
    "skips": ["scan.tiff: Tesseract is not installed"],
    "error": "",
    "created": "2026-12-07T10:00:00Z",
    "updated": "2026-12-07T10:00:21Z",
}
_JOB = {"content": {"application/json": {"example": _JOB_EXAMPLE}}}
_URL = {"type": "string"}
_SUBMIT_PROBLEMS = problems(
    400,
    403,
    404,
    409,
    413,
    415,
    422,
    503,
    said={
        400: Said(
            "A body that is not valid JSON, a multipart request without files, a file name "
            "that leaves its folder, or a .zip that is no zip archive.",
            INVALID_INPUT,
            "The request body is not valid JSON: Expecting ',' delimiter (line 1, column 18).",
        ),
        403: Said(
            "The source lies under none of the folders and URLs this API may ingest from "
            "(ANCHORGRAPH_INGEST_JOB_PREFIXES), or the key may read the collection but not "
            "write it.",
            FORBIDDEN,
            "'/etc' is under none of the folders and URLs this API may ingest from "
            "(ANCHORGRAPH_INGEST_JOB_PREFIXES: none set); upload the files instead.",
        ),
        404: Said(
            "No such file or folder under the allowed prefixes, or a collection this key may "
            "not see.",
            NOT_FOUND,
            "No file or folder '/srv/archive/letterz' on the server.",
        ),
        409: Said(
            "A job is queued or running in the collection already (job-running): one job writes "
            "into a collection at a time. Wait for it, or cancel it.",
            JOB_RUNNING,
            "Job 4c0f9a… is writing into collection 'letters'; this one would see its documents "
            "half-written. Wait for it (GET /ingest/jobs/4c0f9a…) or cancel it.",
        ),
    },
)
_JOB_PROBLEMS = problems(
    403,
    404,
    422,
    503,
    said={
        404: Said(
            "No ingest job with this id, or one in a collection this key may not see.",
            NOT_FOUND,
            "No ingest job '4c0f9a2b5d6e47f8a1b2c3d4e5f60718'.",
        )
    },
)


@router.post(
    "",
    status_code=202,
    response_model=JobOut,
    openapi_extra=_BODY,
    responses={
        202: {**_JOB, "headers": {"Location": {"description": "The job's URL.", "schema": _URL}}},
        **_SUBMIT_PROBLEMS,
    },
)
async def create_job(
    request: Request, response: Response, runtime: RuntimeDep, access: AccessDep
) -> JobOut:
    """Start an ingest job: JSON `{"source": ..., "collection": ...}` for a server folder or a URL
    under the prefixes the API allows (`ANCHORGRAPH_INGEST_JOB_PREFIXES`; 403 otherwise), or a
    multipart upload of several `files` (a `.zip` is unpacked):
    `curl -F files=@a.pdf -F files=@b.md -F collection=notes localhost:8000/ingest/jobs`.

    202 with the job and its URL (also in `Location`). One job writes into a collection at a
    time: a second is refused with 409 (`job-running`) while one is queued or running. The job
    replaces nothing unseen: a changed file read again from the same folder or URL updates its
    document, and one whose id the collection holds from another origin (an uploaded file has
    none, as an upload to POST /documents) is listed in its `refusals` and not written, unless
    `replace` is true."""
    jobs = runner(request)
    media_type = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if media_type == "multipart/form-data":
        fields, uploads = await _uploads(request)
        collection, replace = fields.collection, fields.replace == "true"
        writable(access, collection)
        folder = jobs.uploads(collection)
        # Staged in a hidden folder (listings leave it out) until the job is recorded.
        staged = folder / f".incoming-{uuid.uuid4().hex}"
        limit = runtime.settings.max_file_bytes
        try:
            names = await run_in_threadpool(spool_uploads, staged, uploads, limit)
        except BaseException:
            shutil.rmtree(staged, ignore_errors=True)
            raise
        job_id = await run_in_threadpool(
            lambda: jobs.submit(
                collection, str(folder), replace=replace, files=names, staged=staged
            )
        )
    elif media_type in {"", "application/json"}:
        spec = _job_in(await request.body())
        writable(access, spec.collection)
        location = allowed_location(runtime.settings.ingest_job_prefixes, spec.source)
        job_id = await run_in_threadpool(
            lambda: jobs.submit(spec.collection, location, replace=spec.replace)
        )
    else:
        raise UnsupportedFormat(
            f"A job comes as application/json or multipart/form-data, not {media_type}."
        )
    out = job_out(request, await run_in_threadpool(jobs.get, job_id))
    response.headers["Location"] = out.url
    return out


@router.get("/{job_id}", response_model=JobOut, responses={200: _JOB, **_JOB_PROBLEMS})
async def get_job(job_id: JobIdPath, request: Request, access: AccessDep) -> JobOut:
    """The job's state and progress: files listed, read, written, unchanged, refused and
    skipped with their reasons, chunks, the rate and the time left."""
    job = await run_in_threadpool(runner(request).get, job_id)
    writable(access, job.collection)
    return job_out(request, job)


@router.delete("/{job_id}", response_model=JobOut, responses={200: _JOB, **_JOB_PROBLEMS})
async def cancel_job(job_id: JobIdPath, request: Request, access: AccessDep) -> JobOut:
    """Cancel the job: it stops after the batch it is writing (each batch is one transaction,
    so nothing is half-written) and its state becomes `cancelled`; a finished job is left as it
    is. The answer is the job as it is now."""
    jobs = runner(request)
    writable(access, (await run_in_threadpool(jobs.get, job_id)).collection)
    await run_in_threadpool(jobs.cancel, job_id)
    return job_out(request, await run_in_threadpool(jobs.get, job_id))


def _job_in(body: bytes) -> JobIn:
    """The body read as FastAPI reads every route's (``json.loads``, then the model), so that
    its faults get the same answers as elsewhere (``documents._from_json``)."""
    if not body:
        raise RequestValidationError(
            [{"type": "missing", "loc": ("body",), "msg": "Field required", "input": None}]
        )
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as error:
        raise unreadable_json(error) from None
    return _validated(JobIn, data)


async def _uploads(request: Request) -> tuple[JobUploadFields, list[tuple[str, bytes]]]:
    """The upload's fields and its files, as (name, content).

    Raises:
        InvalidInput: no ``files`` part, or one that is a plain field rather than a file.
    """
    async with request.form() as form:
        parts = form.getlist("files")
        files = [(p.filename or "", await p.read()) for p in parts if isinstance(p, UploadFile)]
        given = {name: form[name] for name in JobUploadFields.model_fields if name in form}
    fields = _validated(JobUploadFields, given)
    if not files or len(files) < len(parts):
        raise InvalidInput(
            "A multipart job needs one or more 'files' parts, each a file (a part with a "
            "filename in its Content-Disposition)."
        )
    return fields, files


def _validated(model: type[Fields], data: object) -> Fields:
    """``data`` read into ``model``; a mismatch is the 422 of every route, naming the body's
    fields."""
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise RequestValidationError(
            [{**entry, "loc": ("body", *entry["loc"])} for entry in error.errors()]
        ) from error
