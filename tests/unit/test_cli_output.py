"""The CLI's error messages: whole lines, whatever the console's width, and as written."""

from __future__ import annotations

import pytest
import typer

from anchorgraph.cli_output import clear_errors, refuse
from anchorgraph.errors import InvalidInput

LONG = (
    "'kb1/README.md' came from /home/ana/kb1/README.md, not from /home/ana/kb2/README.md: "
    "add [--replace] to replace it, or ingest into another collection with --collection"
)


def test_a_refusal_is_one_line_with_its_brackets(capsys: pytest.CaptureFixture[str]) -> None:
    assert len(LONG) > 120  # wider than the 80 columns a console assumes under a pipe
    with pytest.raises(typer.Exit) as exited:
        refuse(LONG)
    assert exited.value.exit_code == 2
    assert capsys.readouterr().err == f"error: {LONG}\n"


def test_our_errors_end_the_command_with_their_message(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(typer.Exit) as exited, clear_errors():
        raise InvalidInput(LONG)
    assert exited.value.exit_code == 1
    assert capsys.readouterr().err == f"error: {LONG}\n"


def test_skipped_files_and_warnings_are_printed_as_written(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from anchorgraph.cli import _print_ingest, _print_skipped
    from anchorgraph.loaders.ingest import IngestStats
    from anchorgraph.loaders.read import Skipped

    _print_skipped([Skipped("notes [draft].md", LONG)])
    assert capsys.readouterr().err == f"skipped notes [draft].md: {LONG}\n"
    _print_ingest(IngestStats(written=1, warnings=[f"a.md: [xx] {LONG}"]), threads=1)
    assert capsys.readouterr().err == f"warning a.md: [xx] {LONG}\n"
