"""``anchorgraph serve``, ``mcp`` and ``run``: the REST API and the search page, the search as
MCP tools for an agent, and everything at once (the local Neo4j started, the sample corpus
loaded, the API served). The API loads the model as it starts; ``mcp`` embeds queries only."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from anchorgraph.cli.database import print_server
from anchorgraph.cli.output import clear_errors, console, err, load_settings, query_embedder

if TYPE_CHECKING:  # imported by the commands that use them (anchorgraph.cli.output says why)
    from anchorgraph.embedding import Embedder
    from anchorgraph.graph.local_server import LocalNeo4j
    from anchorgraph.settings import Settings


def serve(
    host: Annotated[str | None, typer.Option(help="Default: ANCHORGRAPH_API_HOST.")] = None,
    port: Annotated[int | None, typer.Option(help="Default: ANCHORGRAPH_API_PORT.")] = None,
    workers: Annotated[
        int,
        typer.Option(
            min=1,
            help="API processes (uvicorn workers), each with its own model and connection "
            "pool; each reads its settings from the environment.",
        ),
    ] = 1,
) -> None:
    """Run the REST API against the configured Neo4j (which must be running)."""
    _serve(load_settings(), host, port, workers=workers)


def mcp_command(
    http: Annotated[
        bool, typer.Option("--http", help="Streamable HTTP on --host:--port instead of stdio.")
    ] = False,
    host: Annotated[str, typer.Option(help="With --http: the address to listen on.")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, typer.Option(help="With --http: the port.")] = 8001,
    collection: Annotated[
        list[str] | None,
        typer.Option(
            "--collection",
            "-c",
            help="Let the tools read only this collection (repeatable); default: every one.",
        ),
    ] = None,
) -> None:
    """Serve the search as MCP tools (search, get_document, neighbourhood, explain_fd) to an
    agent: over stdio by default, for a client that spawns this command."""
    from anchorgraph.adapters.mcp import serve as serve_mcp
    from anchorgraph.library import open_search
    from anchorgraph.scope import FULL_ACCESS, Access, collection_name

    with clear_errors():
        names = frozenset(collection_name(name) for name in collection or [])
        access = Access(read=names, write=frozenset()) if names else FULL_ACCESS
        # Its tools embed queries only: the model's ONNX export, without torch. A notice that
        # the full model loads goes to stderr, never to stdout, the stdio protocol's.
        with open_search(load_settings(), embedder_factory=query_embedder) as searcher:
            if http:  # stdout stays the protocol's under stdio, so what is said goes to stderr
                err.print(f"MCP (streamable HTTP): http://{host}:{port}/mcp")
            serve_mcp(
                searcher,
                "streamable-http" if http else "stdio",
                host=host,
                port=port,
                access=access,
            )


def run(
    host: Annotated[str | None, typer.Option(help="Default: ANCHORGRAPH_API_HOST.")] = None,
    port: Annotated[int | None, typer.Option(help="Default: ANCHORGRAPH_API_PORT.")] = None,
    sample: Annotated[
        bool,
        typer.Option(
            help="Load the sample corpus into the collection 'sample' (skipped when unchanged; "
            "no other collection is touched)."
        ),
    ] = True,
) -> None:
    """Everything at once: start the local Neo4j if needed, load the sample corpus into its own
    collection, serve the API.

    A Neo4j this command started is stopped again when the API stops.
    """
    from concurrent.futures import Future, ThreadPoolExecutor

    from anchorgraph.graph.local_server import LocalNeo4j
    from anchorgraph.runtime import load_for_writing

    settings = load_settings()
    server = LocalNeo4j(settings) if settings.uses_local_server else None
    to_start = server if server is not None and not server.status().running else None
    started: LocalNeo4j | None = None
    doing = "Loading the model"
    if to_start is not None:
        fetch = "" if to_start.is_installed() else ", fetching its jars from Maven Central first"
        doing = f"Starting Neo4j{fetch}, and loading the model"
    try:
        # Neo4j starts (a JVM, on the other core) while this process loads the model and spaCy:
        # each takes seconds, and neither waits for the other.
        with (
            clear_errors(),
            console.status(doing),
            ThreadPoolExecutor(max_workers=1, thread_name_prefix="neo4j-start") as pool,
        ):
            starting: Future[object] | None = pool.submit(to_start.start) if to_start else None
            try:
                embedder = load_for_writing(settings)
            finally:
                if starting is not None and starting.exception() is None:
                    started = to_start  # stopped at the end, whatever fails meanwhile
            if starting is not None:
                starting.result()  # the error of a start that failed
        if server is not None:
            pid = server.status().pid
            said = f"Neo4j started (pid {pid})" if started else f"Neo4j is running (pid {pid})"
            print_server(settings, server, said)
        if sample:
            _load_sample(settings, embedder)
        _serve(settings, host, port, embedder=embedder)
    finally:
        if started is not None:
            with console.status("Stopping Neo4j"):
                started.stop()
            console.print("Neo4j stopped.")


def _load_sample(settings: Settings, embedder: Embedder) -> None:
    from anchorgraph.ingestion import archive_corpus, load_samples, sample_corpus
    from anchorgraph.runtime import open_runtime

    with (
        clear_errors(),
        open_runtime(settings, schema="apply", embedder_factory=lambda _: embedder) as runtime,
    ):
        loaded = load_samples(runtime, console)
    for stats, corpus in zip(loaded, (sample_corpus(), archive_corpus()), strict=True):
        console.print(
            f"Sample corpus in collection {stats.collection!r}: {stats.written} documents "
            f"written ({stats.replaced} replacing an earlier version), {stats.unchanged} "
            f"unchanged ({corpus})."
        )


def _serve(
    settings: Settings,
    host: str | None,
    port: int | None,
    *,
    workers: int = 1,
    embedder: Embedder | None = None,
) -> None:
    """Serve the API (``embedder``: a model loaded already, for one process)."""
    import uvicorn

    from anchorgraph.app import create_app
    from anchorgraph.runtime import default_embedder

    host, port = host or settings.api_host, port or settings.api_port
    console.print(
        f"Search:   http://{host}:{port}/\n"
        f"API:      http://{host}:{port}\n"
        f"API docs: http://{host}:{port}/docs\n"
        f"Health:   http://{host}:{port}/health"
        + (f"\nWorkers:  {workers} processes" if workers > 1 else "")
    )
    if workers == 1:
        loaded = default_embedder if embedder is None else lambda _: embedder
        app = create_app(settings, embedder_factory=loaded)
        uvicorn.run(app, host=host, port=port, log_level="info")
        return
    # Every worker applies the schema as it starts, all at once; on a graph without one, their
    # constraint creations deadlock (Neo.TransientError.Transaction.DeadlockDetected) and a
    # worker fails its start. So it is applied here first, as `anchorgraph db init` does.
    from anchorgraph.runtime import open_runtime

    with (
        clear_errors(),
        console.status("Applying the schema"),
        open_runtime(settings, schema="apply"),
    ):
        pass
    # Worker processes import the app factory by name and build their Settings from the same
    # environment and .env this process read. /metrics adds up every worker's series through
    # prometheus_client's multiprocess mode, in a folder of this run's own.
    import os
    import tempfile

    with tempfile.TemporaryDirectory(prefix="anchorgraph-metrics-") as metrics_dir:
        os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", metrics_dir)
        uvicorn.run(
            "anchorgraph.app:create_app",
            factory=True,
            host=host,
            port=port,
            workers=workers,
            log_level="info",
        )
