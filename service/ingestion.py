"""Ingestion helpers for the entry points: sources by path or URL read as they are written (a
folder's files in processes of their own while the model embeds), a sync's plan, the sample
corpus in its own collection, and a progress bar over ``Ingestor.ingest``. The ``Ingestor``
itself comes from ``anchorgraph.runtime``."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sized
from contextlib import closing, contextmanager
from importlib import resources
from pathlib import Path

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from anchorgraph.errors import InvalidInput
from anchorgraph.loaders.files import FileReading
from anchorgraph.loaders.ingest import Ingestor, IngestStats, ProgressCallback
from anchorgraph.loaders.model import SourceDocument
from anchorgraph.loaders.pool import workers_for
from anchorgraph.loaders.read import Skipped, read_source
from anchorgraph.loaders.sources import Entry, Source, SourceOptions, open_source
from anchorgraph.loaders.sync import SyncPlan, plan_sync
from anchorgraph.runtime import Runtime, load_extractor
from anchorgraph.scope import ARCHIVE_COLLECTION, DEFAULT_COLLECTION, SAMPLE_COLLECTION
from anchorgraph.settings import Settings
from anchorgraph.text.language import Language


def sample_corpus() -> Path:
    """The Markdown corpus written for this project (``loaders/sample_corpus``)."""
    return Path(str(resources.files("anchorgraph.loaders").joinpath("sample_corpus")))


def archive_corpus() -> Path:
    """The second sample, the museum's archive of 1963–1979 in Portuguese and Italian, written
    for this project as Markdown (``loaders/sample_archive``; docs/sample_archive.md); the test
    suite renders some of it as scans, PDFs and Word files and reads them back."""
    return Path(str(resources.files("anchorgraph.loaders").joinpath("sample_archive")))


def archive_questions() -> Path:
    """The archive's judged questions (``loaders/sample_archive_questions.json``)."""
    return Path(
        str(resources.files("anchorgraph.loaders").joinpath("sample_archive_questions.json"))
    )


def sample_gazetteer() -> Path:
    return Path(str(resources.files("anchorgraph.loaders").joinpath("sample_gazetteer.json")))


def sample_ingestor(runtime: Runtime) -> Ingestor:
    """The runtime's ingestor with the sample's own gazetteer (its museum names and aliases):
    ``anchorgraph run`` and ``Library.load_sample`` both ingest the sample with it, so they
    write the same graph and running one after the other writes nothing."""
    extractor = load_extractor(runtime.settings, sample_gazetteer())
    return Ingestor.configured(
        runtime.settings,
        runtime.graph,
        runtime.embedder,
        extractor,
        on_change=runtime.search.sizes.forget,
    )


def load_sample(
    runtime: Runtime,
    console: Console | None = None,
    *,
    collection: str = SAMPLE_COLLECTION,
    corpus: Path | None = None,
) -> IngestStats:
    """Ingest the sample corpus (or ``corpus``: ``archive_corpus()``) into its own collection
    (``sample``), with a progress bar on ``console``; no other collection is touched."""
    documents, _ = read_all(runtime.settings, corpus or sample_corpus())
    ingestor = sample_ingestor(runtime)
    if console is None:
        return ingestor.ingest(documents, collection=collection)
    return ingest_with_progress(ingestor, documents, console, collection=collection)


def load_samples(runtime: Runtime, console: Console | None = None) -> list[IngestStats]:
    """Both samples, each into its own collection: the English corpus into ``sample``, the
    archive into ``arquivo`` (what ``anchorgraph run`` loads)."""
    return [
        load_sample(runtime, console),
        load_sample(runtime, console, collection=ARCHIVE_COLLECTION, corpus=archive_corpus()),
    ]


def source_at(settings: Settings, location: str | Path) -> Source:
    """The source at a local path or a URL (``s3://bucket/prefix``, ``file://``, ``gs://``, …),
    reached within the configured timeouts and attempts.

    Raises:
        InvalidInput: a local path that does not exist, a scheme no installed package serves.
        SourceUnavailable: the bucket or folder cannot be listed.
    """
    options = SourceOptions(
        connect_timeout_s=settings.source_connect_timeout_s,
        read_timeout_s=settings.source_read_timeout_s,
        attempts=settings.source_attempts,
    )
    return open_source(location, options)


@contextmanager
def reading(
    settings: Settings,
    location: str | Path,
    *,
    fmt: str | None = None,
    source_type: str = "",
    on_skip: Callable[[Skipped], None] | None = None,
    only: Callable[[Entry], bool] | None = None,
    ahead: int = 64,
) -> Iterator[Iterator[SourceDocument]]:
    """The documents at ``location`` (``source_at``), read as they are taken: a folder's files
    by ``settings.read_workers`` processes, at most ``ahead`` files ahead of the taker, in the
    order of its listing (``read_source``); the files no reader takes go to ``on_skip``. A
    single file is read whole before its first document is given, so a JSON Lines file with a
    bad line gives none. Leaving the block stops the reading.

    Raises:
        InvalidInput: no such local file or folder; a URL no installed package serves.
        SourceUnavailable: the bucket or folder cannot be listed (here), or read (while
            iterating).
    """
    source = source_at(settings, location)
    documents = read_source(
        source,
        fmt=fmt,
        source_type=source_type,
        max_bytes=settings.max_document_bytes,
        on_skip=on_skip,
        files=FileReading.configured(settings),
        only=only,
        workers=workers_for(settings.read_workers),
        in_process_s=settings.read_in_process_s,
        ahead=ahead,
    )
    try:
        yield iter(list(documents)) if source.single else documents
    finally:
        documents.close()


def read_all(
    settings: Settings,
    location: str | Path,
    *,
    fmt: str | None = None,
    source_type: str = "",
    only: Callable[[Entry], bool] | None = None,
) -> tuple[list[SourceDocument], list[Skipped]]:
    """Every document at ``location`` (of the files ``only`` accepts, when given), read
    (``reading``), and the files no reader took."""
    skipped: list[Skipped] = []
    with reading(
        settings, location, fmt=fmt, source_type=source_type, on_skip=skipped.append, only=only
    ) as documents:
        return list(documents), skipped


def plan_folder_sync(
    settings: Settings,
    ingestor: Ingestor,
    source: Source,
    collection: str,
    *,
    replace: bool = False,
) -> tuple[SyncPlan, list[Skipped]]:
    """The plan of a sync of the folder or bucket prefix ``source`` (``source_at``) into
    ``collection`` (``anchorgraph.loaders.sync``), and the files no reader took.

    Raises:
        InvalidInput: ``source`` is a single file: a sync mirrors a folder.
        SourceUnavailable: the bucket or folder cannot be listed or read.
    """
    if source.single:
        raise InvalidInput(f"{source.uri}: a file; sync mirrors a folder or a bucket prefix.")
    skipped: list[Skipped] = []

    def read(only: Callable[[Entry], bool]) -> list[SourceDocument]:
        documents = read_source(
            source,
            max_bytes=settings.max_document_bytes,
            on_skip=skipped.append,
            files=FileReading.configured(settings),
            only=only,
            workers=workers_for(settings.read_workers),
            in_process_s=settings.read_in_process_s,
        )
        with closing(documents):
            return list(documents)

    plan = plan_sync(ingestor.graph, ingestor, read, source.uri, collection, replace=replace)
    return plan, skipped


def ingest_with_progress(
    ingestor: Ingestor,
    documents: Iterable[SourceDocument],
    console: Console,
    also: Callable[[IngestStats, str], None] | None = None,
    *,
    collection: str = DEFAULT_COLLECTION,
    replace: bool = False,
    language: Language | None = None,
) -> IngestStats:
    """Ingest into ``collection`` (documents that declare no language in ``language``, else in
    the one detected) with a progress bar (``progress_bar``; the time left when ``documents``
    is a list, since a stream's length is known only at its end)."""
    total = len(documents) if isinstance(documents, Sized) else None
    with progress_bar(console, total, also) as update:
        return ingestor.ingest(
            documents,
            on_progress=update,
            collection=collection,
            replace=replace,
            language=language,
        )


@contextmanager
def progress_bar(
    console: Console,
    total: int | None = None,
    also: Callable[[IngestStats, str], None] | None = None,
) -> Iterator[ProgressCallback]:
    """A progress bar of an ingest for the block, and the callback that moves it: documents
    and chunks per second, and the time left when the ``total`` of documents is known.
    ``also`` gets every update with its rate text (the evaluation logs a heartbeat with it)."""
    columns = (
        TextColumn("[bold]ingest"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=False) as progress:
        task = progress.add_task("ingest", total=total, rate="")

        def update(stats: IngestStats) -> None:
            seconds = max(stats.seconds, 1e-9)
            rate = f"{stats.documents / seconds:.1f} docs/s {stats.chunks / seconds:.1f} chunks/s"
            progress.update(task, completed=stats.documents, rate=rate)
            if also is not None:
                also(stats, rate)

        yield update


def ingest_summary(stats: IngestStats) -> str:
    """What an ingest did, in one sentence, and which documents it refused and why."""
    moved = f", {stats.moved} moved from another id" if stats.moved else ""
    counts = (
        f"{stats.documents} documents read into collection {stats.collection!r}: "
        f"{stats.written} written ({stats.written - stats.replaced} new, {stats.replaced} "
        f"replaced{moved}), {stats.unchanged} unchanged, {len(stats.refused)} refused"
    )
    refusals = [f"\n  refused: {refusal.message(stats.collection)}" for refusal in stats.refused]
    hint = (
        "\n  (use another --collection to keep both, or --replace to replace them)"
        if stats.refused
        else ""
    )
    return counts + "".join(refusals) + hint
