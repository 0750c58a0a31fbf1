"""``anchorgraph ingest`` and ``anchorgraph sync``: documents from a file, a folder tree or a
bucket prefix written into a collection, and a collection made to mirror a folder. The model
loads only once a document is new or changed (``anchorgraph.runtime.ModelWhenNeeded``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from anchorgraph.cli.output import (
    DEFAULT,
    CollectionOption,
    clear_errors,
    console,
    err,
    load_settings,
    refuse,
)
from anchorgraph.loaders.formats import names as format_names

if TYPE_CHECKING:  # imported by the commands that use them (anchorgraph.cli.output says why)
    from collections.abc import Callable, Iterable

    from anchorgraph.loaders.ingest import IngestStats
    from anchorgraph.loaders.model import SourceDocument
    from anchorgraph.loaders.read import Skipped
    from anchorgraph.settings import Settings
    from anchorgraph.text.language import Language


def _language(code: str | None) -> Language | None:
    """The language an option names, or None; a code anchorgraph does not analyse ends the
    command with the list of those it does."""
    from anchorgraph.text.language import language_of

    try:
        return None if code is None else language_of(code)
    except ValueError as error:
        refuse(str(error))


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


def _threads(threads: int) -> str:
    return "every core" if threads == 0 else f"{threads} thread{'s' if threads > 1 else ''}"
