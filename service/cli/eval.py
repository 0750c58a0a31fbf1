"""``anchorgraph eval``: search conditions and peers evaluated on a BEIR split, in an evaluation
graph of the dataset's own (``anchorgraph.evaluation.run``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from anchorgraph.cli.output import (
    DatasetOption,
    KeepServerOption,
    SplitOption,
    clear_errors,
    console,
    err,
)


def evaluate(
    dataset: DatasetOption,
    split: SplitOption,
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
    keep_server: KeepServerOption = False,
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
