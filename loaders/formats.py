"""The formats documents are read from, in one table.

Reading (``anchorgraph.loaders.read``), the formats ``POST /documents`` accepts and the media
types it knows them by, the CLI's ``--format`` help, the error texts and the list in
docs/documents.md all come from :data:`FORMATS`. A format is one of three kinds, each with its
own limit:

- :class:`TextFormat`: UTF-8 text (or UTF-16/32 with its byte-order mark) of at most
  ``max_document_bytes``, read by its module's ``read(text)``;
- :class:`FileFormat`: a binary file of at most ``max_file_bytes`` (and ``max_pages``), read by
  its module's ``read(data, doc_id, reading)``; only a file part of an upload carries one,
  since a form field is text;
- :class:`CollectionFormat`: many documents in one file, each line at most
  ``max_document_bytes`` (``read.py`` reads them line by line).

Adding a format is its reader module (a ``read`` that returns
:class:`~anchorgraph.loaders.draft.Found`), an entry here, its row in docs/documents.md (a unit
test compares the two) and its test.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING, Protocol, cast

from anchorgraph.errors import UnsupportedFormat

if TYPE_CHECKING:
    from anchorgraph.loaders.draft import Found
    from anchorgraph.loaders.files import FileReading


class TextReader(Protocol):
    """A text format's reader module."""

    def read(self, source: str) -> Found: ...


class FileReader(Protocol):
    """A file format's reader module."""

    def read(self, data: bytes, doc_id: str, reading: FileReading) -> Found: ...


@dataclass(frozen=True, kw_only=True)
class Format:
    """A format: its name (``--format``, ``format``, a document's default ``source_type``), what
    prose calls it, and the file names, suffixes and media types it is known by."""

    name: str
    label: str
    suffixes: tuple[str, ...] = ()
    media_types: tuple[str, ...] = ()
    file_names: tuple[str, ...] = ()  # whole names, matched before suffixes

    def known_by(self) -> str:
        """``"pdf (.pdf)"``: the name and how a file is known as one."""
        return f"{self.name} ({', '.join(self.file_names + self.suffixes)})"


# A reader is named by its module and imported when a document of its format is read, so that
# the table (and with it the CLI's help, which lists the formats) loads no parser. A unit test
# checks that every module named has the reader's ``read``; the casts say so to mypy.
@dataclass(frozen=True, kw_only=True)
class TextFormat(Format):
    """One document of text, at most ``max_document_bytes``, read by ``reader.read(text)``."""

    reader: str

    def read(self, source: str) -> Found:
        return cast("TextReader", import_module(self.reader)).read(source)


@dataclass(frozen=True, kw_only=True)
class FileFormat(Format):
    """One binary file within ``FileReading``'s limits, read by ``reader.read(data, id,
    reading)``."""

    reader: str

    def read(self, data: bytes, doc_id: str, reading: FileReading) -> Found:
        return cast("FileReader", import_module(self.reader)).read(data, doc_id, reading)


@dataclass(frozen=True, kw_only=True)
class CollectionFormat(Format):
    """A file of many documents, one JSON object a line, each line at most
    ``max_document_bytes`` (read line by line by ``anchorgraph.loaders.read``)."""


FORMATS: tuple[Format, ...] = (
    TextFormat(
        name="text",
        label="plain text",
        suffixes=(".txt", ".text"),
        media_types=("text/plain",),
        reader="anchorgraph.loaders.plain",
    ),
    TextFormat(
        name="markdown",
        label="Markdown",
        suffixes=(".md", ".markdown"),
        media_types=("text/markdown",),
        reader="anchorgraph.loaders.markdown",
    ),
    TextFormat(
        name="html",
        label="HTML",
        suffixes=(".html", ".htm"),
        media_types=("text/html",),
        reader="anchorgraph.loaders.html",
    ),
    CollectionFormat(name="jsonl", label="JSON Lines", suffixes=(".jsonl",)),
    CollectionFormat(name="beir", label="a BEIR corpus", file_names=("corpus.jsonl",)),
    FileFormat(
        name="pdf",
        label="PDF",
        suffixes=(".pdf",),
        media_types=("application/pdf",),
        reader="anchorgraph.loaders.pdf",
    ),
    FileFormat(
        name="docx",
        label="Word",
        suffixes=(".docx",),
        media_types=("application/vnd.openxmlformats-officedocument.wordprocessingml.document",),
        reader="anchorgraph.loaders.word",
    ),
    FileFormat(
        name="image",
        label="scans",
        suffixes=(".png", ".jpg", ".jpeg", ".tif", ".tiff"),
        media_types=("image/png", "image/jpeg", "image/tiff"),
        reader="anchorgraph.loaders.ocr",
    ),
)
FORMAT_NAMES = tuple(f.name for f in FORMATS)
TEXT_FORMAT_NAMES = tuple(f.name for f in FORMATS if isinstance(f, TextFormat))
DOCUMENT_FORMAT_NAMES = tuple(f.name for f in FORMATS if isinstance(f, TextFormat | FileFormat))
_BY_NAME = {f.name: f for f in FORMATS}
_BY_FILE_NAME = {name: f for f in FORMATS for name in f.file_names}
_BY_SUFFIX = {suffix: f for f in FORMATS for suffix in f.suffixes}
_BY_MEDIA_TYPE = {media_type: f for f in FORMATS for media_type in f.media_types}


def supported(formats: Iterable[Format] = FORMATS) -> str:
    """``"text (.txt, .text), markdown (.md, .markdown), …"``: for error texts."""
    return ", ".join(f.known_by() for f in formats)


def names(formats: Iterable[str] = FORMAT_NAMES, last: str = "or") -> str:
    """``"text, markdown or html"``."""
    *rest, final = formats
    return f"{', '.join(rest)} {last} {final}" if rest else final


def suffixes(formats: Iterable[str]) -> str:
    """``".txt, .text, .md, …"``: every suffix of the named formats."""
    return ", ".join(suffix for name in formats for suffix in _BY_NAME[name].suffixes)


def media_types(formats: Iterable[str]) -> str:
    """``"text/plain, text/markdown, …"``: every media type of the named formats."""
    return ", ".join(media for name in formats for media in _BY_NAME[name].media_types)


def format_named(name: str) -> Format:
    """The format called ``name``.

    Raises:
        UnsupportedFormat: No format has that name.
    """
    found = _BY_NAME.get(name)
    if found is None:
        raise UnsupportedFormat(f"Unknown format '{name}'; supported: {supported()}.")
    return found


def format_of_name(file_name: str) -> Format | None:
    """The format a file is read as, by its whole name, else its suffix; None for none."""
    lowered = file_name.lower()
    if lowered in _BY_FILE_NAME:
        return _BY_FILE_NAME[lowered]
    dot = lowered.rfind(".")
    return _BY_SUFFIX.get(lowered[dot:]) if dot > 0 else None


def format_of_media_type(media_type: str) -> Format | None:
    """The format of a media type (``"text/markdown; charset=utf-8"``); None for none."""
    return _BY_MEDIA_TYPE.get(media_type.partition(";")[0].strip().lower())
