"""Ingestion helpers for the entry points: read everything first, the sample corpus, and a
progress bar over ``Ingestor.ingest``. The ``Ingestor`` itself comes from ``service.runtime``."""

from __future__ import annotations

from collections.abc import Callable
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

from loaders.ingest import Ingestor, IngestStats
from loaders.model import SourceDocument
from loaders.read import Skipped, read_path
from service.settings import Settings


def sample_corpus() -> Path:
    """The Markdown corpus written for this project (``loaders/sample_corpus``)."""
    return Path(str(resources.files("loaders").joinpath("sample_corpus")))


def sample_gazetteer() -> Path:
    return Path(str(resources.files("loaders").joinpath("sample_gazetteer.json")))


def read_all(
    settings: Settings, path: Path, *, fmt: str | None = None, source_type: str = ""
) -> tuple[list[SourceDocument], list[Skipped]]:
    """Read everything first, so a bad single file fails before anything is written."""
    skipped: list[Skipped] = []
    documents = list(
        read_path(
            path,
            fmt=fmt,
            source_type=source_type,
            max_bytes=settings.max_document_bytes,
            on_skip=skipped.append,
        )
    )
    return documents, skipped


def ingest_with_progress(
    ingestor: Ingestor,
    documents: list[SourceDocument],
    console: Console,
    also: Callable[[IngestStats, str], None] | None = None,
) -> IngestStats:
    """Ingest with a progress bar: documents and chunks per second, and the time left.
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
        task = progress.add_task("ingest", total=len(documents), rate="")

        def update(stats: IngestStats) -> None:
            seconds = max(stats.seconds, 1e-9)
            rate = f"{stats.documents / seconds:.1f} docs/s {stats.chunks / seconds:.1f} chunks/s"
            progress.update(task, completed=stats.documents, rate=rate)
            if also is not None:
                also(stats, rate)

        return ingestor.ingest(documents, on_progress=update)
