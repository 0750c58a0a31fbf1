"""The ``anchorgraph`` program (the console script runs ``main``): every command and group of
commands, in the order its help lists them."""

from __future__ import annotations

from anchorgraph.cli.audit import audit_app
from anchorgraph.cli.collections import collections_app
from anchorgraph.cli.database import db_app, neo4j_app
from anchorgraph.cli.eval import evaluate
from anchorgraph.cli.fd import fd_app
from anchorgraph.cli.graph import graph_app
from anchorgraph.cli.ingest import ingest, sync
from anchorgraph.cli.jobs import jobs_command
from anchorgraph.cli.output import command_group
from anchorgraph.cli.search import SearchCommand, search_command
from anchorgraph.cli.serve import mcp_command, run, serve
from anchorgraph.cli.tune import tune

app = command_group(
    "anchorgraph: knowledge retrieval on Neo4j (local server, schema, ingestion, API).",
    add_completion=False,
)
app.command("tune")(tune)
app.command("ingest")(ingest)
app.command("sync")(sync)
app.command("jobs")(jobs_command)
app.command("search", cls=SearchCommand)(search_command)
app.command("serve")(serve)
app.command("mcp")(mcp_command)
app.command("run")(run)
app.command("eval")(evaluate)
app.add_typer(neo4j_app, name="neo4j")
app.add_typer(db_app, name="db")
app.add_typer(collections_app, name="collections")
app.add_typer(fd_app, name="fd")
app.add_typer(audit_app, name="audit")
app.add_typer(graph_app, name="graph")


def main() -> None:
    app()
