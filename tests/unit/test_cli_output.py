"""The CLI's error messages: whole lines, whatever the console's width, and as written."""

from __future__ import annotations

import pytest
import typer

from anchorgraph.cli.output import clear_errors, refuse
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
    from anchorgraph.cli.ingest import _print_ingest, _print_skipped
    from anchorgraph.loaders.ingest import IngestStats
    from anchorgraph.loaders.read import Skipped

    _print_skipped([Skipped("notes [draft].md", LONG)])
    assert capsys.readouterr().err == f"skipped notes [draft].md: {LONG}\n"
    _print_ingest(IngestStats(written=1, warnings=[f"a.md: [xx] {LONG}"]), threads=1)
    assert capsys.readouterr().err == f"warning a.md: [xx] {LONG}\n"


def test_a_search_hit_keeps_its_whole_path_in_a_narrow_console(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from anchorgraph.cli.output import console
    from anchorgraph.cli.search import _print_result
    from anchorgraph.retrieval.options import Mode
    from anchorgraph.retrieval.results import Hit, SearchResult

    path = "archive/projects/alpha/meeting-notes/2025/quarterly-review-final.pdf"
    hit = Hit(
        rank=1, score=0.5, collection="kb", document_id=path, chunk_id=f"{path}#0",
        title="Quarterly review", text="lorem ipsum dolor " * 20, n_tokens=60, pages=[4],
        paths={},
    )  # fmt: skip
    result = SearchResult(
        query="review", mode=Mode.HYBRID, level="chunk", collections=["kb"], hits=[hit],
        entities=[], identifiers=[], candidates={}, timings=[], round_trips=1, total_ms=3.0,
        matched=True,
    )  # fmt: skip
    monkeypatch.setattr(console, "width", 80)
    _print_result(result, explain=False)
    out = capsys.readouterr().out
    # The document column's pieces, read down the rows, spell the whole citation.
    cells = [line.split("│")[4].strip() for line in out.splitlines() if line.count("│") == 6]
    assert "".join(cells).startswith(path)
