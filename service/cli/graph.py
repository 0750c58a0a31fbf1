"""``anchorgraph graph``: the document link graph in networkx (``anchorgraph.link_graph``), exported
as GraphML, and PageRank over it stored as a document prior that fusion may use; and title links
made over an existing graph (``anchorgraph.loaders.title_pass``).

``export`` and ``pagerank`` read the graph alone (``open_graph``): no model, no schema check, like
``anchorgraph fd``; ``link-titles`` embeds link contexts, so it opens the whole runtime, with the
query encoder (``anchorgraph.runtime.query_embedder``) rather than the model.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from anchorgraph.cli.output import (
    DEFAULT,
    CollectionOption,
    clear_errors,
    command_group,
    console,
    load_settings,
    query_embedder,
    refuse,
)

if TYPE_CHECKING:  # networkx and the Cypher catalogue: imported inside the commands
    from anchorgraph.link_graph import PageRankSummary

graph_app = command_group(
    "The document link graph: export it as GraphML, or store its PageRank as a prior."
)


@graph_app.command("export")
def export(
    out: Annotated[
        Path, typer.Argument(dir_okay=False, help="The GraphML file to write, e.g. links.graphml.")
    ],
    collection: CollectionOption = DEFAULT,
) -> None:
    """Write a collection's document link graph as GraphML: a node per document (title), an
    edge per linked pair of documents (weight = links)."""
    from anchorgraph.link_graph import export_graphml, read_link_graph
    from anchorgraph.loaders.collections import collection_info
    from anchorgraph.runtime import open_graph

    with clear_errors(), open_graph(load_settings()) as graph:
        collection_info(graph, collection)  # a name that is no collection: an error, no file
        digraph = read_link_graph(graph, collection)
    out.parent.mkdir(parents=True, exist_ok=True)
    export_graphml(digraph, out)
    links = int(digraph.size(weight="weight"))
    console.print(
        f"{digraph.number_of_nodes()} documents, {digraph.number_of_edges()} linked pairs "
        f"({links} links) → {out}"
    )


@graph_app.command("link-titles")
def link_titles(
    remove: Annotated[
        bool, typer.Option("--remove", help="Only delete the title links, make none.")
    ] = False,
    collection: CollectionOption = DEFAULT,
) -> None:
    """Link every mention of another document's title in a collection, as `ingest
    --link-titles` does, without ingesting again: earlier title links are replaced, written
    links kept."""
    from rich.progress import Progress

    from anchorgraph.loaders.title_pass import link_titles_in_graph
    from anchorgraph.runtime import open_runtime

    with (
        clear_errors(),
        # Link contexts are short texts, embedded as the service embeds a query (no torch).
        open_runtime(load_settings(), schema="apply", embedder_factory=query_embedder) as runtime,
        Progress(console=console, transient=True) as bar,
    ):
        task = bar.add_task("relinking documents", total=None)
        report = link_titles_in_graph(
            runtime.graph,
            runtime.embedder,
            collection,
            remove_only=remove,
            progress=lambda done, total: bar.update(task, completed=done, total=total),
        )
    console.print(report.summary())


@graph_app.command("pagerank")
def pagerank(
    damping: Annotated[
        float, typer.Option(help="Damping factor d, within (0, 1): the chance to follow a link.")
    ] = 0.85,
    write: Annotated[
        bool,
        typer.Option(
            "--write/--no-write", help="Store d.pagerank and d.pagerank_rank (default), or not."
        ),
    ] = True,
    collection: CollectionOption = DEFAULT,
) -> None:
    """PageRank over the document link graph (weighted by links; a document without links out
    spreads its score over all): prints the top 10 and stores each document's score and rank."""
    from anchorgraph.link_graph import run_pagerank
    from anchorgraph.runtime import open_graph

    if not 0 < damping < 1:
        refuse(f"--damping must be within (0, 1), got {damping}")
    with clear_errors(), open_graph(load_settings()) as graph:
        summary = run_pagerank(graph, collection, damping, write=write)
    _print_pagerank(summary)
    if write:
        console.print(f"prior stored on {summary.written} documents (d.pagerank, d.pagerank_rank)")
    else:
        console.print("--no-write: nothing stored")


def _print_pagerank(summary: PageRankSummary) -> None:
    table = Table(
        title=f"PageRank, d = {summary.damping}: the top {len(summary.top)} of "
        f"{summary.documents} documents",
        caption=f"{summary.links} links between {summary.edges} pairs of documents, "
        f"{summary.dangling} documents without links out; stopped at an L1 change below "
        f"{summary.documents} × {summary.tolerance:g} (at most {summary.max_iterations} "
        "iterations)",
    )
    for column in ("rank", "score", "links in"):
        table.add_column(column, justify="right")
    table.add_column("document")
    table.add_column("title")
    for row in summary.top:
        table.add_row(str(row.rank), f"{row.score:.5f}", str(row.in_links), row.id, row.title)
    console.print(table)
