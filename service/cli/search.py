"""``anchorgraph search``: a search from the terminal with the engine the API and the library
use, on the configured graph (the query embedded with the model's ONNX export, without torch) or
through a running API (``--api``); its options are the flags ``anchorgraph.cli.search_flags``
makes from ``SearchOptions``."""

from __future__ import annotations

import inspect
import re
from typing import TYPE_CHECKING, Annotated, Any, get_type_hints

import typer
from typer.core import TyperCommand

from anchorgraph.cli.output import (
    api_base,
    api_call,
    clear_errors,
    console,
    err,
    load_settings,
    query_embedder,
)
from anchorgraph.cli.search_flags import read_flags, request

if TYPE_CHECKING:  # imported by the commands that use them (anchorgraph.cli.output says why)
    from anchorgraph.retrieval.options import SearchOptions
    from anchorgraph.retrieval.results import FdScore, SearchResult


# The flags made from SearchOptions (anchorgraph.cli.search_flags): the command's parameters after
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

    from anchorgraph.retrieval.options import SearchOptions
    from anchorgraph.retrieval.stage_options import Filters

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


class SearchCommand(TyperCommand):
    """``search``, whose ``--api`` may come without a URL: it then means the configured API.
    Typer has no option with an optional value, so a bare ``--api`` is given an empty one here
    (``_search_api`` reads it as the configured one)."""

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
    from anchorgraph.retrieval.results import SearchResult

    body = options.model_dump(mode="json", exclude_unset=True)
    response = api_call("POST", f"{api_base(url)}/search", json=body, timeout=120.0)
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
