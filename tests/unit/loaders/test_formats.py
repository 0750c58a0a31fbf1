"""The table of formats is where every list of them comes from: the docs' table, the reader
modules it names, detection by name and media type, the CLI's help and the upload schema."""

from __future__ import annotations

import inspect
import re
from importlib import import_module
from pathlib import Path

import pytest
from typer.testing import CliRunner

from anchorgraph.api.schemas import DocumentIn, UploadFields
from anchorgraph.cli.main import app
from anchorgraph.errors import UnsupportedFormat
from anchorgraph.loaders.formats import (
    FORMATS,
    TEXT_FORMAT_NAMES,
    CollectionFormat,
    FileFormat,
    Format,
    TextFormat,
    format_named,
    format_of_media_type,
    format_of_name,
)
from anchorgraph.loaders.read import detect_format

DOCUMENTS_MD = Path(__file__).parents[3] / "docs" / "documents.md"
KINDS = {TextFormat: "text", FileFormat: "file", CollectionFormat: "collection"}


def _docs_rows() -> dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]]:
    """The rows of documents.md's "Formats" table: name → (kind, names, media types)."""
    section = DOCUMENTS_MD.read_text(encoding="utf-8").split("\n## Formats\n")[1].split("\n## ")[0]
    rows = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0].startswith("`"):
            name, kind, names, media = cells
            ticked = [tuple(re.findall(r"`([^`]+)`", cell)) for cell in (names, media)]
            rows[name.strip("`")] = (kind, ticked[0], ticked[1])
    return rows


def test_the_docs_list_every_format_as_the_table_does() -> None:
    expected = {f.name: (KINDS[type(f)], f.file_names + f.suffixes, f.media_types) for f in FORMATS}
    assert _docs_rows() == expected


@pytest.mark.parametrize(
    "fmt", [f for f in FORMATS if not isinstance(f, CollectionFormat)], ids=lambda f: f.name
)
def test_every_reader_module_has_the_read_of_its_kind(fmt: TextFormat | FileFormat) -> None:
    read = import_module(fmt.reader).read
    wanted = ["source"] if isinstance(fmt, TextFormat) else ["data", "doc_id", "reading"]
    assert list(inspect.signature(read).parameters) == wanted


def test_each_name_suffix_and_media_type_is_one_formats() -> None:
    for values in (
        [f.name for f in FORMATS],
        [name for f in FORMATS for name in f.file_names + f.suffixes],
        [media_type for f in FORMATS for media_type in f.media_types],
    ):
        assert len(values) == len(set(values)), values


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.name)
def test_a_file_is_known_by_its_name_and_a_part_by_its_media_type(fmt: Format) -> None:
    for suffix in fmt.suffixes:
        assert detect_format(f"folder/Report{suffix.upper()}") == fmt.name
    for name in fmt.file_names:
        assert detect_format(f"scifact/{name}") == fmt.name
    for media_type in fmt.media_types:
        assert format_of_media_type(f"{media_type}; charset=utf-8") is fmt


def test_an_unknown_file_or_format_is_refused_naming_what_is_read() -> None:
    assert format_of_name("sheet.xls") is None and format_of_name("README") is None
    with pytest.raises(UnsupportedFormat, match=r"sheet\.xls: no reader.*pdf \(\.pdf\)"):
        detect_format("sheet.xls")
    with pytest.raises(UnsupportedFormat, match=r"'xls'.*docx \(\.docx\)"):
        format_named("xls")


def test_the_cli_help_and_the_upload_schema_list_the_table() -> None:
    done = CliRunner().invoke(app, ["ingest", "--help"], env={"COLUMNS": "400"})
    help_text = " ".join(done.output.split())
    assert all(f.name in help_text for f in FORMATS), help_text
    for model in (DocumentIn, UploadFields):
        schema = model.model_json_schema()["properties"]["format"]
        enum = schema.get("enum") or next(b["enum"] for b in schema["anyOf"] if "enum" in b)
        assert tuple(enum) == TEXT_FORMAT_NAMES
    with pytest.raises(ValueError, match="Input should be 'text', 'markdown' or 'html'"):
        DocumentIn.model_validate({"id": "a", "text": "x", "format": "pdf"})
