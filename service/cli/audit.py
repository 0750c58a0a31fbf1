"""``anchorgraph audit``: the FD* audits of the configured graph (``anchorgraph.audit``), each a
table in the terminal and a PNG in ``--out`` (default: ``audit/`` in the data folder,
``Settings.data_dir``, never the current folder); ``--json`` prints what the ``/audit`` endpoint
returns instead of the table (and nothing else).

``length`` and ``tiers`` read numbers only and open the graph alone, like ``anchorgraph fd
stats``; ``coverage`` embeds its claims and ``blindness`` its one query as the service embeds a
query, with the query encoder (``anchorgraph.runtime.query_embedder``: the model's ONNX export, no
torch), both verifying the schema (``open_runtime``, read-only)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeVar

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

if TYPE_CHECKING:  # heavy (scipy, numpy, the retrieval engine): imported inside the commands
    from pydantic import BaseModel

    from anchorgraph.audit import BlindnessAudit, CoverageAudit, LengthAudit, TierAudit
    from anchorgraph.audit.length import Correlation
    from anchorgraph.settings import Settings

A = TypeVar("A", bound="BaseModel")  # an audit's result

audit_app = command_group(
    "FD* audits (docs/audits.md): length confound, tier variance, corpus–benchmark coverage and "
    "expert blindness; each prints a table and writes a PNG."
)


Out = Annotated[
    Path | None,
    typer.Option(
        help="Folder the PNG goes to; default: audit/ in the data folder (ANCHORGRAPH_DATA_DIR, "
        "~/.local/share/anchorgraph).",
        file_okay=False,
    ),
]
AsJson = Annotated[
    bool, typer.Option("--json", help="Print the result as the /audit endpoint returns it.")
]


def _out(out: Path | None, settings: Settings) -> Path:
    """The folder the PNGs go to: ``--out``, else ``audit`` in the data folder."""
    return out if out is not None else settings.data_dir / "audit"


def _report(audit: A, png: Path, table: Callable[[A], None], *, as_json: bool) -> None:
    """The audit's table and where its PNG went; with ``--json`` the audit as the endpoint
    returns it and nothing else, so that the output parses as JSON whole (the PNG is where
    ``--out`` or the data folder says)."""
    if as_json:
        console.print_json(audit.model_dump_json())
        return
    table(audit)
    console.print(f"plot: {png}", soft_wrap=True, highlight=False)


@audit_app.command("length")
def length(
    alpha: Annotated[float, typer.Option(help="Significance level of the tests.")] = 0.05,
    collection: CollectionOption = DEFAULT,
    out: Out = None,
    as_json: AsJson = False,
) -> None:
    """Length confound: Pearson r and p of FD_raw and of FD* against n_tokens, per level."""
    from anchorgraph.audit import length_audit, plot_length, read_nodes
    from anchorgraph.runtime import open_graph

    if not 0 < alpha < 1:
        refuse(f"--alpha must be within (0, 1), got {alpha}")
    settings = load_settings()
    with clear_errors(), open_graph(settings) as graph:
        nodes = read_nodes(graph, collection)
    audit = length_audit(nodes, alpha)
    png = plot_length(nodes, audit, _out(out, settings) / "length.png")
    _report(audit, png, _print_length, as_json=as_json)


@audit_app.command("tiers")
def tiers(
    threshold: Annotated[
        float, typer.Option(min=0.0, help="Flag a level whose SD across tier means is below.")
    ] = 0.10,
    collection: CollectionOption = DEFAULT,
    out: Out = None,
    as_json: AsJson = False,
) -> None:
    """Tier variance (the ghost audit): FD* per source type and the SD across their means."""
    from anchorgraph.audit import plot_tiers, read_nodes, tier_audit
    from anchorgraph.runtime import open_graph

    settings = load_settings()
    with clear_errors(), open_graph(settings) as graph:
        nodes = read_nodes(graph, collection)
    audit = tier_audit(nodes, threshold)
    png = plot_tiers(nodes, audit, _out(out, settings) / "tiers.png")
    _report(audit, png, _print_tiers, as_json=as_json)


@audit_app.command("coverage")
def coverage(
    claims: Annotated[
        Path,
        typer.Argument(
            exists=True,
            dir_okay=False,
            help="A BEIR queries.jsonl (field 'text') or a CSV (HealthFC: column 'en_claim').",
        ),
    ],
    column: Annotated[
        str | None, typer.Option(help="The JSON field or CSV column; default: text / en_claim.")
    ] = None,
    min_cosine: Annotated[float, typer.Option(min=-1.0, max=1.0)] = 0.75,
    min_shared: Annotated[int, typer.Option(min=0, help="Keywords in common, at least.")] = 2,
    sample: Annotated[int, typer.Option(min=1, help="Chunks in the random sample.")] = 12,
    seed: Annotated[int, typer.Option(help="Seed of the sample.")] = 0,
    k: Annotated[
        int, typer.Option("-k", "--k", min=1, max=100, help="Nearest chunks checked per claim.")
    ] = 20,
    collection: CollectionOption = DEFAULT,
    out: Out = None,
    as_json: AsJson = False,
) -> None:
    """Corpus–benchmark coverage: the share of claims some chunk covers (cosine and shared
    keywords), over the full corpus and over a seeded sample of chunks."""
    from anchorgraph.audit import coverage_audit, plot_coverage, read_claims
    from anchorgraph.runtime import open_runtime

    settings = load_settings()
    with clear_errors():
        texts = read_claims(claims, column)
        with (
            console.status(f"Checking {len(texts)} claims"),
            open_runtime(settings, schema="verify", embedder_factory=query_embedder) as runtime,
        ):
            audit = coverage_audit(
                runtime.graph,
                runtime.embedder,
                texts,
                collection,
                min_cosine=min_cosine,
                min_shared=min_shared,
                sample_size=sample,
                seed=seed,
                k=k,
            )
    png = plot_coverage(audit, _out(out, settings) / "coverage.png")
    _report(audit, png, _print_coverage, as_json=as_json)


@audit_app.command("blindness")
def blindness(
    query: Annotated[str, typer.Argument(help="The query, e.g. 'exercise and heart disease'.")],
    k: Annotated[int, typer.Option("-k", "--k", min=1, max=50, help="Top documents shown.")] = 5,
    fd_lambda: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="λ of the FD* rerank (default 0.1).")
    ] = 0.1,
    fd_pool: Annotated[int, typer.Option(min=1, help="Cosine hits the rerank scores again.")] = 20,
    collection: CollectionOption = DEFAULT,
    out: Out = None,
    as_json: AsJson = False,
) -> None:
    """Expert blindness for one query: the top k documents under cosine, BM25 and FD*-optimised
    retrieval, with each hit's source type, cosine and FD*."""
    from anchorgraph.audit import blindness_audit, plot_blindness
    from anchorgraph.runtime import open_runtime

    settings = load_settings()
    with (
        clear_errors(),
        open_runtime(settings, schema="verify", embedder_factory=query_embedder) as runtime,
    ):
        audit = blindness_audit(
            runtime.search, query, collection, k=k, fd_lambda=fd_lambda, fd_pool=fd_pool
        )
    png = plot_blindness(audit, _out(out, settings) / "blindness.png")
    _report(audit, png, _print_blindness, as_json=as_json)


# --- tables --------------------------------------------------------------------------------------
def _print_length(audit: LengthAudit) -> None:
    table = Table(
        "level", "n", "unbinned", "FD_raw r", "p", "FD* r", "p", "reading",
        title=f"Length confound: Pearson r against n_tokens (alpha {audit.alpha:g})",
    )  # fmt: skip
    for level in audit.levels:
        if level.star_confounded:
            reading = "[red]FD* still confounded[/]"
        elif level.raw_confounded:
            reading = "[green]corrected[/]"
        else:
            reading = "no confound to correct"
        table.add_row(
            level.level,
            str(level.n),
            str(level.unbinned),
            *_r_and_p(level.raw),
            *_r_and_p(level.star),
            reading,
        )
    console.print(table)
    if not audit.levels:
        console.print("No chunks or documents in the graph.")


def _r_and_p(correlation: Correlation | None) -> tuple[str, str]:
    if correlation is None:
        return "-", "-"
    return f"{correlation.r:+.4f}", f"{correlation.p:.3g}"


def _print_tiers(audit: TierAudit) -> None:
    from anchorgraph.audit.plotting import label

    table = Table(
        "level", "source type", "n", "mean FD*", "SD FD*",
        title=f"Tier variance of FD* (flagged below {audit.threshold:g})",
    )  # fmt: skip
    for level in audit.levels:
        for row in level.tiers:
            table.add_row(
                level.level, label(row.source_type), str(row.n), f"{row.mean:+.3f}", f"{row.sd:.3f}"
            )
        verdict = "[red]FLAGGED: FD* has collapsed[/]" if level.flagged else "[green]ok[/]"
        table.add_row(
            level.level, "[bold]SD of the means[/]", str(level.n), f"{level.sd_between:.3f}",
            verdict, end_section=True,
        )  # fmt: skip
    console.print(table)
    if not audit.levels:
        console.print("No FD* yet: ingest documents, or run `anchorgraph fd recompute`.")


def _print_coverage(audit: CoverageAudit) -> None:
    table = Table(
        "scope", "chunks", "claims", "covered", "share", "chunks aligned", "aligned share",
        title=f"Coverage: cosine ≥ {audit.min_cosine:g} and ≥ {audit.min_shared} shared keywords",
    )  # fmt: skip
    for scope in (audit.sample, audit.full):
        table.add_row(
            f"{scope.scope} (seed {audit.seed})" if scope.scope == "sample" else scope.scope,
            str(scope.chunks),
            str(scope.claims),
            str(scope.covered),
            f"{100 * scope.share:.1f} %",
            str(scope.aligned_chunks),
            f"{100 * scope.aligned_share:.1f} %",
        )
    console.print(table)
    console.print(
        f"Full corpus: each claim's {audit.k} nearest chunks (vector index); "
        f"sample: {audit.sample.chunks} chunks, every one checked."
    )


def _print_blindness(audit: BlindnessAudit) -> None:
    from anchorgraph.audit.plotting import label

    for top in audit.conditions:
        table = Table(title=f"{top.condition} · top {audit.k} · {audit.query!r}")
        table.add_column("#", justify="right")
        table.add_column("document", overflow="fold")
        table.add_column("source type", overflow="fold")
        for column in ("score", "cosine", "cosine rank", "FD*"):
            table.add_column(column, justify="right")
        for hit in top.hits:
            table.add_row(
                str(hit.rank),
                hit.document_id,
                label(hit.source_type),
                f"{hit.score:.4f}",
                "-" if hit.cosine is None else f"{hit.cosine:.4f}",
                "-" if hit.cosine_rank is None else str(hit.cosine_rank),
                "-" if hit.fd_star is None else f"{hit.fd_star:+.3f}",
            )
        console.print(table)
        shares = ", ".join(
            f"{label(name)} {count}/{len(top.hits)}" for name, count in top.composition.items()
        )
        console.print(f"  composition: {shares or 'no hits'}")
    if audit.fd_only:
        console.print(f"FD*-optimised top {audit.k} beyond cosine's: {', '.join(audit.fd_only)}")
