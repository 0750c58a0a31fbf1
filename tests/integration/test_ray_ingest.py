"""Ingestion on a real Ray cluster (``anchorgraph.distributed``): a local cluster of two CPUs
started by the module on loopback, reading a folder and an ``s3://`` prefix of the SeaweedFS the
tests start, into the real Neo4j. The graph it builds is the one the in-process ingest builds,
and a second run writes nothing; a run stopped part-way leaves whole documents only, and run
again writes nothing twice and loses nothing; a cluster address where none answers is a clear
error with nothing written."""

from __future__ import annotations

import dataclasses
import os
import time
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
import s3fs
from objectstore.seaweedfs import SeaweedFS
from typer.testing import CliRunner

from anchorgraph.distributed import ingest_on_ray
from anchorgraph.embedding import HashEmbedder, Vectors
from anchorgraph.errors import InvalidInput
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.local_server import free_port
from anchorgraph.library import Library
from anchorgraph.loaders.ingest import IngestStats
from anchorgraph.runtime import EmbedderFactory, Runtime
from benchmarks.collection_graph import ingested

ray = pytest.importorskip("ray", reason="the `ray` extra (make setup installs it)")

pytestmark = pytest.mark.integration

FILES = 12
BATCH = 3
HOLD_S = 300  # at most: a run that writes nothing before the held document fails, not hangs


@pytest.fixture(scope="module")
def cluster(seaweedfs: SeaweedFS) -> Iterator[None]:
    """A local Ray cluster of two CPUs for the module, whose workers read the object store with
    the AWS settings of the processes that start them, as a cluster's nodes do."""
    with pytest.MonkeyPatch.context() as environment:
        for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL_S3", "AWS_CONFIG_FILE"):
            environment.delenv(name, raising=False)
        environment.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
        environment.setenv("AWS_ENDPOINT_URL", seaweedfs.endpoint)
        environment.setenv("AWS_ACCESS_KEY_ID", "anchorgraph-test-key")
        environment.setenv("AWS_SECRET_ACCESS_KEY", "anchorgraph-test-secret")
        environment.setenv("AWS_REGION", "us-east-1")
        environment.setenv("RAY_USAGE_STATS_ENABLED", "0")
        _start_ray()
        try:
            yield
        finally:
            ray.shutdown()


def _start_ray(attempts: int = 3) -> None:
    """A local cluster of two CPUs. Ray waits a fixed 30 s for its raylet to register
    (ray/_private/node.py), which a machine loaded by other work can take longer for: the
    start is tried again then."""
    for attempt in range(1, attempts + 1):
        try:
            ray.init(
                address="local",
                num_cpus=2,
                include_dashboard=False,
                object_store_memory=300_000_000,
            )
            return
        except Exception as error:
            ray.shutdown()
            if attempt == attempts or "timed out during startup" not in str(error):
                raise


@pytest.fixture
def small_batches(runtime: Runtime) -> Runtime:
    """The session's runtime (the fake embedder) writing ``BATCH`` documents a transaction."""
    return dataclasses.replace(runtime, batch_size=BATCH)


@pytest.fixture
def library(small_batches: Runtime, clean_graph: Graph) -> Library:
    return Library(small_batches)


def _notes(root: Path, files: int = FILES) -> Path:
    """``files`` notes in two folders, one empty note and one file of no known format."""
    for n in range(files):
        sub = root / f"site {n % 2}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"pump-{n:02d}.md").write_text(
            f"# Pump P-{n}\n\nThe pump P-{n} feeds the valve V-{n % 5} at the Porto plant. "
            f"Acme Corporation serviced it in {2000 + n}; "
            f"see [the next pump](pump-{(n + 2) % files:02d}.md).\n"
        )
    (root / "site 0" / "empty.md").write_text("")
    (root / "site 1" / "blob.bin").write_bytes(b"\x00")
    return root


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return _notes(tmp_path / "notes")


def _bucket_with(folder: Path) -> str:
    """A fresh bucket holding ``folder``'s files under ``notes/``; its URL."""
    fs = s3fs.S3FileSystem(endpoint_url=os.environ["AWS_ENDPOINT_URL"], skip_instance_cache=True)
    name = f"ray-{uuid.uuid4().hex[:12]}"
    fs.call_s3("create_bucket", Bucket=name)
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            key = f"notes/{path.relative_to(folder).as_posix()}"
            fs.call_s3("put_object", Bucket=name, Key=key, Body=path.read_bytes())
    return f"s3://{name}/notes"


@pytest.mark.usefixtures("cluster")
@pytest.mark.parametrize("where", ["folder", "s3"])
def test_a_ray_ingest_builds_the_graph_the_in_process_ingest_builds(
    library: Library, clean_graph: Graph, folder: Path, where: str
) -> None:
    location = str(folder) if where == "folder" else _bucket_with(folder)
    here = library.ingest(location, collection="here")
    there = library.ingest(location, collection="there", ray="local")
    assert (here.written, there.written) == (FILES, FILES)
    assert (there.chunks, there.mentions, there.links) == (here.chunks, here.mentions, here.links)
    assert sorted(there.warnings) == sorted(here.warnings)  # the two skipped files
    in_process, on_ray = ingested(clean_graph, "here"), ingested(clean_graph, "there")
    assert in_process.documents and in_process.entities and in_process.relationships
    assert on_ray.graph() == in_process.graph()
    assert on_ray.same_vectors(in_process)

    again = library.ingest(location, collection="there", ray="local")
    assert (again.written, again.unchanged) == (0, FILES)


def _held_back(text: str, gate: Path) -> EmbedderFactory:
    """The session's hash embedder, except that a batch with a text holding ``text`` waits
    for ``gate`` to exist: the run's embedding stage stops at that document. The class is made
    here, not at the module's top, because Ray's workers cannot import a test module and
    cloudpickle sends a function's own class by value."""

    class HeldBack(HashEmbedder):
        def embed(self, texts: Sequence[str]) -> Vectors:
            if any(text in each for each in texts):
                waited = time.monotonic() + HOLD_S
                while not gate.exists():
                    if time.monotonic() > waited:
                        raise TimeoutError(f"held {HOLD_S} s: nothing before it was written")
                    time.sleep(0.05)
            return super().embed(texts)

    return lambda _: HeldBack(dimension=384)


class Stop(Exception):
    """The caller ending the run, as Ctrl-C does."""


@pytest.mark.usefixtures("cluster")
def test_a_ray_ingest_stopped_part_way_and_run_again_writes_nothing_twice_and_loses_nothing(
    library: Library, small_batches: Runtime, clean_graph: Graph, tmp_path: Path
) -> None:
    files = 3 * FILES
    folder = _notes(tmp_path / "many", files=files)
    library.ingest(folder, collection="whole")
    whole = ingested(clean_graph, "whole")

    # The embedding of pump 20 (the eleventh file listed) waits while the run goes on, writes
    # what comes before it in order, and is stopped by its caller at the first batch written.
    gate = tmp_path / "gate"
    held = dataclasses.replace(
        small_batches, embedder_factory=_held_back("serviced it in 2020", gate)
    )

    def stop(stats: IngestStats) -> None:
        raise Stop

    try:
        with pytest.raises(Stop):
            ingest_on_ray(
                held, folder, collection="resumed", files_per_task=BATCH, on_progress=stop
            )
    finally:
        gate.touch()
    stopped = ingested(clean_graph, "resumed")
    assert 0 < len(stopped.documents) < files
    assert "site 0/pump-20.md" not in stopped.documents
    # Only whole documents: each as the uninterrupted run wrote it, no chunk without one.
    assert stopped.documents.items() <= whole.documents.items()
    assert stopped.nodes["Chunk"] == sum(len(chunks) for _, chunks in stopped.documents.values())

    again = library.ingest(folder, collection="resumed", ray="local")
    # What the stopped run wrote is passed over, never written again; the rest is written.
    assert (again.unchanged, again.replaced) == (len(stopped.documents), 0)
    assert again.written == files - len(stopped.documents)
    resumed = ingested(clean_graph, "resumed")
    assert resumed.graph() == whole.graph()
    assert resumed.same_vectors(whole)


def test_no_cluster_at_the_address_is_a_clear_error_with_nothing_written(
    library: Library, clean_graph: Graph, folder: Path
) -> None:
    address = f"127.0.0.1:{free_port()}"
    with pytest.raises(InvalidInput, match="no Ray cluster answers"):
        library.ingest(folder, collection="nowhere", ray=address)
    assert not ingested(clean_graph, "nowhere").documents

    from anchorgraph.cli.main import app

    done = CliRunner().invoke(app, ["ingest", str(folder), "--ray", address])
    assert done.exit_code == 1 and "no Ray cluster answers" in done.output
