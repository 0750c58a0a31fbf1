"""``anchorgraph tune``: fit a collection's fusion weights to relevance judgments (a BEIR qrels
file, or those recorded through ``POST /judgments``) and store them with the collection
(``anchorgraph.judgments``). It searches as the API does, with the query encoder
(``anchorgraph.runtime.query_embedder``), and writes only the collection's weights."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from anchorgraph.cli.output import (
    DEFAULT,
    CollectionOption,
    clear_errors,
    console,
    load_settings,
    query_embedder,
)

if TYPE_CHECKING:
    from anchorgraph.judgments import TuneReport


def tune(
    collection: CollectionOption = DEFAULT,
    qrels: Annotated[
        Path | None,
        typer.Option(
            dir_okay=False,
            help="BEIR qrels (TSV: query-id, corpus-id, score); "
            "default: the judgments recorded through POST /judgments.",
        ),
    ] = None,
    queries: Annotated[
        Path | None,
        typer.Option(
            dir_okay=False,
            help="The qrels' queries (BEIR queries.jsonl); default: "
            "queries.jsonl of the qrels' dataset folder.",
        ),
    ] = None,
    dry_run: Annotated[bool, typer.Option(help="Report the fit, store nothing.")] = False,
    reset: Annotated[
        bool, typer.Option(help="Remove the collection's own weights: back to the defaults.")
    ] = False,
) -> None:
    """Fit a collection's fusion weights to relevance judgments: a factor on the lexical paths
    against the dense ones and one on the small paths, chosen on ~70 % of the judged queries and
    checked by real searches on the other ~30 %; kept per level only where those do not rank
    worse. Hybrid searches of the collection alone then use them."""
    from anchorgraph.judgments import (
        collection_judgments,
        read_qrels,
        reset_ranking,
        tune_collection,
    )
    from anchorgraph.runtime import open_runtime

    settings = load_settings()
    with clear_errors(), open_runtime(settings, embedder_factory=query_embedder) as runtime:
        if reset:
            had = reset_ranking(runtime.search, runtime.graph, collection)
            console.print(
                f"{collection!r} searches with the default weights"
                + (" again." if had else " (it had no weights of its own).")
            )
            return
        judgments = (
            read_qrels(qrels, queries) if qrels else collection_judgments(runtime.graph, collection)
        )
        columns = (TextColumn("[bold]tune"), BarColumn(), MofNCompleteColumn(),
                   TextColumn("searches"), TimeRemainingColumn())  # fmt: skip
        with Progress(*columns, console=console, transient=True) as progress:
            task = progress.add_task("tune", total=None)
            report = tune_collection(
                runtime.search,
                runtime.graph,
                collection,
                judgments,
                store=not dry_run,
                progress=lambda done, total: progress.update(task, completed=done, total=total),
            )
    _print_report(report, dry_run=dry_run)


def _print_report(report: TuneReport, *, dry_run: bool) -> None:
    ranking = report.ranking
    unknown = report.unknown_documents
    console.print(
        f"{report.collection!r}: {ranking.queries} judged queries fitted on, "
        f"{ranking.held_queries} kept aside"
        + (f"; {unknown} judged documents are not in it." if unknown else ".")
    )
    table = Table("level", "dense / lexical / small", "NDCG@10 fitted part", "held part", "")
    for level, fitted in (("document", ranking.document), ("chunk", ranking.chunk)):
        factors = " / ".join(f"×{fitted.scales[name]:g}" for name in ("dense", "lexical", "small"))
        kept = "changed" if level in report.changed else "defaults"
        table.add_row(
            level,
            factors,
            f"{fitted.fit_default:.3f} → {fitted.fit_tuned:.3f}",
            f"{fitted.held_default:.3f} → {fitted.held_tuned:.3f}",
            kept,
        )
    console.print(table)
    if not report.changed:
        stored = "" if dry_run else " (weights stored before, if any, were removed)"
        console.print(f"The default weights rank these judgments best: nothing stored{stored}.")
    elif dry_run:
        console.print("Dry run: nothing stored.")
    else:
        console.print(
            f"Stored as {ranking.name!r}: hybrid searches of {report.collection!r} alone use "
            f"it (anchorgraph tune --collection {report.collection} --reset to undo)."
        )
