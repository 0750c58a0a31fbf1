"""``anchorgraph collections``: list the collections of the graph, or delete one with all it
holds (both open the graph alone: no model), or embed one again with the configured model."""

from __future__ import annotations

from typing import Annotated

import typer

from anchorgraph.cli.output import clear_errors, command_group, console, err, load_settings

collections_app = command_group(
    "Collections: many sources side by side in one graph, each document in exactly one."
)


@collections_app.command("list")
def collections_list() -> None:
    """Every collection with its documents, chunks and entities."""
    from rich.table import Table

    from anchorgraph.loaders.collections import list_collections
    from anchorgraph.runtime import open_graph

    with clear_errors(), open_graph() as graph:
        infos = list_collections(graph)
    if not infos:
        console.print("No collections yet: `anchorgraph ingest PATH --collection NAME`.")
        return
    table = Table("collection", "documents", "chunks", "entities", "created")
    for info in infos:
        created = info.created.strftime("%Y-%m-%d %H:%M") if info.created else ""
        table.add_row(info.name, str(info.documents), str(info.chunks), str(info.entities), created)
    console.print(table)


@collections_app.command("delete")
def collections_delete(
    name: Annotated[str, typer.Argument(help="The collection to delete with all it holds.")],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
) -> None:
    """Delete a collection and every document, chunk and entity in it."""
    from anchorgraph.loaders.collections import collection_info, delete_collection
    from anchorgraph.runtime import open_graph

    with clear_errors(), open_graph() as graph:
        held = collection_info(graph, name)
        if not yes:
            typer.confirm(
                f"Delete collection {name!r} with its {held.documents} documents?", abort=True
            )
        delete_collection(graph, name)
    console.print(
        f"Deleted collection {name!r} ({held.documents} documents, {held.chunks} chunks)."
    )


@collections_app.command("reembed")
def collections_reembed(
    name: Annotated[str, typer.Argument(help="The collection to embed again.")],
) -> None:
    """Embed every vector of a collection again with the configured model (in this process or
    on the embedding server, ANCHORGRAPH_EMBEDDING_*), in place, and record that model: the
    collection is then written and searched with it (docs/embeddings.md)."""
    from anchorgraph.loaders.reembed import reembed_collection
    from anchorgraph.runtime import open_runtime

    with clear_errors(), open_runtime(load_settings(), schema="verify") as runtime:
        report = reembed_collection(
            runtime.graph,
            runtime.embedder,
            name,
            progress=lambda done, total: err.print(f"{done}/{total} documents", end="\r"),
        )
    console.print(
        f"Re-embedded collection {report.collection!r} with {report.model!r}: "
        f"{report.documents} documents, {report.chunks} chunks, {report.entities} entities, "
        f"{report.triples} triples, {report.links} links."
    )
