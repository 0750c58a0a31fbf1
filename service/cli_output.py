"""What every ``anchorgraph`` command prints with: the consoles, and our errors as a message and
an exit code instead of a traceback (shared by ``service.cli`` and ``service.cli_audit``)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Annotated, NoReturn

import typer
from rich.console import Console

from service.errors import AnchorgraphError, InvalidInput
from service.scope import DEFAULT_COLLECTION, collection_name

console = Console()
err = Console(stderr=True)


@contextlib.contextmanager
def clear_errors() -> Iterator[None]:
    """Our own errors end the command with their message (exit 1), not a traceback."""
    try:
        yield
    except AnchorgraphError as error:
        err.print(f"[bold red]error:[/] {error}")
        raise typer.Exit(1) from None


def refuse(message: str) -> NoReturn:
    """End the command for bad input it was given (exit 2, like a usage error)."""
    err.print(f"[bold red]error:[/] {message}")
    raise typer.Exit(2)


def _collection(name: str) -> str:
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
DEFAULT = DEFAULT_COLLECTION
