"""Ingestion on a Ray cluster (``anchorgraph ingest URL --ray``, ``Library.ingest(..., ray=)``):
the in-process pipeline's own stages (``Ingestor.decide``, ``parse``, ``embed``, ``prepared``,
``write``), run as the stages of a Ray Data stream so that they use every machine of the
cluster::

    list ─▶ read, decide, parse ─▶ embed ─▶ write ─▶ the driver's stats
    (1 task)  (tasks, a CPU each)  (actor pool:    (writers: a bounded actor pool,
                                    a GPU each      one transaction a batch)
                                    where there are)

- **list**: one task streams the source's listing (``anchorgraph.loaders.read.folder_files``), a
  file a block (``_pipeline`` says why);
- **read, decide, parse**: a task per ``files_per_task`` files on any free CPU reads them (and
  OCRs the scans), skips the documents whose content hash the graph holds (``Ingestor.decide``: a
  resumed run passes over what an earlier one wrote without reading the model) and chunks them
  and finds their entities, triples and claims (``Ingestor.parse``);
- **embed**: an actor pool, each actor loading the model once, on a GPU where the cluster has
  them (``Ingestor.embed``);
- **write**: ``writers`` actors (one by default), each batch decided again against the graph as
  it is then, so a document read twice in one run is refused or replaced exactly as the
  in-process ingest would, and written in one transaction (``Ingestor.write``).

Ray Data streams the blocks through the stages and holds a stage back when the next one lags
(its executor's back-pressure); ``preserve_order`` keeps the listing's order to the writers, so
one writer commits in the order the in-process ingest does and builds the same graph. A run
stopped at any point (the driver killed, a node lost) leaves each batch committed whole or not
at all, and the same command again writes only what is missing.

Each worker process builds its stages once from the job (``RayJob``): its own Neo4j connection,
model and spaCy pipeline (``_stages``). The driver's runtime applies the schema, sums the stages'
reports into one ``IngestStats`` and fits the FD* bins at the end, as the in-process ingest does.
Ray is imported by this module only, and only when it runs.
"""

from __future__ import annotations

import atexit
import logging
import socket
import time
import uuid
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import ExitStack, closing, contextmanager
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from anchorgraph.errors import AnchorgraphError, InvalidInput
from anchorgraph.loaders.files import FileReading
from anchorgraph.loaders.graph_writer import EmbeddedDocument
from anchorgraph.loaders.ingest import Ingestor, IngestStats, Parsed, ProgressCallback
from anchorgraph.loaders.model import SourceDocument
from anchorgraph.loaders.read import Skipped, folder_files, read_file, read_source
from anchorgraph.loaders.sources import Entry, Source
from anchorgraph.runtime import EmbedderFactory, Runtime, load_extractor, open_graph
from anchorgraph.scope import DEFAULT_COLLECTION, collection_name
from anchorgraph.settings import Settings
from anchorgraph.text.language import Language

if TYPE_CHECKING:
    from ray.data import Dataset

LOCAL = "local"  # --ray local: a cluster of this machine alone, started for the run
# Bytes a read-and-parse task asks for: Ray measured up to 810 MiB in a worker holding spaCy's
# small English pipeline while it read from s3:// (benchmarks/pipelines.py --object-store).
PARSE_TASK_MEMORY = 2**30
ONE_ITEM_A_BLOCK = 1  # byte: a block's target size that any item exceeds

# What flows between the stages, one item a row: a file to read, a document, a parsed or
# embedded one, or a report for the driver (stats, a skipped file).
_Item = tuple[Entry, str] | SourceDocument | Parsed | EmbeddedDocument | IngestStats | Skipped


@dataclass(frozen=True)
class RayJob:
    """What every stage of one run needs, sent to the workers once."""

    id: str  # a worker process builds its stages once per job (``_stages``)
    settings: Settings
    embedder_factory: EmbedderFactory
    gazetteer: Path | None
    source: Source
    fmt: str | None
    source_type: str
    collection: str
    replace: bool
    language: Language | None
    batch_size: int  # documents per transaction, and per embedding call
    files_per_task: int  # files a read task reads (and documents a parse task parses)
    writers: int
    gpus: int  # the cluster's: one embedding actor each, its model on that GPU

    @property
    def embedding_settings(self) -> Settings:
        """The settings an embedding actor loads its model with: on its GPU where it has one,
        on one CPU thread where it does not (as many actors as CPUs are spared)."""
        if self.gpus:
            return self.settings.model_copy(update={"embedding_device": "cuda"})
        return self.settings.model_copy(update={"embedding_threads": 1})


def ingest_on_ray(
    runtime: Runtime,
    location: str | Path,
    *,
    address: str = LOCAL,
    collection: str = DEFAULT_COLLECTION,
    replace: bool = False,
    language: Language | None = None,
    fmt: str | None = None,
    source_type: str = "",
    writers: int = 1,
    files_per_task: int = 16,
    on_progress: ProgressCallback | None = None,
    on_skip: Callable[[Skipped], None] | None = None,
) -> IngestStats:
    """Ingest the documents at ``location`` (a local path, or a URL every node of the cluster
    can read: ``s3://``, ...) into ``collection`` on the Ray cluster at ``address`` (``local``:
    one started on this machine for the run; a process that called ``ray.init`` itself runs on
    its cluster), with ``writers`` Neo4j writers. Writes what the in-process ingest writes
    (``runtime.ingestor``), refusals included; ``on_progress`` gets the stats after each batch
    written, ``on_skip`` each file no reader took.

    Raises:
        InvalidInput: ``collection`` is not a collection name; no Ray cluster answers at
            ``address``; Ray is not installed (the ``ray`` extra).
        SourceUnavailable: the source cannot be listed (before anything runs) or read.
    """
    from anchorgraph.ingestion import source_at

    collection = collection_name(collection)
    source = source_at(runtime.settings, location)  # a bad path or store fails here, at once
    with _cluster(address, runtime.settings) as gpus:
        job = RayJob(
            id=uuid.uuid4().hex,
            settings=runtime.settings,
            embedder_factory=runtime.embedder_factory,
            gazetteer=runtime.gazetteer,
            source=source,
            fmt=fmt,
            source_type=source_type,
            collection=collection,
            replace=replace,
            language=language,
            batch_size=runtime.batch_size,
            files_per_task=files_per_task,
            writers=writers,
            gpus=gpus,
        )
        stats = IngestStats(collection=collection)
        started = time.perf_counter()
        # Closed at once when the caller stops (an exception, Ctrl-C): Ray's executor then
        # stops too, rather than write on while a traceback holds the stream.
        with closing(_reports(_pipeline(job))) as reports:
            for item in reports:
                if isinstance(item, Skipped):
                    if on_skip is not None:
                        on_skip(item)
                    continue
                stats.add(item)
                stats.seconds = time.perf_counter() - started
                if item.batch_writes and on_progress is not None:
                    on_progress(stats)
    ingestor = runtime.ingestor
    # Also when nothing was written: an earlier run may have ended before its refit.
    stats.refitted = ingestor.refit_if_drifted(collection)
    stats.seconds = time.perf_counter() - started
    if stats.written and ingestor.on_change is not None:
        ingestor.on_change()
    return stats


# --- the cluster ----------------------------------------------------------------------------------
@contextmanager
def _cluster(address: str, settings: Settings) -> Iterator[int]:
    """Connected to the cluster at ``address`` for the block (started for it when ``local``,
    left as it was when this process is connected already); yields its GPUs.

    Raises:
        InvalidInput: Ray is not installed; nothing answers at ``address``.
    """
    try:
        import ray
    except ImportError:
        raise InvalidInput(
            "--ray needs Ray: pip install 'anchorgraph[ray]' (on the driver and every node)."
        ) from None
    import ray.data

    check_address(address, settings)
    started = not ray.is_initialized()
    if started:
        ray.init(address=address, include_dashboard=False, logging_level=logging.WARNING)
    try:
        yield int(_resources().get("GPU", 0))
    finally:
        if started:
            ray.shutdown()


def check_address(address: str, settings: Settings) -> None:
    """Raise ``InvalidInput`` unless ``address`` is ``local``, ``auto`` (the cluster this
    machine runs, which Ray finds and names when there is none) or a ``host:port`` /
    ``ray://host:port`` where something accepts a connection within
    ``settings.ray_connect_timeout_s``: ``ray.init`` itself retries an address that does not
    answer for minutes."""
    if address in (LOCAL, "auto"):
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    try:
        with socket.create_connection((host, int(port)), timeout=settings.ray_connect_timeout_s):
            return
    except ValueError:
        raise InvalidInput(
            f"--ray {address}: not a cluster address; give host:port (the head node's GCS "
            "port, 6379 by default), ray://host:port, auto or local."
        ) from None
    except OSError as error:
        raise InvalidInput(
            f"--ray {address}: no Ray cluster answers there ({error.strerror or error}); "
            "start one (`ray start --head`) or use --ray local."
        ) from None


# --- the stream -----------------------------------------------------------------------------------
def _pipeline(job: RayJob) -> Dataset:
    """The run's stages as one lazy Ray Data stream (``ingest_on_ray`` says what each does)."""
    import ray
    import ray.data
    from ray.data import ActorPoolStrategy

    cpus = int(_resources().get("CPU", 1))
    listed = ray.data.read_datasource(_listing(job), override_num_blocks=1, num_cpus=0)
    # Tasks over every CPU the actors leave, each asking for the memory of spaCy's pipeline and
    # a file's pages. Asking for it also keeps Ray from fusing them into the embedding actors,
    # which it does to maps of equal resources (ray/data/_internal/logical/rules/
    # operator_fusion.py): parsing and OCR would then run in as many processes as there are
    # actors (GPUs), one block after the other.
    parsed = listed.map_batches(
        _read_and_parse,
        fn_args=(job,),
        batch_size=job.files_per_task,
        batch_format="numpy",
        num_cpus=1,
        memory=PARSE_TASK_MEMORY,
    )
    if job.gpus:
        embedders = ActorPoolStrategy(min_size=1, max_size=job.gpus)
        on: dict[str, float] = {"num_gpus": 1}
    else:
        # One CPU thread an actor; the tasks before keep at least one core.
        embedders = ActorPoolStrategy(min_size=1, max_size=max(1, cpus // 2))
        on = {"num_cpus": 1}
    embedded = parsed.map_batches(
        _Embed,
        fn_constructor_args=(job,),
        batch_size=job.batch_size,
        batch_format="numpy",
        compute=embedders,
        **on,
    )
    written: Dataset = embedded.map_batches(
        _Write,
        fn_constructor_args=(job,),
        batch_size=job.batch_size,
        batch_format="numpy",
        compute=ActorPoolStrategy(size=job.writers),
        num_cpus=0,  # waiting on Neo4j: they never keep a task from a core
    )
    # The run's own settings (a Dataset keeps a copy of the context it was made in: other
    # datasets of this process are left as they are).
    context = written.context
    context.execution_options.preserve_order = True
    context.enable_progress_bars = False  # the driver reports progress (on_progress)
    # Ray Data packs what a task yields into blocks of up to ``target_max_block_size`` bytes
    # and sizes a Python object by its shell (ray/data/_internal/output_buffer.py): at its
    # default a whole listing is one block, read and parsed by one task, and no stage's report
    # reaches the driver before that stage has done everything. One item a block: each stage's
    # ``batch_size`` alone makes its tasks, and they stream from the first file listed.
    context.target_max_block_size = ONE_ITEM_A_BLOCK
    return written


def _resources() -> dict[str, float]:
    """The cluster's resources (CPU, GPU, ...) by name."""
    import ray

    return dict(ray.cluster_resources())  # type: ignore[no-untyped-call]


def _reports(stream: Dataset) -> Generator[IngestStats | Skipped, None, None]:
    """The reports the last stage gives, as they come; a failure in a stage raised as the
    anchorgraph error it was (a store that fails while read: ``SourceUnavailable``)."""
    try:
        for batch in stream.iter_batches(batch_size=None, batch_format="numpy"):
            yield from batch["item"]
    except AnchorgraphError:
        raise
    except Exception as error:
        cause = _anchorgraph_cause(error)
        if cause is None:
            raise
        raise cause from None


def _anchorgraph_cause(error: BaseException) -> AnchorgraphError | None:
    """The anchorgraph error a Ray exception carries, through its chain of causes."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, AnchorgraphError):
            return current
        current = getattr(current, "cause", None) or current.__cause__
    return None


def _listing(job: RayJob) -> Any:
    """The source's files (or, for a single file, its documents: read whole first, as in
    process) as a Ray Data source of one task, which streams them in blocks."""
    from ray.data.block import BlockMetadata
    from ray.data.context import DataContext
    from ray.data.datasource import Datasource, ReadTask

    class Listing(Datasource):
        def get_name(self) -> str:
            return "List"

        def estimate_inmemory_data_size(self) -> int | None:
            return None  # a listing's length is known at its end

        def get_read_tasks(
            self,
            parallelism: int,
            per_task_row_limit: int | None = None,
            data_context: DataContext | None = None,
        ) -> list[ReadTask]:
            unknown = BlockMetadata(
                num_rows=None, size_bytes=None, input_files=None, exec_stats=None
            )
            return [ReadTask(partial(_listed_blocks, job), unknown)]

    return Listing()  # type: ignore[no-untyped-call]


def _listed_blocks(job: RayJob) -> Iterator[Any]:
    """The listing as it is made, ``files_per_task`` rows a frame (Ray cuts them into a row a
    block: ``_pipeline``)."""
    import pandas as pd  # type: ignore[import-untyped]  # Ray's own dependency

    source = job.source
    block: list[_Item] = []
    if source.single:
        files = FileReading.configured(job.settings)
        max_bytes = job.settings.max_document_bytes
        items: Iterator[_Item] = iter(
            list(read_source(source, fmt=job.fmt, source_type=job.source_type,
                             max_bytes=max_bytes, files=files))
        )  # fmt: skip
    else:
        items = _files_and_skips(job)
    for item in items:
        block.append(item)
        if len(block) >= job.files_per_task:
            yield pd.DataFrame({"item": _column(block)})
            block = []
    if block:
        yield pd.DataFrame({"item": _column(block)})


def _files_and_skips(job: RayJob) -> Iterator[_Item]:
    skipped: list[Skipped] = []
    for file in folder_files(job.source, job.fmt, skipped.append, None):
        yield from skipped
        skipped.clear()
        yield file
    yield from skipped


def _read_and_parse(batch: dict[str, np.ndarray], job: RayJob) -> dict[str, np.ndarray]:
    """Read a block's files, decide what of them to write and parse that (a task)."""
    stages = _stages(job, "parse")
    reports: list[_Item] = []
    documents: list[SourceDocument] = []
    reading = FileReading.configured(job.settings)
    for item in batch["item"]:
        if isinstance(item, SourceDocument):
            documents.append(item)
        elif isinstance(item, tuple):
            found = read_file(
                job.source, job.source_type, job.settings.max_document_bytes, reading, item
            )
            documents += found.documents
            reports += [found.skipped] if found.skipped is not None else []
        else:
            reports.append(item)
    if not documents:
        return {"item": _column(reports)}
    clock = time.perf_counter()
    decided = stages.decide(documents, job.collection, replace=job.replace, language=job.language)
    parsed = stages.parse(decided.todo)
    part = IngestStats(collection=job.collection, parse_s=time.perf_counter() - clock)
    decided.count_into(part)
    return {"item": _column([*reports, part, *parsed])}


class _Embed:
    """The model, loaded once an actor, on the chunks, triples and links of parsed
    documents."""

    def __init__(self, job: RayJob) -> None:
        self.job = job
        self.stages = _stages(job, "embed")

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        parsed = [item for item in batch["item"] if isinstance(item, Parsed)]
        others = [item for item in batch["item"] if not isinstance(item, Parsed)]
        clock = time.perf_counter()
        embedded = self.stages.embed(parsed) if parsed else []
        part = IngestStats(collection=self.job.collection, embed_s=time.perf_counter() - clock)
        return {"item": _column([*others, part, *embedded])}


class _Write:
    """A Neo4j writer: each batch decided again against the graph as it is now, then written
    in one transaction."""

    def __init__(self, job: RayJob) -> None:
        self.job = job
        self.stages = _stages(job, "write")

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        job, stages = self.job, self.stages
        others = [item for item in batch["item"] if not isinstance(item, EmbeddedDocument)]
        # The last of several with one id, as decide keeps it.
        embedded = {
            item.source.id: item for item in batch["item"] if isinstance(item, EmbeddedDocument)
        }
        if not embedded:
            return {"item": _column(others)}
        clock = time.perf_counter()
        decided = stages.decide(
            [document.source for document in embedded.values()],
            job.collection,
            replace=job.replace,
        )
        # Counted once already, when they were read.
        decided = replace(decided, n_documents=0, warnings=[])
        writing = [embedded[document.id] for document, _ in decided.todo]
        prepared = stages.prepared(decided, writing, job.collection)
        part = IngestStats(collection=job.collection, embed_s=time.perf_counter() - clock)
        if writing:
            seconds, without_embedding = stages.write(job.collection, prepared)
            part.write_s = seconds
            part.batch_writes.append((sum(len(d.chunks) for d in writing), seconds))
            if without_embedding:
                part.warnings.append(
                    f"{len(without_embedding)} entities written without an embedding (removed"
                    " while the batch was prepared); they get one when next ingested"
                )
        prepared.count_into(part)
        return {"item": _column([*others, part])}


# --- a worker's stages ----------------------------------------------------------------------------
# Built once a worker process (and role) and job: the model, spaCy and a Neo4j connection.
_built: dict[tuple[str, str], Ingestor] = {}


def _stages(job: RayJob, role: str) -> Ingestor:
    """This process's ingestor for ``job``: the stages, as the driver's are configured. An
    embedding actor loads the model as ``RayJob.embedding_settings`` say."""
    key = (job.id, role)
    if key not in _built:
        settings = job.embedding_settings if role == "embed" else job.settings
        resources = ExitStack()
        graph = resources.enter_context(open_graph(settings))
        atexit.register(resources.close)
        _built[key] = Ingestor.configured(
            settings,
            graph,
            job.embedder_factory(settings),
            load_extractor(settings, job.gazetteer),
            batch_size=job.batch_size,
        )
    return _built[key]


def _column(items: Sequence[Any]) -> np.ndarray:
    """Items as a column of Python objects (``np.array`` would unpack tuples into rows)."""
    column = np.empty(len(items), dtype=object)
    for row, item in enumerate(items):
        column[row] = item
    return column
