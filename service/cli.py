"""The ``anchorgraph`` command line: local Neo4j, schema, collections, ingestion, search, API
server.

Each command loads only what it uses, imported when it runs (``anchorgraph.cli_output``): the help
imports no driver, model or settings; a command on the graph alone (``fd``, ``collections``,
``audit length``) opens the connection without a model; ``db init`` reads the model's dimension
from its files; ``search`` asks a running API (``--api``) or embeds its query with the model's
checked ONNX export, without torch (``anchorgraph.runtime.query_embedder``), as ``audit
coverage|blindness``, ``graph link-titles`` and ``mcp`` embed their texts. Only the commands that
embed documents load the whole model: ``ingest`` and ``sync`` once a file is new or changed
(``anchorgraph.runtime.ModelWhenNeeded``), ``run`` while Neo4j starts, ``eval`` and the API
server as they start.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, get_type_hints

import typer
from typer.core import TyperCommand

from anchorgraph.cli_audit import audit_app
from anchorgraph.cli_graph import graph_app
from anchorgraph.cli_output import (
    DEFAULT,
    CollectionOption,
    clear_errors,
    command_group,
    console,
    err,
    load_settings,
    query_embedder,
    refuse,
)
from anchorgraph.cli_search import read_flags, request
from anchorgraph.cli_tune import tune
from anchorgraph.loaders.formats import names as format_names

if TYPE_CHECKING:  # imported by the commands that use them (anchorgraph.cli_output says why)
    from collections.abc import Callable, Iterable

    from anchorgraph.embedding import Embedder
    from anchorgraph.graph.local_server import LocalNeo4j, ServerStatus
    from anchorgraph.loaders.fd_stats import FdBinRow
    from anchorgraph.loaders.ingest import IngestStats
    from anchorgraph.loaders.model import SourceDocument
    from anchorgraph.loaders.read import Skipped
    from anchorgraph.retrieval.types import FdScore, SearchOptions, SearchResult
    from anchorgraph.settings import Settings
    from anchorgraph.text.language import Language

app = command_group(
    "anchorgraph: knowledge retrieval on Neo4j (local server, schema, ingestion, API).",
    add_completion=False,
)
neo4j_app = command_group("The project's own local Neo4j server.")
db_app = command_group("The graph schema.")
fd_app = command_group("Factual density FD*: length bins, their statistics, authority.")
collections_app = command_group(
    "Collections: many sources side by side in one graph, each document in exactly one."
)
app.add_typer(neo4j_app, name="neo4j")
app.add_typer(db_app, name="db")
app.add_typer(collections_app, name="collections")
app.add_typer(fd_app, name="fd")
app.add_typer(audit_app, name="audit")
app.add_typer(graph_app, name="graph")
app.command("tune")(tune)


def _language(code: str | None) -> Language | None:
    """The language an option names, or None; a code anchorgraph does not analyse ends the
    command with the list of those it does."""
    from anchorgraph.text.language import language_of

    try:
        return None if code is None else language_of(code)
    except ValueError as error:
        refuse(str(error))


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
    _print_server(settings, server, f"Neo4j started (pid {status.pid})")


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
        _print_server(settings, server, f"Neo4j is running (pid {status.pid})")
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


def _bounds(text: str | None, option: str) -> tuple[int, int] | None:
    if text is None:
        return None
    try:
        lower, upper = (int(part) for part in text.split(","))
    except ValueError:
        refuse(f"{option} takes two token counts, e.g. 120,400")
    if not 0 < lower < upper:
        refuse(f"{option}: need 0 < lower < upper, got {text}")
    return lower, upper


@fd_app.command("recompute")
def fd_recompute(
    chunk_bounds: Annotated[
        str | None,
        typer.Option(help="Chunk bins as LOWER,UPPER tokens; default: settings, else tertiles."),
    ] = None,
    document_bounds: Annotated[str | None, typer.Option(help="Document bins likewise.")] = None,
    collection: CollectionOption = DEFAULT,
) -> None:
    """Fit a collection's FD* length bins again and rebin its every chunk and document (one
    transaction)."""
    from anchorgraph.factual_density import FdLevel
    from anchorgraph.loaders.fd_stats import refit
    from anchorgraph.runtime import open_graph

    settings = load_settings()
    bounds = {
        FdLevel.CHUNK: _bounds(chunk_bounds, "--chunk-bounds") or settings.fd_chunk_bounds,
        FdLevel.DOCUMENT: _bounds(document_bounds, "--document-bounds")
        or settings.fd_document_bounds,
    }
    with clear_errors(), open_graph(settings) as graph:
        rows = refit(graph, collection, bounds)
    if not rows:
        console.print(f"The collection {collection!r} has no documents: no FD* bins.")
        return
    _print_bins(rows)


@fd_app.command("stats")
def fd_stats_command(collection: CollectionOption = DEFAULT) -> None:
    """Show a collection's FD* length bins: bounds, size, mean and SD of FD_raw, changes since
    the fit."""
    from anchorgraph.loaders.fd_stats import bin_stats
    from anchorgraph.runtime import open_graph

    with clear_errors(), open_graph() as graph:
        rows = bin_stats(graph, collection)
    if not rows:
        console.print(
            f"No FD* bins in {collection!r} yet: ingest documents, or run `anchorgraph fd "
            "recompute`."
        )
        return
    _print_bins(rows)


@fd_app.command("authority")
def fd_authority(
    assignments: Annotated[
        list[str] | None,
        typer.Argument(help="SOURCE_TYPE=A_SOURCE pairs to set; none: show the current ones."),
    ] = None,
) -> None:
    """Show or set a_source, the authority FD* multiplies each source type's z-scores by."""
    import math

    from anchorgraph.loaders.fd_stats import SourceAuthority, authorities, set_authorities
    from anchorgraph.runtime import open_graph

    rows = []
    for assignment in assignments or []:
        source_type, _, value = assignment.partition("=")
        try:
            a_source = float(value)
        except ValueError:
            a_source = math.nan
        if not source_type or not math.isfinite(a_source) or a_source < 0:
            refuse(f"expected SOURCE_TYPE=NUMBER >= 0, got {assignment!r}")
        rows.append(SourceAuthority(source_type=source_type, a_source=a_source, reason="by hand"))
    with clear_errors(), open_graph() as graph:
        if rows:
            set_authorities(graph, rows)
        found = authorities(graph)
    if not found:
        console.print("Every source type has a_source 1.0 (none set).")
    for row in found:
        console.print(f"  {row.source_type:<20} {row.a_source:<6.3g} {row.reason}")


@fd_app.command("fit-authority")
def fd_fit_authority(
    dataset: Annotated[
        Path,
        typer.Option(exists=True, file_okay=False, help="A BEIR folder (corpus, queries, qrels)."),
    ],
    split: Annotated[str, typer.Option(help="A qrels file stem: train, dev, ...")],
    lambdas: Annotated[
        str, typer.Option(help="Comma-separated λ values to fit a_source for.")
    ] = "0.05,0.1,0.2,0.3,0.5",
    apply: Annotated[
        bool, typer.Option(help="Store the chosen a_source in the evaluation graph.")
    ] = True,
    neo4j_uri: Annotated[
        str | None,
        typer.Option(help="Fit on this server; default: the dataset's evaluation Neo4j."),
    ] = None,
    keep_server: Annotated[
        bool, typer.Option(help="Leave the evaluation Neo4j running for the next run.")
    ] = False,
) -> None:
    """Derive a_source per source type (and λ) from the split's relevance judgements, on the
    dataset's evaluation graph (`anchorgraph eval` builds it), and say what it chose and why."""
    from anchorgraph.evaluation.fd_fit import run_fit, table

    try:
        weights = [float(value) for value in lambdas.split(",") if value.strip()]
    except ValueError:
        refuse(f"--lambdas takes numbers, got {lambdas!r}")
    if not weights or not all(0 < weight <= 1 for weight in weights):
        refuse("every λ must be within (0, 1]")
    with clear_errors():
        report = run_fit(
            dataset,
            split,
            console,
            weights=weights,
            apply=apply,
            neo4j_uri=neo4j_uri,
            keep_server=keep_server,
        )
    console.print(table(report), markup=False, highlight=False, soft_wrap=True)
    if apply:
        console.print("a_source stored in the evaluation graph (`anchorgraph fd authority`).")


def _print_bins(rows: list[FdBinRow]) -> None:
    from rich.table import Table

    table = Table("level", "bin", "tokens", "n", "mean FD_raw", "SD", "changes")
    for row in rows:
        span = {
            "short": f"≤ {row.lower:g}",
            "medium": f"{row.lower:g} < n ≤ {row.upper:g}",
            "long": f"> {row.upper:g}",
        }[row.bin]
        table.add_row(
            row.level,
            row.bin,
            span,
            str(row.n),
            f"{row.stats.mean:.4f}",
            f"{row.stats.sd:.4f}",
            f"{row.changes}/{row.fitted_n}",
        )
    console.print(table)


@app.command("ingest")
def ingest(
    path: Annotated[
        str,
        typer.Argument(
            help="A file or a folder tree: a local path, file:///…, s3://bucket/prefix, or "
            "any URL fsspec serves (docs/sources.md)."
        ),
    ],
    collection: CollectionOption = DEFAULT,
    replace: Annotated[
        bool,
        typer.Option(
            help="Replace documents of the collection that came from another file or URI "
            "(refused by default: nothing is replaced unseen)."
        ),
    ] = False,
    fmt: Annotated[
        str | None,
        typer.Option(
            "--format",
            help=f"{format_names()}; default: by name.",
        ),
    ] = None,
    source_type: Annotated[
        str, typer.Option(help="Stored on every document (e.g. a source tier).")
    ] = "",
    language: Annotated[
        str | None,
        typer.Option(
            help="en, pt or it: the language of documents that declare none (front matter "
            "language:); default: detected per document. Full-text search uses its analyzer."
        ),
    ] = None,
    gazetteer: Annotated[
        Path | None,
        typer.Option(exists=True, help="JSON list of {name, type, aliases} entities to find."),
    ] = None,
    batch_size: Annotated[int, typer.Option(min=1, help="Documents per transaction.")] = 64,
    link_titles: Annotated[
        bool,
        typer.Option(
            help="Link each mention of another document's title (this run's and the graph's) "
            "to that document: for corpora without links."
        ),
    ] = False,
    classify_source_types: Annotated[
        bool | None,
        typer.Option(
            help="Give documents without a declared source type their study design "
            "(systematic_review, rct, other). Default: ANCHORGRAPH_CLASSIFY_SOURCE_TYPES (off)."
        ),
    ] = None,
    threads: Annotated[
        int,
        typer.Option(
            min=0,
            help="CPU threads of the embedding model; 0: every core. The service keeps "
            "ANCHORGRAPH_EMBEDDING_THREADS (1) for queries.",
        ),
    ] = 0,
    ray: Annotated[
        str | None,
        typer.Option(
            "--ray",
            metavar="local|ADDRESS",
            help="Run on a Ray cluster: 'local' starts one of this machine's cores for the "
            "run; host:port (the head's GCS port), ray://host:port or auto joins one. Needs "
            "pip install 'anchorgraph[ray]' (docs/deployment.md).",
        ),
    ] = None,
) -> None:
    """Read documents and write them into a collection (unchanged ones are skipped; one that
    would replace a document from another file or URI is refused unless --replace)."""
    from itertools import chain

    from anchorgraph.ingestion import ingest_with_progress, reading
    from anchorgraph.runtime import ModelWhenNeeded, open_runtime

    # Batches of long texts keep every core busy between the threads' barriers, unlike one
    # query: on 2 cores, 2 threads ingested SciFact's first 600 abstracts 17 % faster with spaCy
    # and 30 % faster without it (benchmarks/ingest.py --threads 1 / 2).
    settings = load_settings()
    update: dict[str, object] = {"embedding_threads": threads}
    if classify_source_types is not None:
        update["classify_source_types"] = classify_source_types
    settings = settings.model_copy(update=update)
    skipped: list[Skipped] = []
    if ray is not None:
        if link_titles:
            err.print("[bold red]error:[/] --link-titles reads every title first: not with --ray")
            raise typer.Exit(2)
        with clear_errors():
            stats = _ingest_on_ray(
                settings,
                path,
                ray,
                collection=collection,
                replace=replace,
                fmt=fmt,
                source_type=source_type,
                language=_language(language),
                gazetteer=gazetteer,
                batch_size=batch_size,
                on_skip=skipped.append,
            )
        _print_skipped(skipped)
        _print_ingest(stats, threads)
        return
    with clear_errors():
        declared = _language(language)
        with reading(
            settings,
            path,
            fmt=fmt,
            source_type=source_type,
            on_skip=skipped.append,
            ahead=batch_size,
        ) as read:
            # The first document before Neo4j and the model: a source with nothing to read
            # says so at once. The rest are read while the first batches embed and write.
            first = next(read, None)
            if first is None:
                _print_skipped(skipped)
                err.print("[bold red]error:[/] no documents to ingest")
                raise typer.Exit(1)
            documents: Iterable[SourceDocument] = chain([first], read)
            with open_runtime(
                settings,
                schema="apply",
                embedder_factory=ModelWhenNeeded,  # not loaded if every document is unchanged
                gazetteer=gazetteer,
                batch_size=batch_size,
            ) as runtime:
                if link_titles:  # every title before the first write
                    from anchorgraph.graph.queries import Query
                    from anchorgraph.loaders.title_links import link_corpus
                    from anchorgraph.scope import local_id

                    titles = runtime.graph.read(Query.DOCUMENT_TITLES, {"collection": collection})
                    known = {local_id(str(row["id"])): str(row["title"]) for row in titles}
                    documents, report = link_corpus(list(documents), known)
                    console.print(report.summary())
                stats = ingest_with_progress(
                    runtime.ingestor,
                    documents,
                    console,
                    collection=collection,
                    replace=replace,
                    language=declared,
                )
    _print_skipped(skipped)
    _print_ingest(stats, threads)


def _ingest_on_ray(
    settings: Settings,
    path: str,
    address: str,
    *,
    collection: str,
    replace: bool,
    fmt: str | None,
    source_type: str,
    language: Language | None,
    gazetteer: Path | None,
    batch_size: int,
    on_skip: Callable[[Skipped], None],
) -> IngestStats:
    """``ingest --ray``: the cluster's address checked before Neo4j and the model, then the
    run on it with a progress bar (``anchorgraph.distributed``)."""
    from anchorgraph.distributed import check_address, ingest_on_ray
    from anchorgraph.ingestion import progress_bar
    from anchorgraph.runtime import open_runtime

    check_address(address, settings)
    with (
        open_runtime(settings, schema="apply", gazetteer=gazetteer, batch_size=batch_size) as rt,
        progress_bar(console) as update,
    ):
        return ingest_on_ray(
            rt,
            path,
            address=address,
            collection=collection,
            replace=replace,
            language=language,
            fmt=fmt,
            source_type=source_type,
            on_progress=update,
            on_skip=on_skip,
        )


def _print_skipped(skipped: Iterable[Skipped]) -> None:
    """The files no reader took, each with why (a name's "[draft]" is not markup)."""
    from rich.markup import escape

    for item in skipped:
        err.print(f"[yellow]skipped[/] {escape(item.path)}: {escape(item.reason)}")


def _print_warnings(stats: IngestStats) -> None:
    """What the ingest wrote but would have the user know (a language it could not use, ...)."""
    from rich.markup import escape

    for warning in stats.warnings:
        err.print(f"[yellow]warning[/] {escape(warning)}")


def _print_ingest(stats: IngestStats, threads: int) -> None:
    """The summary of an ingest; exit 1 when documents were refused."""
    from anchorgraph.ingestion import ingest_summary

    _print_warnings(stats)

    console.print(
        f"{ingest_summary(stats)}\n"
        f"{stats.chunks} chunks, {stats.mentions} entity mentions, {stats.triples} triples, "
        f"{stats.claims} claims, {stats.links} links in {stats.seconds:.1f} s "
        f"(parse {stats.parse_s:.1f} s, embed {stats.embed_s:.1f} s on {_threads(threads)}, "
        f"write {stats.write_s:.1f} s).",
        soft_wrap=True,
    )
    if stats.refitted:
        console.print("FD* length bins fitted again (`anchorgraph fd stats` shows them).")
    if stats.refused:
        raise typer.Exit(1)


@app.command("sync")
def sync(
    path: Annotated[
        str,
        typer.Argument(
            help="The folder to mirror: a local one, file:///…, s3://bucket/prefix, or any "
            "URL fsspec serves (docs/sources.md)."
        ),
    ],
    collection: CollectionOption = DEFAULT,
    dry_run: Annotated[
        bool, typer.Option(help="Only list what would be added, updated and deleted.")
    ] = False,
    replace: Annotated[
        bool, typer.Option(help="Replace documents of the collection from another origin.")
    ] = False,
) -> None:
    """Make a collection mirror a folder or a bucket prefix: add new files, update changed ones
    (only files whose ETag, or size and time, changed are read), and delete the documents that
    came from this folder and whose files are gone. Documents of the collection from elsewhere
    are kept."""
    from anchorgraph.ingestion import plan_folder_sync, source_at
    from anchorgraph.loaders.sync import run_sync
    from anchorgraph.runtime import ModelWhenNeeded, open_runtime

    settings = load_settings()
    with clear_errors():
        source = source_at(settings, path)  # a bad path or store fails before Neo4j starts
        # The model loads only if a file is new or changed: not for a dry run, nor a folder
        # that did not change.
        with open_runtime(settings, schema="apply", embedder_factory=ModelWhenNeeded) as runtime:
            plan, skipped = plan_folder_sync(
                settings, runtime.ingestor, source, collection, replace=replace
            )
            _print_skipped(skipped)
            done = None if dry_run else run_sync(runtime.ingestor, plan, replace=replace)
    past = done is not None  # a dry run lists what it would do; a sync, what it did
    for verb, ids in (("add", plan.add), ("update", plan.update), ("delete", plan.delete)):
        for id_ in ids:
            said = f"{_PAST[verb] if past else verb:<8} {id_}"
            console.print(f"  {said}", markup=False, highlight=False)
    for refusal in plan.conflicts:
        verb = "replace" if replace else "refuse"
        said = f"{_PAST[verb] if past else verb:<8} {refusal.message(collection)}"
        console.print(f"  {said}", soft_wrap=True, markup=False)
    console.print((plan.summary(replace=replace) if done is None else done.summary()) + ".")
    if done is not None:
        _print_warnings(done.stats)
        if done.stats.refused:
            raise typer.Exit(1)


_PAST = {
    "add": "added",
    "update": "updated",
    "delete": "deleted",
    "replace": "replaced",
    "refuse": "refused",
}


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


def _threads(threads: int) -> str:
    return "every core" if threads == 0 else f"{threads} thread{'s' if threads > 1 else ''}"


# The flags made from SearchOptions (anchorgraph.cli_search): the command's parameters after
# its own, set on its signature below.
SEARCH_FLAGS = read_flags()


def search_command(
    query: Annotated[str, typer.Argument(help="Any text; Lucene syntax in it is not interpreted.")],
    collection: Annotated[
        list[str] | None,
        typer.Option(
            "--collection", "-c", help="Search this collection (repeatable); default: all."
        ),
    ] = None,
    folder: Annotated[
        list[str] | None, typer.Option(help="Only this folder and below (repeatable).")
    ] = None,
    tag: Annotated[
        list[str] | None, typer.Option(help="Only documents with a tag (repeatable).")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the result as POST /search returns it.")
    ] = False,
    api: Annotated[
        str | None,
        typer.Option(
            metavar="[URL]",
            help="Search through a running API, which has the model loaded, instead of "
            "opening Neo4j here: the one at URL, or without a URL the configured one "
            "(ANCHORGRAPH_API_HOST and _PORT: http://127.0.0.1:8000 by default); sends "
            "ANCHORGRAPH_API_KEY if set.",
        ),
    ] = None,
    **flags: Any,
) -> None:
    """Search the graph from the terminal, with the engine the API and the library use.

    The query is embedded with the model's checked ONNX export, without torch; the first search
    after installing (or changing) the model loads it in full once, to check and record that
    export."""
    from pydantic import ValidationError

    from anchorgraph.retrieval.types import Filters, SearchOptions

    explain = bool(flags.get("explain"))
    try:
        options = SearchOptions.model_validate(
            {
                **request(SEARCH_FLAGS, flags),
                "query": query,
                "collections": collection or None,
                "filters": Filters(folders=folder or [], tags=tag or []),
                "explain": explain or as_json,
            }
        )
    except ValidationError as error:
        from rich.markup import escape  # a pattern's [a-z] would read as markup

        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'options'}: {e['msg']}" for e in error.errors()
        )
        err.print(f"[bold red]error:[/] {escape(problems)}")
        raise typer.Exit(2) from None
    result = _search_here(options) if api is None else _search_api(api, options)
    if as_json:
        console.print_json(result.model_dump_json())
        return
    _print_result(result, explain=explain)


# The command's own parameters, their annotations resolved (this module's are strings), then
# the generated flags: Typer reads them from the signature.
_HINTS = get_type_hints(search_command, include_extras=True)
_OWN = [
    parameter.replace(annotation=_HINTS[name])
    for name, parameter in inspect.signature(search_command).parameters.items()
    if parameter.kind is not inspect.Parameter.VAR_KEYWORD
]
search_command.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
    [*_OWN, *(flag.parameter() for flag in SEARCH_FLAGS)]
)


class _SearchCommand(TyperCommand):
    """``search``, whose ``--api`` may come without a URL: it then means the configured API.
    Typer has no option with an optional value, so a bare ``--api`` is given an empty one here
    (``_api_url``)."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        given: list[str] = []
        for at, arg in enumerate(args):
            if arg == "--":  # the rest is the query's, whatever it says
                given += args[at:]
                break
            given.append(arg)
            if arg == "--api" and not (at + 1 < len(args) and _is_address(args[at + 1])):
                given.append("")
        return super().parse_args(ctx, given)


app.command("search", cls=_SearchCommand)(search_command)


def _is_address(arg: str) -> bool:
    """Whether what follows ``--api`` is the API's address (``http://host:port``, or
    ``host:port``) rather than the query or another option."""
    return "://" in arg or re.fullmatch(r"[\w.-]+:\d{1,5}", arg) is not None


def _search_here(options: SearchOptions) -> SearchResult:
    """One search on the configured graph, read-only, the query embedded without torch."""
    from anchorgraph.retrieval.pipeline import search
    from anchorgraph.runtime import open_runtime

    with (
        clear_errors(),
        open_runtime(load_settings(), schema="verify", embedder_factory=query_embedder) as rt,
    ):
        return search(rt.search, options)


def _search_api(url: str, options: SearchOptions) -> SearchResult:
    """The same search through ``POST /search`` of a running API (which may hold the only
    password to the graph, and has the model loaded): the one at ``url``, or (``""``) the
    configured one."""
    import httpx
    from rich.markup import escape

    from anchorgraph.retrieval.types import SearchResult

    settings = load_settings()
    key = settings.api_key
    headers = {"X-API-Key": key.get_secret_value()} if key is not None else {}
    url = url or settings.api_url
    base = url if "://" in url else f"http://{url}"  # host:port
    endpoint = f"{base.rstrip('/')}/search"
    try:
        response = httpx.post(
            endpoint,
            json=options.model_dump(mode="json", exclude_unset=True),
            headers=headers,
            timeout=120.0,
        )
    except httpx.HTTPError as error:
        message = f"no answer from {endpoint}: {error}"
        err.print(f"[bold red]error:[/] {escape(message)}", soft_wrap=True)
        raise typer.Exit(1) from None
    if response.status_code != 200:
        try:
            problem = response.json()
            detail = f"{problem['title']}: {problem['detail']}"
        except (ValueError, KeyError, TypeError):
            detail = response.text[:500]
        err.print(
            f"[bold red]error:[/] {escape(endpoint)} answered {response.status_code}: "
            f"{escape(detail)}",
            soft_wrap=True,
        )
        raise typer.Exit(1)
    return SearchResult.model_validate_json(response.content)


def _print_result(result: SearchResult, *, explain: bool) -> None:
    from rich.markup import escape
    from rich.table import Table

    from anchorgraph.retrieval.evidence import NO_MATCH

    # Every text from the query or the documents is escaped: "[the report](…)" in a Markdown
    # page is rich markup to the console, and would vanish ("[/x]" would end the command).
    title = escape(f"{result.mode} · {result.level} · {result.query!r}")
    table = Table(show_lines=explain, title=title)
    for column, justify in (("#", "right"), ("score", "right"), ("FD*", "right")):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    # A path longer than its column folds onto the next line instead of ending in "…": a
    # citation is only worth its whole path (80 columns is all a console assumes under a pipe).
    table.add_column("document", overflow="fold")
    table.add_column("title / text")
    for hit in result.hits:
        text = " ".join(hit.text.split())
        cell = f"[bold]{escape(hit.title)}[/]\n{escape(text[:160])}{'…' if len(text) > 160 else ''}"
        if explain and hit.paths:
            cell += "\n" + "  ".join(
                f"{path} {score.raw:.3f}→{score.normalised:.3f} (+{score.contribution:.3f})"
                for path, score in hit.paths.items()
            )
        if explain and hit.fd is not None:
            cell += "\n" + escape(_fd_line(hit.fd))
        if explain and hit.evidence is not None:
            cell += "\n" + escape(hit.evidence.described())
        fd = "" if hit.fd is None or hit.fd.fd_star is None else f"{hit.fd.fd_star:+.2f}"
        for s in hit.supporting:
            path = " → ".join(escape(step.described()) for step in s.path)
            cell += f"\n  ↳ {escape(s.document_id)} via {path} ({s.score:.3f})"
        document = (
            hit.citation()
            if len(result.collections) == 1
            else f"{hit.collection}: {hit.citation()}"
        )
        table.add_row(str(hit.rank), f"{hit.score:.4f}", fd, escape(document), cell)
    console.print(table)
    if not result.matched:
        console.print(f"[bold red]no match:[/] {NO_MATCH}", highlight=False)
    if result.entities:
        names = escape(", ".join(f"{e.name} ({e.how})" for e in result.entities[:8]))
        console.print(f"entities: {names}")
    if result.feedback_documents:
        console.print(f"feedback from: {escape(', '.join(result.feedback_documents))}")
    if result.tokens is not None:
        t = result.tokens
        console.print(
            f"tokens: {t.returned} returned, {t.without_expansion} without expansion, "
            f"{t.parent_windows} with whole linked documents"
        )
    console.print(f"{result.total_ms:.0f} ms, {result.round_trips} database round trips")
    if result.cut_short:
        console.print(
            f"[yellow]cut short by the request's deadline:[/] {', '.join(result.cut_short)} "
            "left out (the hits are unexpanded)"
        )


def _fd_line(fd: FdScore) -> str:
    star = "unbinned" if fd.fd_star is None else f"FD* {fd.fd_star:+.3f} → {fd.rescaled:.3f}"
    line = (
        f"FD_raw {fd.fd_raw:.4f} ({fd.n_claims} claims / {fd.n_tokens} tokens, "
        f"{fd.length_bin or '-'} bin), {fd.source_type or 'no source type'} "
        f"×{fd.a_source:g}, {star}"
    )
    return line + (f" (+{fd.contribution:.3f})" if fd.contribution else "")


@app.command("serve")
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


@app.command("mcp")
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


@app.command("run")
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
            _print_server(settings, server, said)
        if sample:
            _load_sample(settings, embedder)
        _serve(settings, host, port, embedder=embedder)
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
            "eval/<dataset>-<split> in the data folder (ANCHORGRAPH_DATA_DIR, "
            "~/.local/share/anchorgraph)."
        ),
    ] = None,
    max_queries: Annotated[
        int | None, typer.Option(min=1, help="A random sample of the queries.")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the query sample.")] = 0,
    entities: Annotated[
        bool, typer.Option(help="spaCy NER and triples at ingest; off: patterns only.")
    ] = True,
    casing_names: Annotated[
        bool,
        typer.Option(
            help="With --no-entities, also take the names capitals show (runs of capitalised "
            "words), so that entity bridges have names to cross."
        ),
    ] = False,
    title_in_text: Annotated[
        bool, typer.Option(help="Ingest 'title + text' as the document text (BEIR convention).")
    ] = True,
    classify_source_types: Annotated[
        bool,
        typer.Option(
            help="Give each document its study design (systematic_review, rct, other) as its "
            "source type, FD*'s tiers; BEIR corpora declare none."
        ),
    ] = True,
    link_titles: Annotated[
        bool,
        typer.Option(
            help="Link each mention of another document's title to it (corpora without "
            "links, e.g. HotpotQA), for the expansion conditions."
        ),
    ] = False,
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
    from anchorgraph.evaluation.run import EvalConfig
    from anchorgraph.evaluation.run import run as run_eval

    config = EvalConfig(
        dataset=dataset,
        split=split,
        conditions=[conditions],
        out=out,
        max_queries=max_queries,
        seed=seed,
        entities=entities,
        casing_names=casing_names,
        title_in_text=title_in_text,
        classify_source_types=classify_source_types,
        link_titles=link_titles,
        neo4j_uri=neo4j_uri,
        neo4j_home=neo4j_home,
        keep_server=keep_server,
        wipe=wipe,
    )
    with clear_errors():
        try:
            _report, paths = run_eval(config, console)
        except (FileNotFoundError, ValueError) as error:
            err.print(f"[bold red]error:[/] {error}")
            raise typer.Exit(1) from None
    console.print(paths["markdown"].read_text(), markup=False, highlight=False, soft_wrap=True)
    console.print(" ".join(f"{kind}: {path}" for kind, path in paths.items()), soft_wrap=True)


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


def _print_server(settings: Settings, server: LocalNeo4j, headline: str) -> None:
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


def main() -> None:
    app()
