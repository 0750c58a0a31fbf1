"""The ``anchorgraph`` command line: local Neo4j, schema, ingestion, search, API server."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from service.errors import AnchorgraphError
from service.graph.local_server import LocalNeo4j
from service.settings import Settings

if TYPE_CHECKING:  # the loaders import spaCy; commands that need them import them late
    from service.retrieval.types import SearchResult

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    help="anchorgraph: knowledge retrieval on Neo4j (local server, schema, ingestion, API).",
)
neo4j_app = typer.Typer(no_args_is_help=True, help="The project's own local Neo4j server.")
db_app = typer.Typer(no_args_is_help=True, help="The graph schema.")
app.add_typer(neo4j_app, name="neo4j")
app.add_typer(db_app, name="db")

console = Console()
err = Console(stderr=True)


@contextlib.contextmanager
def _clear_errors() -> Iterator[None]:
    """Our own errors end the command with their message, not a traceback."""
    try:
        yield
    except AnchorgraphError as error:
        err.print(f"[bold red]error:[/] {error}")
        raise typer.Exit(1) from None


def _local(settings: Settings) -> LocalNeo4j:
    if not settings.uses_local_server:
        err.print(
            f"[bold red]error:[/] ANCHORGRAPH_NEO4J_URI is set ({settings.neo4j_uri}); "
            "the local server is not used."
        )
        raise typer.Exit(2)
    return LocalNeo4j(settings)


@neo4j_app.command("install")
def neo4j_install() -> None:
    """Fetch the Neo4j server and Browser jars from Maven Central into the cache (once)."""
    settings = Settings()
    with _clear_errors(), console.status(f"Resolving Neo4j {settings.neo4j_version} with Maven"):
        # Installing is harmless with an external server too: `make setup` always runs it.
        lib = LocalNeo4j(settings).install()
    console.print(f"Neo4j {settings.neo4j_version} jars in {lib}")


@neo4j_app.command("start")
def neo4j_start() -> None:
    """Start the local Neo4j on loopback and wait until Bolt answers."""
    settings = Settings()
    server = _local(settings)
    if (pid := server.status().pid) is not None:
        console.print(f"Neo4j is already running (pid {pid}) at {server.bolt_uri}.")
        return
    with _clear_errors(), console.status("Starting Neo4j (the first start fetches its jars)"):
        status = server.start()
    _print_server(settings, server, f"Neo4j started (pid {status.pid})")


@neo4j_app.command("stop")
def neo4j_stop() -> None:
    """Stop the local Neo4j (and its JVM)."""
    with _clear_errors():
        stopped = _local(Settings()).stop()
    console.print("Neo4j stopped." if stopped else "Neo4j was not running.")


@neo4j_app.command("status")
def neo4j_status() -> None:
    """Say whether the local Neo4j runs, and where."""
    settings = Settings()
    server = _local(settings)
    status = server.status()
    if status.running:
        _print_server(settings, server, f"Neo4j is running (pid {status.pid})")
    else:
        console.print(f"Neo4j is not running (home {status.home}).")
        raise typer.Exit(3)


@db_app.command("init")
def db_init() -> None:
    """Create constraints and indexes (idempotent) and wait until they are ONLINE."""
    from service.runtime import open_runtime

    settings = Settings()
    with (
        _clear_errors(),
        console.status(f"Loading {settings.embedding_model}, applying the schema"),
        open_runtime(settings, schema="apply") as runtime,
    ):
        states, dimension = runtime.indexes, runtime.embedder.dimension
    for state in states:
        console.print(f"  {state.name:<22} {state.type:<9} {state.state}")
    console.print(
        f"Schema ready: {len(states)} indexes ONLINE (vectors of {dimension} dimensions)."
    )


@app.command("ingest")
def ingest(
    path: Annotated[Path, typer.Argument(exists=True, help="A file or a folder tree.")],
    fmt: Annotated[
        str | None,
        typer.Option("--format", help="text, markdown, html, jsonl or beir; default: by name."),
    ] = None,
    source_type: Annotated[
        str, typer.Option(help="Stored on every document (e.g. a source tier).")
    ] = "",
    gazetteer: Annotated[
        Path | None,
        typer.Option(exists=True, help="JSON list of {name, type, aliases} entities to find."),
    ] = None,
    batch_size: Annotated[int, typer.Option(min=1, help="Documents per transaction.")] = 64,
    threads: Annotated[
        int,
        typer.Option(
            min=0,
            help="CPU threads of the embedding model; 0: every core. The service keeps "
            "ANCHORGRAPH_EMBEDDING_THREADS (1) for queries.",
        ),
    ] = 0,
) -> None:
    """Read documents and write them into the graph (unchanged ones are skipped)."""
    from service.ingestion import ingest_with_progress, read_all
    from service.runtime import open_runtime

    # Batches of long texts keep every core busy between the threads' barriers, unlike one
    # query: on 2 cores, 2 threads ingested SciFact's first 600 abstracts 17 % faster with spaCy
    # and 30 % faster without it (benchmarks/ingest.py --threads 1 / 2).
    settings = Settings().model_copy(update={"embedding_threads": threads})
    with _clear_errors():
        documents, skipped = read_all(settings, path, fmt=fmt, source_type=source_type)
        for item in skipped:
            err.print(f"[yellow]skipped[/] {item.path}: {item.reason}")
        if not documents:
            err.print("[bold red]error:[/] no documents to ingest")
            raise typer.Exit(1)
        with open_runtime(
            settings, schema="apply", gazetteer=gazetteer, batch_size=batch_size
        ) as runtime:
            stats = ingest_with_progress(runtime.ingestor, documents, console)
    console.print(
        f"{stats.documents} documents read: {stats.written} written, {stats.unchanged} unchanged; "
        f"{stats.chunks} chunks, {stats.mentions} entity mentions, {stats.triples} triples, "
        f"{stats.links} links in {stats.seconds:.1f} s "
        f"(parse {stats.parse_s:.1f} s, embed {stats.embed_s:.1f} s on {_threads(threads)}, "
        f"write {stats.write_s:.1f} s)."
    )


def _threads(threads: int) -> str:
    return "every core" if threads == 0 else f"{threads} thread{'s' if threads > 1 else ''}"


@app.command("search")
def search_command(
    query: Annotated[str, typer.Argument(help="Any text; Lucene syntax in it is not interpreted.")],
    mode: Annotated[
        str, typer.Option(help="dense, bm25, tfidf, hybrid or multisignal.")
    ] = "hybrid",
    level: Annotated[str, typer.Option(help="chunk or document.")] = "chunk",
    k: Annotated[int, typer.Option("-k", "--k", help="Hits to show.")] = 10,
    k_over: Annotated[int, typer.Option(help="Candidates fetched per path.")] = 100,
    folder: Annotated[
        list[str] | None, typer.Option(help="Only this folder and below (repeatable).")
    ] = None,
    tag: Annotated[list[str] | None, typer.Option(help="Only documents with a tag.")] = None,
    feedback: Annotated[
        int | None,
        typer.Option(help="Feedback documents (pseudo-relevance); default: 3 at document level."),
    ] = None,
    explain: Annotated[
        bool, typer.Option(help="Show each path's raw and normalised score and share.")
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the result as POST /search returns it.")
    ] = False,
) -> None:
    """Search the graph from the terminal, with the engine the API and the library use."""
    from pydantic import ValidationError

    from service.library import open_search
    from service.retrieval.types import Filters, SearchOptions

    try:
        options = SearchOptions(
            query=query,
            mode=mode,
            level=level,
            k=k,
            k_over=k_over,
            feedback=feedback,
            filters=Filters(folders=folder or [], tags=tag or []),
            explain=explain or as_json,
        )
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'options'}: {e['msg']}" for e in error.errors()
        )
        err.print(f"[bold red]error:[/] {problems}")
        raise typer.Exit(2) from None
    with _clear_errors(), open_search() as searcher:
        result = searcher(options)
    if as_json:
        console.print_json(result.model_dump_json())
        return
    _print_result(result, explain=explain)


def _print_result(result: SearchResult, *, explain: bool) -> None:
    from rich.table import Table

    table = Table(show_lines=explain, title=f"{result.mode} · {result.level} · {result.query!r}")
    for column, justify in (("#", "right"), ("score", "right"), ("document", "left"),
                            ("title / text", "left")):  # fmt: skip
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for hit in result.hits:
        text = " ".join(hit.text.split())
        cell = f"[bold]{hit.title}[/]\n{text[:160]}{'…' if len(text) > 160 else ''}"
        if explain and hit.paths:
            cell += "\n" + "  ".join(
                f"{path} {score.raw:.3f}→{score.normalised:.3f} (+{score.contribution:.3f})"
                for path, score in hit.paths.items()
            )
        table.add_row(str(hit.rank), f"{hit.score:.4f}", hit.document_id, cell)
    console.print(table)
    if result.entities:
        names = ", ".join(f"{e.name} ({e.how})" for e in result.entities[:8])
        console.print(f"entities: {names}")
    if result.feedback_documents:
        console.print(f"feedback from: {', '.join(result.feedback_documents)}")
    console.print(f"{result.total_ms:.0f} ms, {result.round_trips} database round trips")


@app.command("serve")
def serve(
    host: Annotated[str | None, typer.Option(help="Default: ANCHORGRAPH_API_HOST.")] = None,
    port: Annotated[int | None, typer.Option(help="Default: ANCHORGRAPH_API_PORT.")] = None,
) -> None:
    """Run the REST API against the configured Neo4j (which must be running)."""
    _serve(Settings(), host, port)


@app.command("run")
def run(
    host: Annotated[str | None, typer.Option(help="Default: ANCHORGRAPH_API_HOST.")] = None,
    port: Annotated[int | None, typer.Option(help="Default: ANCHORGRAPH_API_PORT.")] = None,
    sample: Annotated[
        bool, typer.Option(help="Load the sample corpus (skipped when unchanged).")
    ] = True,
) -> None:
    """Everything at once: start the local Neo4j if needed, load the sample corpus, serve the API.

    A Neo4j this command started is stopped again when the API stops.
    """
    settings = Settings()
    started: LocalNeo4j | None = None
    if settings.uses_local_server:
        server = LocalNeo4j(settings)
        if not server.status().running:
            with (
                _clear_errors(),
                console.status("Starting Neo4j (the first start fetches its jars)"),
            ):
                server.start()
            started = server
        pid = server.status().pid
        headline = f"Neo4j started (pid {pid})" if started else f"Neo4j is running (pid {pid})"
        _print_server(settings, server, headline)
    try:
        if sample:
            from service.ingestion import sample_gazetteer

            # Queries must resolve the aliases the sample was ingested with ("MAC" → the
            # museum), so the API gets the same gazetteer.
            settings = settings.model_copy(
                update={"gazetteer": settings.gazetteer or sample_gazetteer()}
            )
            _load_sample(settings)
        _serve(settings, host, port)
    finally:
        if started is not None:
            with console.status("Stopping Neo4j"):
                started.stop()
            console.print("Neo4j stopped.")


@app.command("eval")
def evaluate(
    dataset: Annotated[
        Path,
        typer.Option(exists=True, file_okay=False, help="A BEIR folder (corpus, queries, qrels)."),
    ],
    split: Annotated[str, typer.Option(help="A qrels file stem: train, dev, ...")],
    conditions: Annotated[
        str,
        typer.Option(
            help="Comma-separated conditions or groups (ours, fusions, peers, baselines, all); "
            "NAME@key=value;key=value overrides search options."
        ),
    ] = "all",
    out: Annotated[
        Path | None,
        typer.Option(
            help="Where results.json, results.md and chart.png go; default: "
            "benchmarks/out/<dataset>-<split> in the current folder."
        ),
    ] = None,
    max_queries: Annotated[
        int | None, typer.Option(min=1, help="A random sample of the queries.")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the query sample.")] = 0,
    entities: Annotated[
        bool, typer.Option(help="spaCy NER and triples at ingest; off: patterns only.")
    ] = True,
    title_in_text: Annotated[
        bool, typer.Option(help="Ingest 'title + text' as the document text (BEIR convention).")
    ] = True,
    neo4j_uri: Annotated[
        str | None,
        typer.Option(help="Evaluate on this server; default: a local Neo4j of its own."),
    ] = None,
    neo4j_home: Annotated[
        Path | None,
        typer.Option(help="The evaluation Neo4j's home; default: one per dataset."),
    ] = None,
    keep_server: Annotated[
        bool, typer.Option(help="Leave the evaluation Neo4j running for the next run.")
    ] = False,
    wipe: Annotated[
        bool, typer.Option(help="Allow emptying a --neo4j-uri graph that holds other documents.")
    ] = False,
) -> None:
    """Evaluate search conditions and peers on a BEIR split: metrics, latency, significance."""
    from evaluation.run import EvalConfig
    from evaluation.run import run as run_eval

    config = EvalConfig(
        dataset=dataset,
        split=split,
        conditions=[conditions],
        out=out,
        max_queries=max_queries,
        seed=seed,
        entities=entities,
        title_in_text=title_in_text,
        neo4j_uri=neo4j_uri,
        neo4j_home=neo4j_home,
        keep_server=keep_server,
        wipe=wipe,
    )
    with _clear_errors():
        try:
            _report, paths = run_eval(config, console)
        except (FileNotFoundError, ValueError) as error:
            err.print(f"[bold red]error:[/] {error}")
            raise typer.Exit(1) from None
    console.print(paths["markdown"].read_text(), markup=False, highlight=False, soft_wrap=True)
    console.print(" ".join(f"{kind}: {path}" for kind, path in paths.items()), soft_wrap=True)


def _load_sample(settings: Settings) -> None:
    from service.ingestion import ingest_with_progress, read_all, sample_corpus
    from service.runtime import open_runtime

    with _clear_errors():
        documents, _ = read_all(settings, sample_corpus())
        with open_runtime(settings, schema="apply") as runtime:
            stats = ingest_with_progress(runtime.ingestor, documents, console)
    console.print(
        f"Sample corpus: {stats.written} documents written, {stats.unchanged} unchanged "
        f"({sample_corpus()})."
    )


def _serve(settings: Settings, host: str | None, port: int | None) -> None:
    import uvicorn

    from service.app import create_app

    host, port = host or settings.api_host, port or settings.api_port
    console.print(
        f"API:      http://{host}:{port}\n"
        f"API docs: http://{host}:{port}/docs\n"
        f"Health:   http://{host}:{port}/health"
    )
    uvicorn.run(create_app(settings), host=host, port=port, log_level="info")


def _print_server(settings: Settings, server: LocalNeo4j, headline: str) -> None:
    # A generated password is shown: it guards a loopback-only development server, and the
    # Browser login needs it. A password the user configured is theirs and is not echoed.
    password = (
        server.password() if settings.neo4j_password is None else "(ANCHORGRAPH_NEO4J_PASSWORD)"
    )
    console.print(
        f"{headline}\n"
        f"  Bolt:          {server.bolt_uri}\n"
        f"  Neo4j Browser: {server.browser_url}\n"
        f"  Login:         {settings.neo4j_user} / {password}"
    )


def main() -> None:
    app()
