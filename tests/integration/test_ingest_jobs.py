"""Ingest jobs through the API (service/jobs.py, service/api/jobs.py) with the real Neo4j: a
folder under the allowed prefixes and uploaded files (a .zip among them) ingested in the
background with progress; a path outside the prefixes refused; a job replaces nothing unseen (a
changed file from the same folder updates its document, one from another folder or an upload
is refused and listed with its reason); one job per collection (409); a cancel stops between
batches with nothing half-written; a running job's progress rises with a time left; a job whose
embedder fails ends failed with the reason, its batches whole; an API stopped mid-job resumes it
at its next start and writes nothing twice; of several runners resuming a job one runs it, and
a crashed API's job is taken over once its lease has passed; `anchorgraph jobs` follows a job
to its end.

The embedder is the deterministic fake (these are tests of plumbing), held at a gate where a
test needs a job caught mid-way; 130 small files make three batches of the runtime's 64. The
ingest embeds a batch while it writes the one before, and records that one's progress once the
embedding is done: a gate on the second batch holds the job before any progress is recorded."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
import time
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import httpx
import neo4j
import pytest
from clients import api_client
from fastapi import FastAPI
from fastapi.testclient import TestClient
from typer.testing import CliRunner
from uvicorn_thread import served

from anchorgraph.app import create_app
from anchorgraph.cli.main import app as cli
from anchorgraph.embedding import HashEmbedder, Vectors
from anchorgraph.errors import EmbeddingUnavailable
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.local_server import LocalNeo4j
from anchorgraph.jobs import JobRunner
from anchorgraph.runtime import open_runtime
from anchorgraph.settings import Settings

pytestmark = pytest.mark.integration

FILES = 130  # three batches of 64
BATCH = 64  # documents in one transaction of the runtime's ingest
UNFINISHED = {"queued", "running"}
CHROMIUM = Path("/usr/bin/chromium")  # Debian's (Makefile), as the search page's tests drive it
NOTE = "The archive keeps letter"  # in every note, and in nothing the API embeds of its own
WAIT_S = 300.0  # a safety net only: the tests wait on the job's thread, not on time


class GatedEmbedder(HashEmbedder):
    """The fake embedder with a gate for the test's notes: while it is closed, a call that
    embeds notes waits until it opens (the API's warm-up searches go through). With
    ``close_after`` N it closes itself once N notes have been embedded, so that a job is caught
    after its first batch however fast or loaded the machine is."""

    def __init__(self, close_after: int | None = None) -> None:
        super().__init__(dimension=384)
        self.hold = threading.Event()
        self.open = threading.Event()
        self.open.set()
        self.waiting = threading.Event()
        self.close_after = close_after
        self.notes = 0
        self.lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> Vectors:
        notes = sum(NOTE in text for text in texts)
        with self.lock:
            if notes and self.close_after is not None and self.notes >= self.close_after:
                self.close_gate()
            self.notes += notes
        if notes and self.hold.is_set():
            self.waiting.set()
            self.open.wait(WAIT_S)
        return super().embed(texts)

    def close_gate(self) -> None:
        self.close_after = None
        self.open.clear()
        self.hold.set()

    def open_gate(self) -> None:
        self.hold.clear()
        self.open.set()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for n in range(FILES):
        (corpus / f"note-{n:03}.md").write_text(f"# Note {n}\n\n{NOTE} {n}.\n")
    return corpus


def settings_of(settings: Settings, folder: Path, **update: Any) -> Settings:
    """The settings of an API allowed to ingest from the test's folder, uploads kept in its own
    data dir, changed by ``update``."""
    allowed = {
        "spacy_model": "",
        "ingest_job_prefixes": [str(folder)],
        "data_dir": folder.parent / "data",
    }
    return settings.model_copy(update=allowed | update)


def app_of(settings: Settings, embedder: HashEmbedder, folder: Path, **update: Any) -> FastAPI:
    return create_app(settings_of(settings, folder, **update), embedder_factory=lambda _: embedder)


def client_of(
    settings: Settings, embedder: HashEmbedder, folder: Path, **update: Any
) -> TestClient:
    return TestClient(app_of(settings, embedder, folder, **update))


def documents(driver: neo4j.Driver) -> tuple[int, int]:
    """(documents, documents without a chunk) in the graph."""
    row = driver.execute_query(
        "MATCH (d:Document) RETURN count(d) AS n, "
        "count(CASE WHEN NOT EXISTS { (d)-[:HAS_CHUNK]->() } THEN 1 END) AS empty"
    ).records[0]
    return row["n"], row["empty"]


def finish(client: TestClient, job_id: str) -> dict[str, Any]:
    jobs: JobRunner = cast(Any, client.app).state.jobs
    jobs.wait(job_id, WAIT_S)
    answer = client.get(f"/ingest/jobs/{job_id}")
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def test_a_folder_job_ingests_in_the_background_with_progress(
    clean_graph: Graph, settings: Settings, fake_embedder: HashEmbedder, folder: Path
) -> None:
    with client_of(settings, fake_embedder, folder) as client:
        answer = client.post("/ingest/jobs", json={"source": str(folder), "collection": "jobs"})
        assert answer.status_code == 202, answer.text
        assert answer.headers["location"] == answer.json()["url"]
        assert answer.json()["state"] in {"queued", "running", "done"}
        job = finish(client, answer.json()["id"])
        assert job["state"] == "done", job
        assert (job["listed"], job["read"], job["written"], job["unchanged"]) == (FILES,) * 3 + (0,)
        assert job["chunks"] >= FILES and job["chunks_per_s"] > 0 and job["eta_s"] is None
        assert documents(clean_graph.driver) == (FILES, 0)

        again = finish(
            client,
            client.post("/ingest/jobs", json={"source": str(folder), "collection": "jobs"}).json()[
                "id"
            ],
        )
        assert (again["written"], again["unchanged"]) == (0, FILES)


def test_a_job_replaces_a_changed_file_of_its_folder_and_refuses_another_folders(
    clean_graph: Graph, settings: Settings, fake_embedder: HashEmbedder, tmp_path: Path
) -> None:
    """The rule of `anchorgraph ingest`: the same file read again from the same place updates
    its document; a file of the same name from another folder would replace a document it has
    not seen, and is refused and listed with both origins."""
    first, second = tmp_path / "first", tmp_path / "second"
    for folder, text in ((first, "The first folder's note."), (second, "Another folder's.")):
        folder.mkdir()
        (folder / "note.md").write_text(f"# Note\n\n{text}\n")
        (folder / f"only-in-{folder.name}.md").write_text(f"# {folder.name}\n\nIts own.\n")
    data = tmp_path / "data"
    prefixes = [str(first), str(second)]
    with api_client(settings, fake_embedder, ingest_job_prefixes=prefixes, data_dir=data) as client:

        def job(source: Path, **extra: object) -> dict[str, Any]:
            body = {"source": str(source), "collection": "notes", **extra}
            return finish(client, client.post("/ingest/jobs", json=body).json()["id"])

        assert job(first)["written"] == 2
        (first / "note.md").write_text("# Note\n\nThe first folder's note, corrected.\n")
        updated = job(first)
        assert (updated["written"], updated["unchanged"], updated["refused"]) == (1, 1, 0)

        refused = job(second)
        assert (refused["state"], refused["written"], refused["refused"]) == ("done", 1, 1)
        [refusal] = refused["refusals"]
        assert (refusal["id"], refusal["reason"]) == ("note.md", "other-origin")
        assert first.as_uri() in refusal["message"] and second.as_uri() in refusal["message"]
        assert "corrected" in client.get("/documents/note.md?collection=notes").text

        assert job(second, replace=True)["written"] == 1
        assert "Another folder" in client.get("/documents/note.md?collection=notes").text


def test_sources_outside_the_allowed_prefixes_are_refused(
    clean_graph: Graph, settings: Settings, fake_embedder: HashEmbedder, folder: Path
) -> None:
    with client_of(settings, fake_embedder, folder) as client:
        for source in ("/etc", str(folder) + "/../data", "s3://elsewhere/x"):
            answer = client.post("/ingest/jobs", json={"source": source})
            assert answer.status_code == 403, (source, answer.text)
            assert "ANCHORGRAPH_INGEST_JOB_PREFIXES" in answer.json()["detail"]
        missing = client.post("/ingest/jobs", json={"source": str(folder / "nothing-here")})
        assert missing.status_code == 404 and "nothing-here" in missing.json()["detail"]
        assert client.post("/ingest/jobs", json={"collection": "x"}).status_code == 422
    assert documents(clean_graph.driver) == (0, 0)


def test_uploaded_files_and_a_zip_are_ingested_and_refusals_reported(
    clean_graph: Graph, settings: Settings, fake_embedder: HashEmbedder, folder: Path
) -> None:
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as packed:
        packed.writestr("letters/a.md", "# A\n\nThe first letter.\n")
        packed.writestr("letters/b.md", "# B\n\nThe second letter.\n")
    files = [
        ("files", ("one.md", b"# One\n\nA note.\n", "text/markdown")),
        ("files", ("two.txt", b"Another note.\n", "text/plain")),
        ("files", ("bundle.zip", archive.getvalue(), "application/zip")),
    ]
    with client_of(settings, fake_embedder, folder) as client:
        answer = client.post("/ingest/jobs", files=files, data={"collection": "uploads"})
        assert answer.status_code == 202, answer.text
        job = finish(client, answer.json()["id"])
        assert (job["state"], job["listed"], job["written"]) == ("done", 4, 4), job
        ids = {
            r["id"]
            for r in clean_graph.driver.execute_query(
                "MATCH (d:Document) RETURN d.id AS id"
            ).records
        }
        assert ids == {
            "uploads/one.md",
            "uploads/two.txt",
            "uploads/letters/a.md",
            "uploads/letters/b.md",
        }

        # A document of the same id from another origin is refused, and the job says why.
        client.post("/documents", json={"id": "three.md", "text": "Kept.", "collection": "uploads"})
        again = client.post(
            "/ingest/jobs",
            files=[("files", ("three.md", b"# Three\n\nReplaces?\n", "text/markdown"))],
            data={"collection": "uploads"},
        )
        job = finish(client, again.json()["id"])
        assert (job["state"], job["written"], job["refused"]) == ("done", 0, 1), job
        [refusal] = job["refusals"]
        assert (refusal["id"], refusal["reason"]) == ("three.md", "other-origin")
        assert "a request without a uri" in refusal["message"]

        # An upload is a request without a uri, as POST /documents takes one: another one.md
        # does not replace the first unseen, and replace says to.
        changed = [("files", ("one.md", b"# One\n\nAnother note.\n", "text/markdown"))]
        job = finish(
            client,
            client.post("/ingest/jobs", files=changed, data={"collection": "uploads"}).json()["id"],
        )
        assert (job["written"], job["refused"], job["refusals"][0]["id"]) == (0, 1, "one.md")
        job = finish(
            client,
            client.post(
                "/ingest/jobs", files=changed, data={"collection": "uploads", "replace": "true"}
            ).json()["id"],
        )
        assert (job["written"], job["refused"]) == (1, 0), job
        assert "Another note" in client.get("/documents/one.md?collection=uploads").text

        unclear = client.post("/ingest/jobs", files=changed, data={"replace": "yes"})
        assert unclear.status_code == 422 and unclear.json()["errors"][0]["loc"][-1] == "replace"

        evil = io.BytesIO()
        with zipfile.ZipFile(evil, "w") as packed:
            packed.writestr("../escape.md", "# Out\n")
        refused = client.post(
            "/ingest/jobs", files=[("files", ("evil.zip", evil.getvalue(), "application/zip"))]
        )
        assert refused.status_code == 400, refused.text
    assert not (folder.parent / "data" / "uploads" / "escape.md").exists()


def test_an_upload_job_keeps_its_files_in_a_folder_of_its_own_and_removes_only_that(
    clean_graph: Graph, settings: Settings, folder: Path
) -> None:
    """Another upload into the collection is staged beside the job's folder while it runs; the
    job's end removes its own folder and leaves the other upload's files where they are."""
    uploads = folder.parent / "data" / "uploads" / "kept"
    gated = GatedEmbedder()
    with client_of(settings, gated, folder) as client:
        gated.close_gate()
        note = f"# One\n\n{NOTE}.\n".encode()  # the gate holds the job's embedding
        files = [("files", ("one.md", note, "text/markdown"))]
        job_id = client.post("/ingest/jobs", files=files, data={"collection": "kept"}).json()["id"]
        assert gated.waiting.wait(WAIT_S)
        assert (uploads / job_id / "one.md").read_bytes() == note
        other = uploads / ".incoming-other" / "two.md"  # as POST /ingest/jobs stages an upload
        other.parent.mkdir()
        other.write_text("# Two\n")
        gated.open_gate()
        assert finish(client, job_id)["state"] == "done"
    assert not (uploads / job_id).exists()
    assert other.read_text() == "# Two\n"


def test_one_job_a_collection_and_a_cancel_stops_between_batches(
    clean_graph: Graph, settings: Settings, folder: Path
) -> None:
    gated = GatedEmbedder()
    with client_of(settings, gated, folder) as client:
        gated.close_gate()
        first = client.post("/ingest/jobs", json={"source": str(folder), "collection": "c"})
        assert first.status_code == 202
        assert gated.waiting.wait(WAIT_S)
        second = client.post("/ingest/jobs", json={"source": str(folder), "collection": "c"})
        assert second.status_code == 409, second.text
        assert second.json()["type"].endswith("job-running")
        other = client.post("/ingest/jobs", json={"source": str(folder), "collection": "other"})
        assert other.status_code == 202  # another collection is free

        cancelled = client.delete(f"/ingest/jobs/{first.json()['id']}")
        assert cancelled.status_code == 200
        gated.open_gate()
        job = finish(client, first.json()["id"])
        finish(client, other.json()["id"])
    assert job["state"] == "cancelled", job
    assert job["written"] < FILES
    written = clean_graph.driver.execute_query(
        "MATCH (d:Document {collection: 'c'}) "
        "RETURN count(d) AS n, count(CASE WHEN NOT EXISTS { (d)-[:HAS_CHUNK]->() } THEN 1 END) AS e"
    ).records[0]
    assert (written["n"], written["e"]) == (job["written"], 0)  # whole batches only
    assert written["n"] % 64 == 0


def test_an_api_stopped_mid_job_resumes_it_and_writes_nothing_twice(
    clean_graph: Graph, settings: Settings, folder: Path
) -> None:
    gated = GatedEmbedder(close_after=64)  # the first batch goes through, the second waits
    with client_of(settings, gated, folder) as client:
        job_id = client.post("/ingest/jobs", json={"source": str(folder)}).json()["id"]
        assert gated.waiting.wait(WAIT_S)
        # The API stops: its jobs stop after the batch under way, which the gate lets go once
        # the runner is stopping.
        stopping = cast(JobRunner, cast(Any, client.app).state.jobs).stopping
        threading.Thread(target=lambda: stopping.wait(WAIT_S) and gated.open_gate()).start()
    stopped = stored(clean_graph.driver, job_id)
    assert stopped["state"] == "running" and 0 < stopped["written"] < FILES
    assert "owner" not in stopped  # released: the next start takes it at once, not in a lease
    assert documents(clean_graph.driver) == (stopped["written"], 0)

    with client_of(settings, HashEmbedder(dimension=384), folder) as client:
        job = finish(client, job_id)
    assert job["state"] == "done", job
    assert (job["written"], job["unchanged"]) == (FILES - stopped["written"], stopped["written"])
    assert documents(clean_graph.driver) == (FILES, 0)


def stored(driver: neo4j.Driver, job_id: str) -> dict[str, Any]:
    """The job's node as the graph holds it, its claim included."""
    records = driver.execute_query(
        "MATCH (j:IngestJob {id: $id}) RETURN properties(j) AS job", id=job_id
    ).records
    return dict(records[0]["job"])


def settled(client: TestClient, job_id: str) -> dict[str, Any]:
    """The job once it is finished, whichever runner finishes it (``finish`` waits on this
    API's own thread, which a job taken over later does not have yet)."""
    deadline = time.monotonic() + WAIT_S
    while (job := client.get(f"/ingest/jobs/{job_id}").json())["state"] in UNFINISHED:
        assert time.monotonic() < deadline, job
        time.sleep(0.1)
    return dict(job)


def progress_past(client: TestClient, job_id: str, written: int) -> dict[str, Any]:
    """The job as GET shows it once it has recorded more than ``written`` documents."""
    deadline = time.monotonic() + WAIT_S
    while (job := client.get(f"/ingest/jobs/{job_id}").json())["written"] <= written:
        assert job["state"] in UNFINISHED and time.monotonic() < deadline, (job["error"], job)
        time.sleep(0.05)
    return dict(job)


def test_a_running_job_shows_its_progress_rising_and_the_time_left(
    clean_graph: Graph, settings: Settings, tmp_path: Path
) -> None:
    """GET during the job: the counts of each batch once it is recorded, and a time left while
    files remain. The ingest embeds a batch while it writes the one before, whose progress it
    records once that embedding is done: the gate holds the third batch's embedding to catch
    the first batch recorded, then the fourth's to catch the second, however fast or loaded the
    machine is."""
    many = tmp_path / "many"
    many.mkdir()
    files = 3 * BATCH + 2
    for n in range(files):
        (many / f"note-{n:03}.md").write_text(f"# Note {n}\n\n{NOTE} {n}.\n")
    gated = GatedEmbedder(close_after=2 * BATCH)
    with client_of(settings, gated, many) as client:
        # Not the default collection, into which the API's warm-up rehearses a write as it
        # starts on an empty graph (service/api/warm.py): Neo4j may find two writers of one
        # collection deadlocked, and the job would fail.
        body = {"source": str(many), "collection": "progress"}
        job_id = client.post("/ingest/jobs", json=body).json()["id"]
        first = progress_past(client, job_id, 0)
        assert gated.waiting.wait(WAIT_S)  # in the third batch's embedding
        gated.waiting.clear()
        gated.close_after = 3 * BATCH
        gated.open_gate()
        second = progress_past(client, job_id, first["written"])
        assert gated.waiting.wait(WAIT_S)  # in the fourth batch's
        gated.open_gate()
        done = finish(client, job_id)
    for seen in (first, second):
        assert seen["state"] == "running" and seen["listed"] == files, seen
        assert seen["eta_s"] is not None and seen["eta_s"] > 0, seen
        assert seen["chunks_per_s"] > 0, seen
    assert (first["read"], first["written"]) == (BATCH, BATCH), first
    assert (second["read"], second["written"]) == (2 * BATCH, 2 * BATCH), second
    assert (done["state"], done["written"], done["eta_s"]) == ("done", files, None), done


class FailingEmbedder(GatedEmbedder):
    """The fake embedder whose server goes away after the first batch of notes: every later
    call that embeds notes fails as the remote embedder fails once its retries run out."""

    MESSAGE = (
        "The embedding server http://127.0.0.1:9/v1/embeddings cannot be reached (ConnectError); "
        "tried 3 time(s) over 1 s (ANCHORGRAPH_EMBEDDING_RETRY_S). Nothing of this batch was "
        "written."
    )

    def __init__(self) -> None:
        super().__init__()
        self.failing = True

    def embed(self, texts: Sequence[str]) -> Vectors:
        notes = sum(NOTE in text for text in texts)
        with self.lock:
            if notes and self.failing and self.notes >= BATCH:
                raise EmbeddingUnavailable(self.MESSAGE)
        return super().embed(texts)


def test_a_job_whose_embedder_fails_ends_failed_with_the_reason_and_whole_batches(
    clean_graph: Graph, settings: Settings, folder: Path
) -> None:
    failing = FailingEmbedder()
    with client_of(settings, failing, folder) as client:
        body = {"source": str(folder), "collection": "failing"}
        job = finish(client, client.post("/ingest/jobs", json=body).json()["id"])
        assert (job["state"], job["error"], job["eta_s"]) == ("failed", failing.MESSAGE, None)
        written, empty = documents(clean_graph.driver)
        assert (written, empty) == (job["written"], 0)  # whole documents of whole batches
        assert written == BATCH  # the batch written as the next one's embedding failed

        # The collection is free again, and the same job with the server back writes the rest.
        failing.failing = False
        again = finish(client, client.post("/ingest/jobs", json=body).json()["id"])
    assert (again["state"], again["written"], again["unchanged"]) == (
        "done",
        FILES - written,
        written,
    )
    assert documents(clean_graph.driver) == (FILES, 0)


def test_runners_resuming_one_job_together_run_it_once(
    clean_graph: Graph, settings: Settings, folder: Path
) -> None:
    """Several API processes start on one graph (``serve --workers N``) and each resumes what
    the last API left: one claims the job, the others find it claimed. Each note is embedded
    once, and the job writes what the stopped API had not."""
    gated = GatedEmbedder(close_after=BATCH)
    with client_of(settings, gated, folder) as client:
        body = {"source": str(folder), "collection": "resumed"}
        job_id = client.post("/ingest/jobs", json=body).json()["id"]
        assert gated.waiting.wait(WAIT_S)
        stopping = cast(JobRunner, cast(Any, client.app).state.jobs).stopping
        threading.Thread(target=lambda: stopping.wait(WAIT_S) and gated.open_gate()).start()
    left = stored(clean_graph.driver, job_id)
    assert left["state"] == "running" and "owner" not in left  # released as the API stopped
    before = left["written"]

    counting = GatedEmbedder()
    runners_settings = settings_of(settings, folder)
    with open_runtime(runners_settings, embedder_factory=lambda _: counting) as runtime:
        runners = [JobRunner(runtime) for _ in range(4)]
        start = threading.Barrier(len(runners))
        taken: dict[int, list[str]] = {}

        def resume(place: int) -> None:
            start.wait(WAIT_S)
            taken[place] = runners[place].resume()

        resuming = [threading.Thread(target=resume, args=(n,)) for n in range(len(runners))]
        for thread in resuming:
            thread.start()
        for thread in resuming:
            thread.join(WAIT_S)
        assert sorted(taken.values()) == [[]] * (len(runners) - 1) + [[job_id]], taken
        for runner in runners:
            runner.wait(job_id, WAIT_S)
            runner.stop()
    job = stored(clean_graph.driver, job_id)
    assert (job["state"], job["written"], job["unchanged"]) == ("done", FILES - before, before)
    assert counting.notes == FILES - before  # no note embedded twice
    assert documents(clean_graph.driver) == (FILES, 0)


# A process that claims a job and dies mid-way: it submits the job, embeds the notes of two
# batches and never returns from the third's (the ingest embeds it while it writes the second),
# until the test kills it.
CRASHING_OWNER = """
import sys, threading
from anchorgraph.embedding import HashEmbedder
from anchorgraph.jobs import JobRunner
from anchorgraph.runtime import open_runtime
from anchorgraph.settings import Settings

NOTE, BATCH, SOURCE = sys.argv[1], int(sys.argv[2]), sys.argv[3]

class Stuck(HashEmbedder):
    def __init__(self):
        super().__init__(dimension=384)
        self.notes = 0

    def embed(self, texts):
        notes = sum(NOTE in text for text in texts)
        if notes and self.notes >= BATCH:
            threading.Event().wait()
        self.notes += notes
        return super().embed(texts)

with open_runtime(Settings(_env_file=None), embedder_factory=lambda _: Stuck()) as runtime:
    JobRunner(runtime).submit("crashed", SOURCE)
    threading.Event().wait()
"""
# Long enough that a loaded machine's owner renews within it (every third of it), short enough
# for a test; every bound below is read from it.
LEASE_S = 4.0


def test_a_crashed_apis_job_is_taken_over_once_its_lease_has_passed(
    clean_graph: Graph, settings: Settings, folder: Path, tmp_path: Path
) -> None:
    """A running API looks for jobs whose owner stopped renewing its claim, every lease: the job
    of a process killed mid-way goes on there, no sooner than the lease after the dead owner's
    last renewal (both times the server's own clock), and writes what it had not."""
    update = {"ingest_job_lease_s": LEASE_S}
    environment = {
        **os.environ,
        **LocalNeo4j(settings).client_environment(),
        "ANCHORGRAPH_SPACY_MODEL": "",
        "ANCHORGRAPH_INGEST_JOB_LEASE_S": str(LEASE_S),
        "ANCHORGRAPH_DATA_DIR": str(tmp_path / "owner"),
    }
    with client_of(settings, HashEmbedder(dimension=384), folder, **update) as client:
        taker = cast(JobRunner, cast(Any, client.app).state.jobs)
        with (tmp_path / "owner.log").open("wb") as log:  # the process keeps a copy
            owner = subprocess.Popen(
                [sys.executable, "-c", CRASHING_OWNER, NOTE, str(2 * BATCH), str(folder)],
                cwd=tmp_path,
                env=environment,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        query = "MATCH (j:IngestJob {collection: 'crashed'}) RETURN properties(j) AS job"
        try:
            # Both batches written: the owner will write nothing more, but for its claim.
            deadline = time.monotonic() + WAIT_S
            while documents(clean_graph.driver)[0] < 2 * BATCH:
                assert owner.poll() is None, (tmp_path / "owner.log").read_text()[-3000:]
                assert time.monotonic() < deadline, "the owner did not write two batches"
                time.sleep(0.05)
            running = dict(clean_graph.driver.execute_query(query).records[0]["job"])
            # Held by the live owner, not by the API, which looked for free jobs all along.
            assert running["owner"] not in {None, taker.owner}, running
        finally:
            owner.kill()
            owner.wait(timeout=30)
        job_id = running["id"]
        dead = stored(clean_graph.driver, job_id)
        assert (dead["owner"], dead["state"]) == (running["owner"], "running")
        assert documents(clean_graph.driver) == (2 * BATCH, 0)

        job = settled(client, job_id)
    written = 2 * BATCH
    assert (job["state"], job["written"], job["unchanged"]) == ("done", FILES - written, written)
    assert documents(clean_graph.driver) == (FILES, 0)
    taken = stored(clean_graph.driver, job_id)
    silent = taken["claimed"].to_native() - dead["heartbeat"].to_native()
    assert silent.total_seconds() >= LEASE_S, silent  # not before the lease had passed


def test_anchorgraph_jobs_follows_a_job_to_its_end(
    clean_graph: Graph, settings: Settings, folder: Path
) -> None:
    """The CLI follows a job of a running API: its summary when it is done (exit 0); with
    --cancel it cancels one first, and a job that did not finish exits 1."""
    gated = GatedEmbedder()
    runner = CliRunner()
    with served(app_of(settings, gated, folder)) as url:
        body = {"source": str(folder), "collection": "cli"}
        job_id = httpx.post(f"{url}/ingest/jobs", json=body).json()["id"]
        done = runner.invoke(cli, ["jobs", job_id, "--api", url, "--every", "0.2"])
        assert done.exit_code == 0, done.output
        assert f"Job {job_id} done: {FILES} written, 0 unchanged, 0 refused" in done.output

        gated.close_gate()
        body = {"source": str(folder), "collection": "cli-cancelled"}
        answer = httpx.post(f"{url}/ingest/jobs", json=body).json()
        assert gated.waiting.wait(WAIT_S)
        threading.Timer(0.5, gated.open_gate).start()
        cancelled = runner.invoke(cli, ["jobs", answer["url"], "--cancel", "--every", "0.2"])
    assert cancelled.exit_code == 1, cancelled.output
    assert f"Job {answer['id']} cancelled" in cancelled.output


def test_the_search_page_adds_documents_with_a_progress_bar(
    clean_graph: Graph, settings: Settings, fake_embedder: HashEmbedder, folder: Path
) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not CHROMIUM.exists():
        pytest.skip("Chromium is not installed: `make test` installs Debian's chromium")
    app = app_of(settings, fake_embedder, folder)
    letters = folder / "letters"
    letters.mkdir()
    for n in range(5):
        (letters / f"letter-{n}.md").write_text(f"# Letter {n}\n\nDear director, number {n}.\n")
    status = "document.getElementById('add-status').textContent"
    with served(app) as url, sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM))
        page = chromium.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{url}/")
        page.set_input_files("#add-files", [folder / f"note-00{n}.md" for n in range(3)])
        page.fill("#add-collection", "page")
        page.click("#add-start")
        page.wait_for_function(f"{status}.startsWith('done')", timeout=WAIT_S * 1000)
        assert page.eval_on_selector("#add-progress", "p => [p.value, p.max]") == [3, 3]
        assert "3 written" in (page.text_content("#add-status") or "")

        page.set_input_files("#add-files", [])
        page.fill("#add-source", "/etc")
        page.click("#add-start")
        page.wait_for_function(f"{status}.startsWith('Refused')")
        assert "ANCHORGRAPH_INGEST_JOB_PREFIXES" in (page.text_content("#add-status") or "")
        page.fill("#add-source", str(folder / "letters"))
        page.click("#add-start")
        page.wait_for_function(f"{status}.startsWith('done')", timeout=WAIT_S * 1000)
        assert page.eval_on_selector("#add-progress", "p => [p.value, p.max]") == [5, 5]
        chromium.close()
        assert errors == [], errors
    counted = clean_graph.driver.execute_query(
        "MATCH (d:Document {collection: 'page'}) RETURN count(d) AS n"
    ).records[0]["n"]
    assert counted == 3 + 5  # the three uploaded, then the folder's five
