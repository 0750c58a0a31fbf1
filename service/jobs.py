"""Ingest jobs: a folder, a bucket prefix or uploaded files ingested in the background of the API,
with progress, cancel and resume (``/ingest/jobs``, docs/jobs.md).

A job is an ``(:IngestJob)`` node (cypher/jobs/): its source, collection, state (``queued`` →
``running`` → ``done`` | ``failed`` | ``cancelled``) and progress, written after every batch. One
job writes into a collection at a time: a second is refused (409 ``job-running``), since two
writers of one collection would each see the other's documents as changed or refused.

The runner ingests the source like ``anchorgraph ingest`` (``ingestion.reading`` then
``Ingestor.ingest``), one transaction per batch. After each batch it records the progress and
reads whether a cancel was asked; a cancel stops it there, between batches, so every document is
written whole or not at all. A job runs in one API process of those serving the graph, the one
whose runner claimed it (``JobRunner``). When the API stops, the job stays ``running`` in the
graph, released, and the next runner to look resumes it (``resume``); a crashed API's jobs are
taken over once its claim's lease has passed. The ingest skips what is written already by
content hash, so nothing is written twice. Uploaded files are kept under
``data_dir/uploads/<collection>/`` until the job ends, so that a resumed job can read them
again, and re-uploading a file keeps its document's ``uri``, as the "nothing replaced unseen"
rule needs (docs/collections.md).
"""

from __future__ import annotations

import logging
import shutil
import threading
import time
import uuid
import zipfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from datetime import datetime
from enum import StrEnum
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, field_validator

from anchorgraph.errors import (
    AnchorgraphError,
    DocumentTooLarge,
    Forbidden,
    InvalidInput,
    JobRunning,
    NotFound,
)
from anchorgraph.graph.gateway import row_values, rows_in, single_in
from anchorgraph.graph.queries import Query
from anchorgraph.graph.rows import JobProgressRow
from anchorgraph.loaders.graph_writer import lock_collection
from anchorgraph.loaders.ingest import Refusal, Refused
from anchorgraph.scope import collection_name

if TYPE_CHECKING:
    import neo4j

    from anchorgraph.loaders.ingest import IngestStats
    from anchorgraph.loaders.model import SourceDocument
    from anchorgraph.loaders.read import Skipped
    from anchorgraph.runtime import Runtime

log = logging.getLogger(__name__)

# At most this many refusals and skipped files are kept on the job; the counts are whole.
KEPT_REASONS = 100


class JobState(StrEnum):
    """Where a job is: ``queued`` → ``running`` → ``done`` | ``failed`` | ``cancelled``."""

    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"

    @property
    def unfinished(self) -> bool:
        return self in (JobState.QUEUED, JobState.RUNNING)


class Cancelled(Exception):
    """Raised from the progress callback between batches: the job was asked to stop."""


class Lost(Exception):
    """Raised when a runner's write finds that its job is no longer its own: it renewed nothing
    for longer than its lease and another runner took the job over (or the job was deleted)."""


class Stopping(Exception):
    """Raised from the progress callback between batches: the API is stopping; the job stays
    ``running``, released, and the next runner to look resumes it."""


class JobRefusal(BaseModel):
    """A document a job did not write, and why (``loaders.ingest.Refusal``): the collection
    holds its id from another origin (``other-origin``), or holds its file under another id
    (``stored-as``). Nothing is replaced unseen; the job's ``replace`` replaces them."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(description="The document's id in the collection.")
    reason: Refused
    message: str = Field(description="Both origins, and what to do.")

    @classmethod
    def of(cls, refusal: Refusal, collection: str) -> JobRefusal:
        return cls(id=refusal.id, reason=refusal.reason, message=refusal.message(collection))


class JobUpdate(JobProgressRow):
    """What a job's runner records, after each batch and at its end (cypher/jobs/set_job)."""

    state: str
    error: str


class Progress(BaseModel):
    """What a job did so far; ``listed`` is known once its source is listed."""

    listed: int = Field(
        default=0, description="Files the source lists (the job's files, for an upload)."
    )
    read: int = Field(default=0, description="Files read so far, skipped ones included.")
    written: int = Field(default=0, description="Documents written: new, or changed ones.")
    unchanged: int = Field(default=0, description="Documents the graph holds as they are.")
    refused: int = Field(
        default=0, description="Documents not written, which would replace others unseen."
    )
    skipped: int = Field(default=0, description="Files no reader took (format, size, damage).")
    chunks: int = 0
    seconds: float = Field(default=0.0, description="Seconds of ingest so far.")
    refusals: list[JobRefusal] = Field(
        default=[], description=f"Each refused document and why (the first {KEPT_REASONS})."
    )
    skips: list[str] = Field(
        default=[], description=f"Each skipped file and why (the first {KEPT_REASONS})."
    )

    @field_validator("refusals", mode="before")
    @classmethod
    def _stored_refusals(cls, refusals: object) -> object:
        """As stored, each refusal is its JSON (``JobProgressRow``)."""
        if isinstance(refusals, list):
            return [
                JobRefusal.model_validate_json(r) if isinstance(r, str) else r for r in refusals
            ]
        return refusals

    def stored(self) -> JobProgressRow:
        return JobProgressRow(
            listed=self.listed,
            read=self.read,
            written=self.written,
            unchanged=self.unchanged,
            refused=self.refused,
            skipped=self.skipped,
            chunks=self.chunks,
            seconds=self.seconds,
            refusals=[r.model_dump_json() for r in self.refusals[:KEPT_REASONS]],
            skips=self.skips[:KEPT_REASONS],
        )


class Job(Progress):
    """An ingest job as its ``(:IngestJob)`` node holds it."""

    id: str
    collection: str
    source: str = Field(description="The folder or URL read; for an upload, where its files wait.")
    files: list[str] = Field(
        default=[], description="An upload's files, relative to source; empty: all of source."
    )
    replace: bool = Field(
        default=False, description="Whether it replaces documents of another origin."
    )
    state: JobState
    error: str = Field(default="", description="Why the job failed; empty otherwise.")
    created: datetime
    updated: datetime

    @property
    def uploaded(self) -> bool:
        return bool(self.files)


def allowed_location(prefixes: Iterable[str], location: str) -> str:
    """``location`` (a server path or a URL) if it lies under one of ``prefixes``
    (``ingest_job_prefixes``): a path resolved (links followed, ``..`` gone) inside a prefix
    folder, a URL starting with a prefix URL.

    Raises:
        Forbidden: it lies under none (and none is configured: no path or URL is allowed).
        NotFound: a path under a prefix names no file or folder.
    """
    prefixes = list(prefixes)
    if "://" in location and not location.startswith("file://"):
        if any(location.startswith(prefix) for prefix in prefixes if "://" in prefix):
            return location
    else:
        path = Path(location.removeprefix("file://")).resolve()
        for prefix in prefixes:
            if "://" not in prefix and path.is_relative_to(Path(prefix).resolve()):
                if not path.exists():
                    raise NotFound(f"No file or folder {str(path)!r} on the server.")
                return str(path)
    raise Forbidden(
        f"{location!r} is under none of the folders and URLs this API may ingest from "
        f"(ANCHORGRAPH_INGEST_JOB_PREFIXES: {prefixes or 'none set'}); upload the files instead."
    )


def spool_uploads(folder: Path, files: Iterable[tuple[str, bytes]], max_bytes: int) -> list[str]:
    """Write uploaded files into ``folder`` (a ``.zip`` unpacked there), returning the paths
    written, relative to it, each once: of two files of one name, the later is kept, as
    unpacking a zip keeps the later of two members. A file sent without a name is named by its
    place (``upload-2``); no reader takes it by that name, and the job lists it as skipped.

    Raises:
        InvalidInput: no file, a name that leaves the folder, a file that is no zip.
        DocumentTooLarge: a zip unpacks to more than ``max_bytes``.
    """
    written: list[str] = []
    for place, (name, data) in enumerate(files, start=1):
        if name.lower().endswith(".zip"):
            written += _unzip(folder, name, data, max_bytes)
        else:
            base = PurePosixPath(name.replace("\\", "/")).name or f"upload-{place}"
            written.append(_put(folder, _safe_name(base), data))
    if not written:
        raise InvalidInput("No file to ingest: upload one or more files, or a .zip.")
    return list(dict.fromkeys(written))


def _unzip(folder: Path, name: str, data: bytes, max_bytes: int) -> list[str]:
    import io

    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise InvalidInput(f"{name}: not a zip archive.") from None
    members = [m for m in archive.infolist() if not m.is_dir()]
    if sum(m.file_size for m in members) > max_bytes:
        raise DocumentTooLarge(f"{name}: unpacks to more than {max_bytes:,} bytes.")
    return [_put(folder, _safe_name(m.filename), archive.read(m)) for m in members]


def _safe_name(name: str) -> str:
    path = PurePosixPath(name.replace("\\", "/"))
    if not name or path.is_absolute() or ".." in path.parts or "\x00" in name:
        raise InvalidInput(f"{name!r}: not a file name inside the upload.")
    return str(path)


def _put(folder: Path, name: str, data: bytes) -> str:
    target = folder / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return name


class JobRunner:
    """Runs the API's ingest jobs, each in a thread of its own, over ``runtime``.

    Several API processes may serve one graph (``anchorgraph serve --workers N``); each has a
    runner, and a job runs in one of them only: the runner that creates or resumes a job first
    claims it (cypher/jobs/claim_job.cypher), in one transaction that takes the job node's write
    lock and then finds it free. A claim names the runner by a random token (``owner``, nothing
    secret) and lasts ``ingest_job_lease_s``: a thread of the runner renews it every third of
    that, and every write of the job's progress renews it too. A runner that stops releases its
    jobs, which the next start claims at once; one that crashed renews nothing, and once its
    lease has passed another runner takes its jobs over: every runner looks for such jobs at its
    start and every lease after. A runner that was silent past its lease (a machine that stalled)
    finds at its next write that it lost the job, and stops it without writing.
    """

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.owner = uuid.uuid4().hex  # names this runner's claims; a random id, no secret
        self.lease_s = runtime.settings.ingest_job_lease_s
        self._stopping = threading.Event()
        self._ended = threading.Event()  # every job stopped: the keeper stops renewing
        self._lock = threading.Lock()  # the threads, the claims held, the keeper
        self._threads: dict[str, threading.Thread] = {}
        self._held: set[str] = set()  # jobs this runner claimed and runs
        self._keeper: threading.Thread | None = None

    @property
    def stopping(self) -> threading.Event:
        """Set once ``stop`` is called: the API is shutting down, its jobs stop after their
        batch under way."""
        return self._stopping

    def uploads(self, collection: str) -> Path:
        """Where the files uploaded into ``collection`` are kept while its job runs."""
        return self.runtime.settings.data_dir / "uploads" / collection_name(collection)

    def submit(
        self,
        collection: str,
        source: str,
        *,
        replace: bool = False,
        files: list[str] | None = None,
        staged: Path | None = None,
    ) -> str:
        """Record a new job reading ``source`` (only ``files`` of it when given) into
        ``collection``, claimed by this runner, and start it; returns its id. ``staged``: a
        folder holding ``files`` (uploaded), moved once the job is recorded to a folder of the
        job's own in ``source`` (named by its id), which the job reads, and removed in any case:
        a refused upload never overwrites the files of the job it waits for, and a job that ends
        removes its own folder only, never one another upload is being written into.

        Raises:
            JobRunning: a job is queued or running in the collection.
        """
        collection = collection_name(collection)
        job_id = uuid.uuid4().hex
        if staged is not None:
            source = str(Path(source) / job_id)
        parameters = {
            "collection": collection,
            "job": {
                "id": job_id,
                "collection": collection,
                "source": source,
                "files": files or [],
                "replace": replace,
                "state": JobState.QUEUED.value,
                "error": "",
                "owner": self.owner,
                "lease_s": self.lease_s,
                **Progress().stored(),
            },
        }

        def create(tx: neo4j.ManagedTransaction) -> str | None:
            lock_collection(tx, collection)
            row = single_in(tx, Query.CREATE_JOB, parameters)
            return row["busy"] if row else None

        try:
            busy = self.runtime.graph.write(create)
            if busy is None and staged is not None:
                staged.replace(source)
        finally:
            if staged is not None:
                shutil.rmtree(staged, ignore_errors=True)
        if busy is not None:
            raise JobRunning(
                f"Job {busy} is writing into collection {collection!r}; this one would see its "
                f"documents half-written. Wait for it (GET /ingest/jobs/{busy}) or cancel it."
            )
        with self._lock:
            self._start(job_id)
        return job_id

    def get(self, job_id: str) -> Job:
        """The job as the graph holds it.

        Raises:
            NotFound: no such job.
        """
        rows = self.runtime.graph.read(Query.GET_JOB, {"id": job_id})
        if not rows:
            raise NotFound(f"No ingest job {job_id!r}.")
        return Job.model_validate(row_values(rows[0]))

    def cancel(self, job_id: str) -> JobState:
        """Ask the job to stop between batches; returns its state now.

        Raises:
            NotFound: no such job.
        """
        row = self.runtime.graph.write(lambda tx: single_in(tx, Query.CANCEL_JOB, {"id": job_id}))
        if row is None:
            raise NotFound(f"No ingest job {job_id!r}.")
        return JobState(row["state"])

    def resume(self) -> list[str]:
        """Claim and start every job queued or running that no runner holds: the last API
        released it as it stopped, or crashed and let its lease pass. From now on until
        ``stop``, look for such jobs again every lease. Returns the ids this runner took."""
        with self._lock:
            self._start_keeper()
        return self._take_unheld()

    def stop(self, timeout_s: float = 30.0) -> None:
        """Stop every job after its batch under way (each stays ``running``, released, and is
        resumed by the next runner to look), waiting at most ``timeout_s`` for them; a job still
        running then is taken over by another runner once this one's lease has passed."""
        with self._lock:
            self._stopping.set()
            threads = list(self._threads.values())
            keeper = self._keeper
        deadline = time.monotonic() + timeout_s
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        self._ended.set()
        if keeper is not None:
            keeper.join(max(0.0, deadline - time.monotonic()))

    def wait(self, job_id: str, timeout_s: float) -> None:
        """Until the job's thread ends (tests, the CLI's own runs)."""
        thread = self._threads.get(job_id)
        if thread is not None:
            thread.join(timeout_s)

    # --- claims -------------------------------------------------------------------------------
    def _take_unheld(self) -> list[str]:
        """Claim and start the jobs no runner holds (cypher/jobs/unowned_jobs.cypher)."""
        ids = [row["id"] for row in self.runtime.graph.read(Query.UNOWNED_JOBS, {})]
        return [job_id for job_id in ids if self._claim(job_id)]

    def _claim(self, job_id: str) -> bool:
        """Claim the job and start it, unless another runner holds it, or this one runs it
        already, or the API is stopping."""
        with self._lock:
            thread = self._threads.get(job_id)
            if self._stopping.is_set() or (thread is not None and thread.is_alive()):
                return False
            parameters = {"id": job_id, "owner": self.owner, "lease_s": self.lease_s}
            row = self.runtime.graph.write(lambda tx: single_in(tx, Query.CLAIM_JOB, parameters))
            if row is None or not row["claimed"]:
                return False
            if row["silent_s"] is not None:
                log.warning(
                    "took over ingest job %s, whose runner had renewed nothing for %.1f s",
                    job_id,
                    row["silent_s"],
                )
            self._start(job_id)
        return True

    def _start_keeper(self) -> None:
        """Start the thread that renews this runner's claims, once; the caller holds ``_lock``."""
        if self._keeper is None:
            self._keeper = threading.Thread(target=self._keep, name="ingest-jobs", daemon=True)
            self._keeper.start()

    def _keep(self) -> None:
        """Renew this runner's claims every third of the lease, and look for jobs no runner
        holds every lease, until every job of this runner has stopped."""
        look_at = time.monotonic() + self.lease_s
        while not self._ended.wait(self.lease_s / 3):
            try:
                self._renew()
                if not self._stopping.is_set() and time.monotonic() >= look_at:
                    look_at = time.monotonic() + self.lease_s
                    self._take_unheld()
            except Exception:  # Neo4j out of reach for a while: try again at the next beat
                log.exception("ingest jobs: renewing or looking for jobs failed")

    def _renew(self) -> None:
        with self._lock:
            ids = sorted(self._held)
        if not ids:
            return
        parameters = {"ids": ids, "owner": self.owner}
        rows = self.runtime.graph.write(lambda tx: rows_in(tx, Query.RENEW_CLAIMS, parameters))
        for job_id in set(ids) - {row["id"] for row in rows}:
            log.warning("ingest job %s was taken over by another runner", job_id)

    # --- the run ------------------------------------------------------------------------------
    def _start(self, job_id: str) -> None:
        """Run a job this runner has claimed; the caller holds ``_lock``."""
        thread = threading.Thread(
            target=self._run, args=(job_id,), name=f"ingest-job-{job_id[:8]}", daemon=True
        )
        self._threads[job_id] = thread
        self._held.add(job_id)
        self._start_keeper()
        thread.start()

    def _set(
        self,
        job_id: str,
        progress: Progress,
        state: JobState,
        error: str = "",
        *,
        release: bool = False,
    ) -> bool:
        """Record ``progress``, ``state`` and ``error`` (and let the job go, with ``release``);
        whether a cancel was asked.

        Raises:
            Lost: another runner holds the job now; nothing was written.
        """
        changes = JobUpdate(**progress.stored(), state=state.value, error=error)
        parameters = {"id": job_id, "owner": self.owner, "release": release, "progress": changes}
        row = self.runtime.graph.write(lambda tx: single_in(tx, Query.SET_JOB, parameters))
        if row is None or not row["owned"]:
            raise Lost
        return row["cancel"]

    def _run(self, job_id: str) -> None:
        try:
            self._run_held(job_id)
        except Lost:
            log.warning(
                "ingest job %s is no longer this runner's: it renewed nothing for longer than "
                "ANCHORGRAPH_INGEST_JOB_LEASE_S and another took the job over (or it was "
                "deleted); this one stops it without writing",
                job_id,
            )
        except Exception:  # its state unwritten (Neo4j out of reach): resumed once its lease passes
            log.exception("ingest job %s stopped", job_id)
        finally:
            with self._lock:
                self._held.discard(job_id)

    def _run_held(self, job_id: str) -> None:
        job = self.get(job_id)
        if not job.state.unfinished:
            return
        progress = Progress()
        if self._set(job_id, progress, JobState.RUNNING):
            self._set(job_id, progress, JobState.CANCELLED, release=True)
            return
        try:
            self._ingest(job, progress, lambda: self._set(job_id, progress, JobState.RUNNING))
        except Cancelled:
            self._set(job_id, progress, JobState.CANCELLED, release=True)
        except Stopping:
            self._set(job_id, progress, JobState.RUNNING, release=True)  # resumed by the next
            return
        except Lost:
            raise
        except AnchorgraphError as error:
            self._set(job_id, progress, JobState.FAILED, str(error), release=True)
        except Exception as error:
            log.exception("ingest job %s failed", job_id)
            self._set(
                job_id, progress, JobState.FAILED, f"{type(error).__name__}: {error}", release=True
            )
        else:
            self._set(job_id, progress, JobState.DONE, release=True)
        self._remove_uploads(job)

    def _ingest(self, job: Job, progress: Progress, record: Callable[[], bool]) -> None:
        """Ingest the job's source as ``anchorgraph ingest`` does, whose rule decides what is
        written (``Ingestor.ingest``): a changed file read again from the same place replaces
        its document, one whose id the collection holds from another origin is refused and
        listed, unless the job says ``replace``."""
        from anchorgraph.ingestion import reading, source_at

        settings = self.runtime.settings
        wanted = set(job.files)
        only = (lambda entry: entry.path in wanted) if wanted else None

        def on_skip(skipped: Skipped) -> None:
            progress.skipped += 1
            progress.skips.append(f"{skipped.path}: {skipped.reason}")

        source = source_at(settings, job.source)
        progress.listed = sum(1 for entry in source.entries() if only is None or only(entry))
        if record():
            raise Cancelled
        started = time.perf_counter()

        def take(stats: IngestStats) -> None:
            progress.read = stats.documents + progress.skipped
            progress.written, progress.unchanged = stats.written, stats.unchanged
            progress.refused = len(stats.refused)
            progress.refusals = [JobRefusal.of(r, job.collection) for r in stats.refused]
            progress.chunks, progress.seconds = stats.chunks, time.perf_counter() - started

        def between_batches(stats: IngestStats) -> None:
            take(stats)
            if record():
                raise Cancelled
            if self._stopping.is_set():
                raise Stopping

        with reading(settings, job.source, on_skip=on_skip, only=only) as documents:
            stats = self.runtime.ingestor.ingest(
                _as_requests(documents) if job.uploaded else documents,
                between_batches,
                collection=job.collection,
                replace=job.replace,
            )
        take(stats)

    def _remove_uploads(self, job: Job) -> None:
        """A finished job's uploaded files are not needed any more: the folder of its own that
        holds them (``submit``) goes with them. A job recorded with its files in its
        collection's upload folder, among other jobs' and uploads being staged, removes its
        files only."""
        if job.uploaded:
            folder = Path(job.source)
            if folder.name == job.id:
                shutil.rmtree(folder, ignore_errors=True)
                return
            for name in job.files:
                (folder / name).unlink(missing_ok=True)


def _as_requests(documents: Iterable[SourceDocument]) -> Iterator[SourceDocument]:
    """Uploaded files as ``POST /documents`` takes an upload: documents without a ``uri``. Where
    the API keeps them while the job runs is no origin: two uploads of a README.md come from
    different people, and neither replaces the other unseen (docs/collections.md)."""
    for document in documents:
        yield replace(document, uri="")
