"""What every ``anchorgraph`` command prints with: the consoles, and our errors as a message and
an exit code instead of a traceback (shared by every module of ``anchorgraph.cli``); the
settings, read when a command runs; and a request to a running API (``api_call``).

The command modules import nothing at the top that ``anchorgraph --help`` does not need: each
command imports what it uses when it runs (pydantic-settings alone takes a third of a second to
import, torch seconds), so the help and a command that opens only the graph stay quick
(``tests/unit/test_cli_imports.py``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from anchorgraph.errors import AnchorgraphError, InvalidInput

if TYPE_CHECKING:
    import httpx

    from anchorgraph.embedding import Embedder
    from anchorgraph.settings import Settings

console = Console()
# Messages are not wrapped at the console's width (80 columns when it cannot tell, as under a
# pipe): a path or a command in a message stays whole for the terminal to wrap, or a script to
# match.
err = Console(stderr=True, soft_wrap=True)


def command_group(help_text: str, **options: Any) -> typer.Typer:
    """A group of ``anchorgraph`` commands: its help when called without a command, and help in
    click's plain layout (``rich_markup_mode=None``), since typer's rich layout imports rich's
    Markdown and Pygments, a third of the help's time."""
    return typer.Typer(no_args_is_help=True, rich_markup_mode=None, help=help_text, **options)


def load_settings() -> Settings:
    """The settings from the environment and ``.env``, as every command starts with."""
    from anchorgraph.settings import Settings

    return Settings()


def query_embedder(settings: Settings) -> Embedder:
    """The embedder of a command that embeds queries only (``anchorgraph.runtime.query_embedder``:
    the model's ONNX export, without torch), saying on stderr when it must load the full model
    instead (stdout may carry JSON or, for ``anchorgraph mcp``, the protocol)."""
    from anchorgraph.runtime import query_embedder as embedder_of_queries

    def say(message: str) -> None:
        err.print(f"note: {message}", soft_wrap=True, markup=False, highlight=False)

    return embedder_of_queries(settings, notice=say)


@contextlib.contextmanager
def clear_errors() -> Iterator[None]:
    """Our own errors end the command with their message (exit 1), not a traceback."""
    try:
        yield
    except AnchorgraphError as error:
        _error(str(error))
        raise typer.Exit(1) from None


def refuse(message: str) -> NoReturn:
    """End the command for bad input it was given (exit 2, like a usage error)."""
    _error(message)
    raise typer.Exit(2)


def _error(message: str) -> None:
    # Escaped: a message may quote "[--replace]" or a user's "[draft]" file name.
    err.print(f"[bold red]error:[/] {escape(message)}", highlight=False)


def _collection(name: str) -> str:
    from anchorgraph.scope import collection_name

    try:
        return collection_name(name)
    except InvalidInput as error:
        raise typer.BadParameter(str(error)) from None


CollectionOption = Annotated[
    str,
    typer.Option(
        "--collection",
        "-c",
        callback=_collection,
        help="The collection (documents' ids are unique within it).",
    ),
]
"""``--collection NAME`` of every command that works on one collection (default ``default``)."""
# anchorgraph.scope.DEFAULT_COLLECTION written out, since anchorgraph.scope imports pydantic
# (tests/unit/test_cli_imports.py checks that the two agree).
DEFAULT = "default"

# The options of the commands that work on a BEIR dataset's evaluation graph (`eval`,
# `fd fit-authority`).
DatasetOption = Annotated[
    Path,
    typer.Option(exists=True, file_okay=False, help="A BEIR folder (corpus, queries, qrels)."),
]
SplitOption = Annotated[str, typer.Option(help="A qrels file stem: train, dev, ...")]
KeepServerOption = Annotated[
    bool, typer.Option(help="Leave the evaluation Neo4j running for the next run.")
]


def api_base(url: str) -> str:
    """The API at ``url`` (``http://host:port``, ``host:port``), or (``""``) the configured one."""
    url = url or load_settings().api_url
    return (url if "://" in url else f"http://{url}").rstrip("/")


def api_call(method: str, endpoint: str, **options: Any) -> httpx.Response:
    """One request to a running API with the configured key (``options`` go to httpx); any
    answer but 2xx ends the command with the problem's title and detail (exit 1)."""
    import httpx

    key = load_settings().api_key
    headers = {"X-API-Key": key.get_secret_value()} if key is not None else {}
    try:
        response = httpx.request(method, endpoint, headers=headers, **options)
    except httpx.HTTPError as error:
        _error(f"no answer from {endpoint}: {error}")
        raise typer.Exit(1) from None
    if not response.is_success:
        try:
            problem = response.json()
            detail = f"{problem['title']}: {problem['detail']}"
        except (ValueError, KeyError, TypeError):
            detail = response.text[:500]
        _error(f"{endpoint} answered {response.status_code}: {detail}")
        raise typer.Exit(1)
    return response
