"""``anchorgraph fd``: a collection's factual density FD* length bins (fit, statistics) and the
authority a_source of each source type, set by hand (these open the graph alone, without a
model) or fitted to a BEIR split's judgments on the dataset's evaluation graph."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from anchorgraph.cli.output import (
    DEFAULT,
    CollectionOption,
    DatasetOption,
    KeepServerOption,
    SplitOption,
    clear_errors,
    command_group,
    console,
    load_settings,
    refuse,
)

if TYPE_CHECKING:  # imported by the commands that use them (anchorgraph.cli.output says why)
    from anchorgraph.loaders.fd_stats import FdBinRow

fd_app = command_group("Factual density FD*: length bins, their statistics, authority.")


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
    dataset: DatasetOption,
    split: SplitOption,
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
    keep_server: KeepServerOption = False,
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
