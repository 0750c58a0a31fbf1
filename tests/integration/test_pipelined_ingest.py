"""The in-process ingest, pipelined: a folder's files read by processes of their own while the
model embeds and Neo4j writes what was read before, the reading held a bounded way ahead of the
writes; the graph the same as when one process reads; a run stopped part-way and run again
writes nothing twice and loses nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from anchorgraph.embedding import HashEmbedder
from anchorgraph.graph.gateway import Graph
from anchorgraph.ingestion import reading
from anchorgraph.loaders.ingest import Ingestor, IngestStats
from anchorgraph.loaders.sources import Entry, LocalSource
from anchorgraph.runtime import Runtime
from benchmarks.collection_graph import ingested

pytestmark = pytest.mark.integration

FILES = 24
BATCH = 4


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Twenty-four notes, one file of no known format, and one empty note (both skipped)."""
    root = tmp_path_factory.mktemp("notes")
    for n in range(FILES):
        sub = root / f"area {n % 3}"
        sub.mkdir(exist_ok=True)
        (sub / f"note-{n:02d}.md").write_text(
            f"# Pump P-{n}\n\nThe pump P-{n} feeds the valve V-{n % 7} in Lisbon. "
            f"It was serviced in {1990 + n} by Acme Corporation.\n"
        )
    (root / "area 0" / "data.bin").write_bytes(b"\x00\x01")
    (root / "area 1" / "empty.md").write_text("")
    return root


def _ingestor(runtime: Runtime, fake_embedder: HashEmbedder) -> Ingestor:
    return Ingestor.configured(
        runtime.settings, runtime.graph, fake_embedder, runtime.extractor, batch_size=BATCH
    )


def _ingest(
    runtime: Runtime,
    fake_embedder: HashEmbedder,
    folder: Path,
    collection: str,
    *,
    workers: int,
    on_progress: Any = None,
) -> tuple[IngestStats, list[str]]:
    # The reader processes from the first file: these files are read here in well under the
    # default ANCHORGRAPH_READ_IN_PROCESS_S.
    settings = runtime.settings.model_copy(update={"read_workers": workers, "read_in_process_s": 0})
    skipped: list[str] = []
    with reading(
        settings, folder, on_skip=lambda item: skipped.append(item.path), ahead=BATCH
    ) as documents:
        stats = _ingestor(runtime, fake_embedder).ingest(
            documents, on_progress, collection=collection
        )
    return stats, skipped


def test_a_folder_read_by_two_processes_is_written_as_one_process_reads_it(
    runtime: Runtime, fake_embedder: HashEmbedder, clean_graph: Graph, folder: Path
) -> None:
    one, skipped_one = _ingest(runtime, fake_embedder, folder, "one", workers=1)
    two, skipped_two = _ingest(runtime, fake_embedder, folder, "two", workers=2)
    assert (one.written, two.written) == (FILES, FILES)
    assert skipped_one == skipped_two == ["area 0/data.bin", "area 1/empty.md"]
    by_one, by_two = ingested(clean_graph, "one"), ingested(clean_graph, "two")
    assert len(by_one.documents) == FILES and by_one.entities and by_one.relationships
    assert by_two.graph() == by_one.graph() and by_two.same_vectors(by_one)


def test_the_reading_stays_a_bounded_way_ahead_of_the_writes(
    runtime: Runtime,
    fake_embedder: HashEmbedder,
    clean_graph: Graph,
    folder: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    listed: list[str] = []
    real = LocalSource.entries

    def counted(self: LocalSource) -> Iterator[Entry]:
        for entry in real(self):
            listed.append(entry.path)
            yield entry

    monkeypatch.setattr(LocalSource, "entries", counted)
    at_each_write: list[int] = []
    stats, _ = _ingest(
        runtime,
        fake_embedder,
        folder,
        "ahead",
        workers=2,
        on_progress=lambda stats: at_each_write.append(len(listed)),
    )
    assert stats.written == FILES and len(listed) == FILES + 2
    # When the first batch committed, the files of at most the batch being written, the one
    # being prepared and the readers' window (``ahead``) had been listed: not the folder.
    assert at_each_write[0] <= 3 * BATCH + 1 < FILES


class Stop(Exception):
    pass


def test_an_ingest_stopped_part_way_and_run_again_writes_nothing_twice_and_loses_nothing(
    runtime: Runtime, fake_embedder: HashEmbedder, clean_graph: Graph, folder: Path
) -> None:
    whole, _ = _ingest(runtime, fake_embedder, folder, "whole", workers=2)

    def stop_after_two_batches(stats: IngestStats) -> None:
        if len(stats.batch_writes) == 2:
            raise Stop

    with pytest.raises(Stop):
        _ingest(
            runtime, fake_embedder, folder, "resumed", workers=2, on_progress=stop_after_two_batches
        )
    assert len(ingested(clean_graph, "resumed").documents) == 2 * BATCH
    again, _ = _ingest(runtime, fake_embedder, folder, "resumed", workers=2)
    assert (again.unchanged, again.written) == (2 * BATCH, FILES - 2 * BATCH)
    assert whole.chunks == again.chunks + sum(chunks for chunks, _ in whole.batch_writes[:2])
    resumed, whole = ingested(clean_graph, "resumed"), ingested(clean_graph, "whole")
    assert resumed.graph() == whole.graph() and resumed.same_vectors(whole)
