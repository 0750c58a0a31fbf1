"""/ingest/jobs: ingest a server folder, a URL or uploaded files in the background, follow the job's
progress, cancel it (service/jobs.py, docs/jobs.md)."""

from __future__ import annotations

import json
import shutil
import uuid
from datetime import datetime
from typing import Annotated, Any, cast

from fastapi import APIRouter, Path, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.datastructures import UploadFile

from anchorgraph.api.deps import AccessDep, RuntimeDep, writable
from anchorgraph.api.errors import problems, unreadable_json
from anchorgraph.errors import InvalidInput, UnsupportedFormat
from anchorgraph.jobs import JobRunner, allowed_location, spool_uploads
from anchorgraph.scope import COLLECTION_PATTERN, DEFAULT_COLLECTION

router = APIRouter(prefix="/ingest/jobs", tags=["ingest jobs"])

JobIdPath = Annotated[str, Path(pattern=r"^[0-9a-f]{32}$", description="The job's id.")]


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


class JobOut(BaseModel):
    """A job's state and progress."""

    id: str
    url: str = Field(description="Where to follow it: GET, and DELETE to cancel.")
    collection: str
    source: str
    state: str = Field(description="queued, running, done, failed or cancelled.")
    listed: int = Field(description="Files the source lists (the job's files, for an upload).")
    read: int = Field(description="Files read so far, skipped ones included.")
    written: int
    unchanged: int
    refused: int = Field(description="Documents not written: another origin holds their id.")
    skipped: int = Field(description="Files no reader took (format, size, a bad file).")
    chunks: int
    seconds: float
    chunks_per_s: float
    eta_s: float | None = Field(description="Seconds left at the rate so far; null: unknown.")
    refusals: list[str] = Field(description="Why each refused document was (the first 100).")
    skips: list[str] = Field(description="Why each skipped file was (the first 100).")
    error: str = Field(description="Why the job failed; empty otherwise.")
    created: datetime
    updated: datetime


_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {"schema": JobIn.model_json_schema()},
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["files"],
                    "properties": {
                        "files": {
                            "type": "array",
                            "items": {"type": "string", "format": "binary"},
                            "description": "Files to ingest; a .zip is unpacked.",
                        },
                        "collection": {"type": "string", "pattern": COLLECTION_PATTERN},
                        "replace": {"type": "string", "enum": ["true", "false"]},
                    },
                }
            },
        },
    }
}


def runner(request: Request) -> JobRunner:
    return cast(JobRunner, request.app.state.jobs)


def job_out(request: Request, job: dict[str, Any]) -> JobOut:
    seconds = float(job.get("seconds") or 0.0)
    rate = job["chunks"] / seconds if seconds > 0 else 0.0
    files_rate = job["read"] / seconds if seconds > 0 else 0.0
    left = max(0, job["listed"] - job["read"])
    eta = left / files_rate if files_rate > 0 and job["state"] == "running" else None
    fields = {k: v for k, v in job.items() if k in JobOut.model_fields}
    return JobOut.model_validate(
        {
            **fields,
            "url": str(request.url_for("get_job", job_id=job["id"])),
            "chunks_per_s": rate,
            "eta_s": eta,
            "created": job["created"].to_native(),
            "updated": job["updated"].to_native(),
        }
    )


@router.post(
    "",
    status_code=202,
    response_model=JobOut,
    openapi_extra=_BODY,
    responses=problems(400, 403, 404, 409, 413, 415, 422, 503),
)
async def create_job(
    request: Request, response: Response, runtime: RuntimeDep, access: AccessDep
) -> JobOut:
    """Start an ingest job: JSON `{"source": ..., "collection": ...}` for a server folder or a URL
    under the prefixes the API allows (`ANCHORGRAPH_INGEST_JOB_PREFIXES`; 403 otherwise), or a
    multipart upload of several `files` (a `.zip` is unpacked):
    `curl -F files=@a.pdf -F files=@b.md -F collection=notes localhost:8000/ingest/jobs`.

    202 with the job and its URL (also in `Location`). One job writes into a collection at a
    time: a second is refused with 409 (`job-running`) while one is queued or running."""
    jobs = runner(request)
    media_type = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if media_type == "multipart/form-data":
        collection, replace, uploads = await _uploads(request)
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


@router.get("/{job_id}", response_model=JobOut, responses=problems(403, 404, 503))
async def get_job(job_id: JobIdPath, request: Request, access: AccessDep) -> JobOut:
    """The job's state and progress: files listed, read, written, unchanged, refused and
    skipped with their reasons, chunks, the rate and the time left."""
    job = await run_in_threadpool(runner(request).get, job_id)
    writable(access, job["collection"])
    return job_out(request, job)


@router.delete("/{job_id}", response_model=JobOut, responses=problems(403, 404, 503))
async def cancel_job(job_id: JobIdPath, request: Request, access: AccessDep) -> JobOut:
    """Cancel the job: it stops after the batch it is writing (each batch is one transaction,
    so nothing is half-written) and its state becomes `cancelled`; a finished job is left as it
    is. The answer is the job as it is now."""
    jobs = runner(request)
    writable(access, (await run_in_threadpool(jobs.get, job_id))["collection"])
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
    try:
        return JobIn.model_validate(data)
    except ValidationError as error:
        raise RequestValidationError(
            [{**entry, "loc": ("body", *entry["loc"])} for entry in error.errors()]
        ) from error


async def _uploads(request: Request) -> tuple[str, bool, list[tuple[str, bytes]]]:
    async with request.form() as form:
        files = [
            (part.filename or "", await part.read())
            for part in form.getlist("files")
            if isinstance(part, UploadFile)
        ]
        collection = str(form.get("collection") or DEFAULT_COLLECTION)
        replace = form.get("replace") == "true"
    if not files:
        raise InvalidInput("A multipart job needs one or more 'files' parts.")
    return collection, replace, files
