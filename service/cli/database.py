"""``anchorgraph neo4j`` and ``anchorgraph db``: the project's own local Neo4j server (install,
start, stop, status, its password) and the graph schema. The server commands open no connection
and load no model; ``db init`` reads the model's dimension from its files."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from anchorgraph.cli.output import clear_errors, command_group, console, err, load_settings

if TYPE_CHECKING:  # imported by the commands that use them (anchorgraph.cli.output says why)
    from anchorgraph.graph.local_server import LocalNeo4j, ServerStatus
    from anchorgraph.settings import Settings

neo4j_app = command_group("The project's own local Neo4j server.")
db_app = command_group("The graph schema.")


def _local(settings: Settings) -> LocalNeo4j:
    from anchorgraph.graph.local_server import LocalNeo4j

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
    from anchorgraph.graph.local_server import LocalNeo4j

    settings = load_settings()
    with clear_errors(), console.status(f"Resolving Neo4j {settings.neo4j_version} with Maven"):
        # Installing is harmless with an external server too: `make setup` always runs it.
        lib = LocalNeo4j(settings).install()
    console.print(f"Neo4j {settings.neo4j_version} jars in {lib}")


@neo4j_app.command("start")
def neo4j_start() -> None:
    """Start the local Neo4j on loopback and wait until Bolt answers."""
    settings = load_settings()
    server = _local(settings)
    if (running := server.status()).pid is not None:
        console.print(f"Neo4j is already running (pid {running.pid}) at {running.bolt_uri}.")
        _say_if_moved(running)
        return
    with clear_errors(), console.status("Starting Neo4j (the first start fetches its jars)"):
        status = server.start()
    print_server(settings, server, f"Neo4j started (pid {status.pid})")


@neo4j_app.command("stop")
def neo4j_stop() -> None:
    """Stop the local Neo4j (and its JVM)."""
    with clear_errors():
        stopped = _local(load_settings()).stop()
    console.print("Neo4j stopped." if stopped else "Neo4j was not running.")


@neo4j_app.command("status")
def neo4j_status() -> None:
    """Say whether the local Neo4j runs, and where."""
    settings = load_settings()
    server = _local(settings)
    status = server.status()
    if status.running:
        print_server(settings, server, f"Neo4j is running (pid {status.pid})")
    else:
        console.print(f"Neo4j is not running (home {status.home}).")
        raise typer.Exit(3)


@neo4j_app.command("password")
def neo4j_password() -> None:
    """Print the local Neo4j's password (the Browser login asks for it); nothing else prints
    it, so that it stays off screens and terminal logs."""
    settings = load_settings()
    server = _local(settings)
    if settings.neo4j_password is None and not server.password_file.exists():
        err.print(
            f"[bold red]error:[/] no password yet ({server.password_file}): the first "
            "`anchorgraph neo4j start` makes one."
        )
        raise typer.Exit(1)
    typer.echo(server.password())


@db_app.command("init")
def db_init() -> None:
    """Create constraints and indexes (idempotent) and wait until they are ONLINE."""
    from anchorgraph.graph.schema import apply_schema
    from anchorgraph.runtime import embedding_dimension, open_graph

    settings = load_settings()
    with clear_errors():
        # The vector indexes need the model's dimension only, which its files declare: the
        # model itself (torch, seconds) loads only for a model whose files say too little.
        dimension = embedding_dimension(settings)
        with (
            console.status("Applying the schema"),
            open_graph(settings) as graph,
        ):
            states = apply_schema(graph, dimension, settings.index_online_timeout_s)
    for state in states:
        console.print(f"  {state.name:<22} {state.type:<9} {state.state}")
    console.print(
        f"Schema ready: {len(states)} indexes ONLINE (vectors of {dimension} dimensions)."
    )


def _say_if_moved(status: ServerStatus) -> None:
    """Warn when the settings name other ports than those the running server listens on:
    every other command would look for it there."""
    if status.configured is not None:
        bolt, browser = status.configured
        err.print(
            f"[yellow]warning:[/] the settings (ANCHORGRAPH_NEO4J_BOLT_PORT, _HTTP_PORT) say "
            f"{bolt} and {browser}, where other commands will look for it; "
            "`anchorgraph neo4j stop`, then `start`, moves it there."
        )


def print_server(settings: Settings, server: LocalNeo4j, headline: str) -> None:
    """The headline, and where the server answers and how to log in (also said by `run`)."""
    # Where the password is, never the password: terminals are shared, recorded and scrolled
    # back. The generated one is in a 0600 file; `anchorgraph neo4j password` prints it.
    where = server.status()
    password = (
        f"password in {server.password_file} (`anchorgraph neo4j password` prints it)"
        if settings.neo4j_password is None
        else "password from ANCHORGRAPH_NEO4J_PASSWORD"
    )
    console.print(
        f"{headline}\n"
        f"  Bolt:          {where.bolt_uri}\n"
        f"  Neo4j Browser: {where.browser_url}\n"
        f"  Login:         {settings.neo4j_user}, {password}",
        soft_wrap=True,
    )
    _say_if_moved(where)
