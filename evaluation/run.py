"""The harness behind ``anchorgraph eval``: a Neo4j for the evaluation, the corpus ingested once,
every condition over every query of the split, the outputs.

The evaluation graph is kept apart from a user's graph: unless a URI is given, the project's own
``LocalNeo4j`` runs in a home of its own per dataset (``eval-neo4j/<dataset>`` in the data
folder, ``Settings.data_dir``) on free ports. Re-running on the same dataset ingests nothing (the
``Ingestor`` skips documents whose content hash the graph holds); a graph holds one dataset at a
time, so another dataset found there (a ``--neo4j-home`` shared between datasets) is wiped first.
A server given by URI is never wiped unless ``wipe`` says so.
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from anchorgraph import (
    AnchorgraphError,
    IngestStats,
    Runtime,
    Settings,
    SourceDocument,
    open_runtime,
)
from anchorgraph.engine import (
    DEFAULT_COLLECTION,
    LinkReport,
    LocalNeo4j,
    Query,
    SchemaMode,
    cypher,
    free_port,
    ingest_with_progress,
    link_corpus,
    startup_objects_frozen,
)
from anchorgraph.evaluation import conditions as conds
from anchorgraph.evaluation.datasets import BeirSplit, load_split, source_documents
from anchorgraph.evaluation.metrics import TIERS5, aggregate, latency_summary, per_query, tier_share
from anchorgraph.evaluation.report import (
    ConditionResult,
    EvalReport,
    paired_tests,
    reference_names,
    write_all,
)

log = logging.getLogger(__name__)

# The dataset's collection in its evaluation graph (a server of its own): the one an ingest
# writes into when it names none, where every search reads.
EVAL_COLLECTION = {"collection": DEFAULT_COLLECTION}
_PORTS_FILE = "eval-ports.json"


def eval_home(dataset: str, settings: Settings | None = None) -> Path:
    """The home of ``dataset``'s evaluation Neo4j: ``eval-neo4j/<dataset>`` in the data folder
    (``Settings.data_dir``), where ``neo4j/`` is the user's own server."""
    return (settings or Settings()).data_dir / "eval-neo4j" / dataset


class EvalError(AnchorgraphError):
    """The evaluation cannot run as asked."""


@dataclass(frozen=True)
class EvalConfig:
    dataset: Path
    split: str
    conditions: Sequence[str] = ("all",)
    out: Path | None = None  # default: eval/<dataset>-<split> in Settings.data_dir
    max_queries: int | None = None
    seed: int = 0
    entities: bool = True  # spaCy NER and triples; False: gazetteer and identifier patterns
    casing_names: bool = False  # without entities: also the names capitals show (loaders/names)
    title_in_text: bool = True
    classify_source_types: bool = True  # study designs as source types (FD*'s tiers)
    link_titles: bool = False  # link mentions of other documents' titles (corpora without links)
    depth: int = conds.DEPTH
    neo4j_uri: str | None = None
    neo4j_home: Path | None = None  # default: eval_home(<dataset>)
    keep_server: bool = False
    wipe: bool = False  # allow wiping a server given by URI
    batch_size: int = 64

    def out_dir(self, split: BeirSplit) -> Path:
        return self.out or Settings().data_dir / "eval" / f"{split.name}-{split.split}"

    def runtime_settings(self, settings: Settings) -> Settings:
        """The server's settings as the run ingests with them: without ``entities`` no spaCy
        pipeline (the gazetteer and identifier patterns only, and with ``casing_names`` the
        names capitals show); study designs as source types unless turned off."""
        update: dict[str, Any] = {
            "classify_source_types": self.classify_source_types,
            "casing_names": self.casing_names,
        }
        if not self.entities:
            update["spacy_model"] = ""
        return settings.model_copy(update=update)


# --- the server ---------------------------------------------------------------------------------
@contextmanager
def eval_server(
    config: EvalConfig, dataset: str, console: Console
) -> Iterator[tuple[Settings, bool]]:
    """Settings for the evaluation Neo4j, and whether it is ours (so may be wiped).

    With a URI (argument or ``ANCHORGRAPH_NEO4J_URI``) that server; otherwise the LocalNeo4j of
    the dataset's eval home, reused when it already runs, else started on free ports (and
    stopped at the end unless ``keep_server``).
    """
    base = Settings()
    uri = config.neo4j_uri or base.neo4j_uri
    if uri is not None:
        yield base.model_copy(update={"neo4j_uri": uri}), config.wipe
        return
    home = (config.neo4j_home or eval_home(dataset, base)).expanduser()
    ports_file = home / _PORTS_FILE
    ports = json.loads(ports_file.read_text()) if ports_file.exists() else None
    settings = _home_settings(base, home, ports)
    server = LocalNeo4j(settings)
    if ports is not None and server.status().running:
        console.print(f"Evaluation Neo4j already running at {server.bolt_uri} ({home}).")
        yield settings, True
        return
    settings = _home_settings(base, home, {"bolt": free_port(), "http": free_port()})
    server = LocalNeo4j(settings)
    home.mkdir(parents=True, exist_ok=True)
    ports_file.write_text(
        json.dumps({"bolt": settings.neo4j_bolt_port, "http": settings.neo4j_http_port})
    )
    with console.status(f"Starting the evaluation Neo4j in {home}"):
        server.start()
    console.print(f"Evaluation Neo4j started at {server.bolt_uri} ({home}).")
    try:
        yield settings, True
    finally:
        if config.keep_server:
            console.print(f"Evaluation Neo4j left running at {server.bolt_uri}.")
        else:
            with console.status("Stopping the evaluation Neo4j"):
                server.stop()


def stop_eval_server(home: Path) -> bool:
    """Stop the evaluation Neo4j of ``home`` (one left running by ``keep_server``)."""
    ports_file = home / _PORTS_FILE
    if not ports_file.exists():
        return False
    settings = _home_settings(Settings(), home, json.loads(ports_file.read_text()))
    return LocalNeo4j(settings).stop()


def _home_settings(base: Settings, home: Path, ports: dict[str, int] | None) -> Settings:
    # The eval home has its own generated password (0600 in the home), whatever the main
    # server uses.
    update: dict[str, Any] = {"neo4j_home": home, "neo4j_uri": None, "neo4j_password": None}
    if ports is not None:
        update |= {"neo4j_bolt_port": ports["bolt"], "neo4j_http_port": ports["http"]}
    return base.model_copy(update=update)


class Heartbeat:
    """A plain line every ``every_s`` seconds when the console is not a terminal (a log file),
    where rich's live progress bars are not drawn."""

    def __init__(self, console: Console | None, every_s: float = 30.0) -> None:
        self._console = console if console is not None and not console.is_terminal else None
        self._every_s = every_s
        self._last = time.monotonic()

    def __call__(self, message: str, *, force: bool = False) -> None:
        if self._console is None:
            return
        now = time.monotonic()
        if force or now - self._last >= self._every_s:
            self._last = now
            self._console.print(f"[{time.strftime('%H:%M:%S')}] {message}", highlight=False)


# --- the graph ----------------------------------------------------------------------------------
def prepare_graph(
    runtime: Runtime,
    documents: list[SourceDocument],
    *,
    may_wipe: bool,
    console: Console | None = None,
) -> IngestStats:
    """Make the graph hold exactly ``documents``: remove others (wiping when most of the graph
    is another dataset), then ingest (unchanged documents are skipped by content hash)."""
    present = {str(r["id"]) for r in runtime.graph.read(Query.DOCUMENT_IDS, EVAL_COLLECTION)}
    wanted = {d.id for d in documents}
    stale = present - wanted
    if stale:
        if not may_wipe:
            raise EvalError(
                f"The graph holds {len(stale)} documents that are not in this dataset; "
                "evaluate on a server of its own, or pass --wipe to empty it first."
            )
        if len(stale) * 2 > len(present):
            if console:
                console.print(f"Wiping the graph ({len(present)} documents of another dataset).")
            runtime.graph.run(cypher(Query.DELETE_ALL_BATCHED))  # auto-commit: IN TRANSACTIONS
        else:
            runtime.ingestor.delete(sorted(stale))
    return _ingest(runtime, documents, console)


def _ingest(
    runtime: Runtime, documents: list[SourceDocument], console: Console | None
) -> IngestStats:
    if console is None:
        return runtime.ingestor.ingest(documents)
    heartbeat = Heartbeat(console)
    total = len(documents)
    return ingest_with_progress(
        runtime.ingestor,
        documents,
        console,
        also=lambda stats, rate: heartbeat(
            f"ingest {stats.documents}/{total} ({stats.written} written, {rate}, "
            f"{stats.seconds:.0f} s)"
        ),
    )


def document_source_types(runtime: Runtime) -> dict[str, str]:
    """Document id → source type, where the graph has any but its format's name."""
    records = runtime.graph.read(Query.DOCUMENT_SOURCE_TYPES, EVAL_COLLECTION)
    types = {record["id"]: record["source_type"] for record in records}
    return types if set(types.values()) - {"", "beir"} else {}


def graph_facts(runtime: Runtime) -> dict[str, Any]:
    """The server and the size of the graph, for the report's setup."""
    (counts,) = runtime.graph.read(Query.GRAPH_COUNTS)
    (server,) = runtime.graph.read(Query.SERVER_INFO)
    return {"neo4j": f"{server['version']} {server['edition']}", "graph": dict(counts)}


# --- the loop -----------------------------------------------------------------------------------
def evaluate(
    conditions: Sequence[conds.Condition],
    split: BeirSplit,
    *,
    depth: int = conds.DEPTH,
    console: Console | None = None,
    source_types: Mapping[str, str] | None = None,
) -> list[ConditionResult]:
    """Every condition over every query of the split, one condition after another; with the
    documents' ``source_types``, each condition's evidence-tier share of the top 5 too."""
    results: list[ConditionResult] = []
    columns = (
        TextColumn("{task.description:<28}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[ndcg]}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    heartbeat = Heartbeat(console)
    with Progress(*columns, console=console, disable=console is None) as progress:
        for condition in conditions:
            task = progress.add_task(condition.name[:28], total=len(split.queries), ndcg="")
            started = time.perf_counter()
            results.append(
                evaluate_condition(condition, split, depth, progress, task, heartbeat, source_types)
            )
            progress.update(task, ndcg=f"NDCG@10 {results[-1].ndcg:.3f}")
            heartbeat(
                f"{condition.name}: NDCG@10 {results[-1].ndcg:.4f} "
                f"({time.perf_counter() - started:.0f} s)",
                force=True,
            )
    return results


def evaluate_condition(
    condition: conds.Condition,
    split: BeirSplit,
    depth: int = conds.DEPTH,
    progress: Progress | None = None,
    task: Any = None,
    heartbeat: Heartbeat | None = None,
    source_types: Mapping[str, str] | None = None,
) -> ConditionResult:
    rankings: dict[str, list[str]] = {}
    latencies: list[float] = []
    tokens: list[float] = []
    failures: list[str] = []
    if split.queries:  # untimed warm-up: caches, lazy loads, JIT in Neo4j
        first = split.queries[0]
        with contextlib.suppress(Exception):  # the timed loop below records a failure
            condition.rank(first.id, first.text)
    for query in split.queries:
        try:
            ranked, milliseconds = conds.timed(condition, query.id, query.text)
        except Exception as error:  # one failing query scores 0; the run goes on
            log.warning("%s failed on query %s: %s", condition.name, query.id, error)
            failures.append(f"{query.id}: {type(error).__name__}: {error}")
            ranked, milliseconds = [], None
        unique = list({r.doc_id: r for r in ranked}.values())[:depth]
        rankings[query.id] = [r.doc_id for r in unique]
        if milliseconds is not None:
            latencies.append(milliseconds)
            tokens.append(sum(_tokens(r, split) for r in unique[:10]))
        if progress is not None:
            progress.advance(task)
        if heartbeat is not None:
            heartbeat(f"{condition.name}: {len(rankings)}/{len(split.queries)} queries")
    values = per_query(split.qrels, rankings)
    if source_types:
        values[TIERS5] = tier_share(rankings, source_types)
    notes: dict[str, Any] = dict(getattr(condition, "notes", {}) or {})
    if failures:
        notes["first_failures"] = failures[:3]
    return ConditionResult(
        name=condition.name,
        metrics=aggregate(values),
        per_query=values,
        latency_ms=latency_summary(latencies),
        tokens_top10=sum(tokens) / len(tokens) if tokens else 0.0,
        failures=len(failures),
        notes=notes,
    )


def _tokens(ranked: conds.Ranked, split: BeirSplit) -> int:
    if ranked.tokens is not None:
        return ranked.tokens
    document = split.corpus.get(ranked.doc_id)
    return len(document.full_text.split()) if document else 0


def build_report(
    split: BeirSplit, results: list[ConditionResult], setup: dict[str, Any]
) -> EvalReport:
    references = reference_names(results, conds.PLAIN_HYBRID, conds.PEERS)
    return EvalReport(
        dataset=split.name,
        split=split.split,
        queries=len(split.queries),
        documents=len(split.corpus),
        setup=setup,
        conditions=results,
        references=references,
        significance=paired_tests(results, references),
    )


# --- the whole run ------------------------------------------------------------------------------
def run(config: EvalConfig, console: Console) -> tuple[EvalReport, dict[str, Path]]:
    """Load the split, prepare the graph, evaluate every condition, write the outputs."""
    split = load_split(
        config.dataset, config.split, max_queries=config.max_queries, seed=config.seed
    )
    specs = [conds.Spec.parse(spec) for spec in conds.expand(config.conditions)]
    console.print(
        f"{split.name} · {split.split}: {len(split.queries)} queries, {len(split.corpus)} "
        f"documents; {len(specs)} conditions."
    )
    with contextlib.ExitStack() as stack:
        server, ours = stack.enter_context(eval_server(config, split.name, console))
        settings = config.runtime_settings(server)
        with console.status(f"Loading {settings.embedding_model}, applying the schema"):
            runtime = stack.enter_context(
                open_runtime(settings, schema=SchemaMode.APPLY, batch_size=config.batch_size)
            )
        documents = source_documents(
            split, title_in_text=config.title_in_text, max_bytes=settings.max_document_bytes
        )
        links: LinkReport | None = None
        if config.link_titles:  # after the title joined the text: spans are in the final text
            documents, links = link_corpus(documents)
            console.print(links.summary())
        stats = prepare_graph(runtime, documents, may_wipe=ours, console=console)
        console.print(
            f"Graph ready: {stats.written} written, {stats.unchanged} unchanged "
            f"in {stats.seconds:.1f} s."
        )
        setup = _setup(config, runtime, stats) | graph_facts(runtime)
        if links is not None:
            setup["title_links"] = links.summary()
        resources = conds.Resources(split, runtime, settings.cache_dir / "eval", config.depth)
        with console.status("Building the conditions"):
            # The in-memory references embed the whole corpus once (then cached).
            built = [conds.build(spec, resources) for spec in specs]
        with startup_objects_frozen():  # as the API: no full GC pass in a timed search
            source_types = document_source_types(runtime)
            results = evaluate(
                built, split, depth=config.depth, console=console, source_types=source_types
            )
    report = build_report(split, results, setup)
    paths = write_all(report, config.out_dir(split))
    return report, paths


def _setup(config: EvalConfig, runtime: Runtime, stats: IngestStats) -> dict[str, Any]:
    settings = runtime.settings
    spacy_model = settings.spacy_model or None
    return {
        "model": runtime.embedder.name,
        "entities": f"spaCy {spacy_model} NER + triples"
        if spacy_model
        else "gazetteer, identifier patterns and names by casing (no spaCy)"
        if settings.casing_names
        else "gazetteer and identifier patterns only (no spaCy)",
        "title_in_text": config.title_in_text,
        "source_types": "study design classified at ingest"
        if config.classify_source_types
        else "as declared",
        "chunking": f"{settings.chunk_tokens} model tokens, overlap {settings.chunk_overlap}",
        "depth": config.depth,
        "max_queries": config.max_queries,
        "seed": config.seed,
        "ingest": {
            "written": stats.written,
            "unchanged": stats.unchanged,
            "seconds": round(stats.seconds, 1),
        },
        "ir_measures": version("ir-measures"),
        "neo4j_graphrag": version("neo4j-graphrag"),
        "created": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
