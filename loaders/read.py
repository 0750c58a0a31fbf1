"""Readers: bytes, files and folders in, :class:`SourceDocument` with normalised text out.

Markdown and HTML are rendered to plain text while the spans of their links and headings are
recorded; the text is then normalised and the spans moved with it (``anchorgraph.loaders.draft``),
so for every document ``text[link.start:link.end] == link.anchor_text`` and
``text[h.start:h.start + len(h.text)] == h.text``. PDF, Word and image files are read the same
way by their own modules (``anchorgraph.loaders.files``); PDF and TIFF documents also know
their pages.
"""

from __future__ import annotations

import codecs
import json
import posixpath
import re
from collections.abc import Callable, Generator, Iterable, Iterator
from contextlib import closing
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import partial
from pathlib import Path, PurePosixPath

from bs4 import BeautifulSoup, Tag
from bs4.element import (
    NavigableString,
    PageElement,
    PreformattedString,
    Script,
    Stylesheet,
    TemplateString,
)
from markdown_it import MarkdownIt
from markdown_it.token import Token

from anchorgraph.errors import DocumentTooLarge, InvalidInput, OcrUnavailable, UnsupportedFormat
from anchorgraph.loaders.draft import Draft, Rendered
from anchorgraph.loaders.files import BINARY_FORMATS, FileReading, render_file
from anchorgraph.loaders.model import SourceDocument
from anchorgraph.loaders.pool import ordered_map
from anchorgraph.loaders.sources import Description, Entry, LocalSource, Source, uri_path
from anchorgraph.loaders.webpage import main_content
from anchorgraph.text.normalise import normalise_text

FORMATS = ("text", "markdown", "html", "jsonl", "beir", *BINARY_FORMATS)
_SUFFIXES = {
    ".txt": "text",
    ".text": "text",
    ".md": "markdown",
    ".markdown": "markdown",
    ".html": "html",
    ".htm": "html",
    ".jsonl": "jsonl",
    ".pdf": "pdf",
    ".docx": "docx",
    ".png": "image",
    ".jpg": "image",
    ".jpeg": "image",
    ".tif": "image",
    ".tiff": "image",
}
_SINGLE_DOCUMENT_FORMATS = ("text", "markdown", "html", *BINARY_FORMATS)
_BEIR_CORPUS = "corpus.jsonl"
_SUPPORTED = (
    "text (.txt, .text), markdown (.md, .markdown), html (.html, .htm), jsonl (.jsonl), "
    "beir (corpus.jsonl), pdf (.pdf), docx (.docx), image (.png, .jpg, .jpeg, .tif, .tiff)"
)
_TITLE_MAX_CHARS = 200


@dataclass(frozen=True)
class Skipped:
    """A file a folder walk passed over, and why."""

    path: str  # posix, relative to the folder being read
    reason: str


def detect_format(path: Path | str) -> str:
    """The reader for a file, chosen by its name.

    Args:
        path: A file path; only its name matters.

    Returns:
        One of :data:`FORMATS`: ``"beir"`` for a file named ``corpus.jsonl``, else by suffix.

    Raises:
        UnsupportedFormat: No reader handles the suffix.
    """
    path = Path(path)
    if path.name.lower() == _BEIR_CORPUS:
        return "beir"
    fmt = _SUFFIXES.get(path.suffix.lower())
    if fmt is None:
        raise UnsupportedFormat(f"{path.name}: no reader for this file; supported: {_SUPPORTED}.")
    return fmt


def read_bytes(
    data: bytes,
    *,
    doc_id: str,
    fmt: str,
    title: str = "",
    uri: str = "",
    source: str = "",
    source_type: str = "",
    folder: str = "",
    tags: Iterable[str] = (),
    max_bytes: int,
    modified: datetime | None = None,
    files: FileReading | None = None,
) -> SourceDocument:
    """Read one text, Markdown, HTML, PDF, Word or image document.

    Args:
        data: The document's bytes: UTF-8 text (a leading BOM is dropped), or the file.
        doc_id: Its id.
        fmt: ``"text"``, ``"markdown"``, ``"html"``, ``"pdf"``, ``"docx"`` or ``"image"``.
        title: Its title; empty to take it from the document (front matter ``title:``, HTML
            ``<title>``, a PDF's or Word file's Title property, first H1, first line of a
            text, PDF or scan) or else the id's file stem.
        uri: Where it came from.
        source: Collection name.
        source_type: Source tier; empty for the format name.
        folder: Posix folder relative to the ingest root.
        tags: Tags, merged with any Markdown front matter ``tags:``.
        max_bytes: Largest accepted size of a text, Markdown or HTML document.
        modified: Last modification time, if known.
        files: How PDF, Word and image files are read (their size and page limits, and OCR);
            None: the defaults.

    Returns:
        The document, with normalised text and its links, headings and pages.

    Raises:
        UnsupportedFormat: ``fmt`` is not a single-document format.
        DocumentTooLarge: ``data`` is longer than ``max_bytes`` (``files.max_bytes``).
        InvalidInput: The bytes are not UTF-8, or no text is left after normalisation; a file
            is empty, corrupt, encrypted (``UnreadableDocument``) or has too many pages
            (``TooManyPages``).
        OcrUnavailable: A scan needs OCR and Tesseract is not installed.
    """
    if fmt not in _SINGLE_DOCUMENT_FORMATS:
        raise UnsupportedFormat(
            f"{doc_id}: '{fmt}' is not a single-document format; use text, markdown, html, "
            "pdf, docx or image."
        )
    front = _FrontMatter()
    if fmt in BINARY_FORMATS:
        found_title, rendered = render_file(data, doc_id, fmt, files or FileReading())
        found_title = found_title or rendered.first_h1() or _first_line(rendered.text)
    elif len(data) > max_bytes:
        raise DocumentTooLarge(
            f"{doc_id}: {len(data):,} bytes is over the limit of {max_bytes:,} bytes."
        )
    elif fmt == "markdown":
        front, rendered = _render_markdown(_decode(data, doc_id))
        found_title = front.title or rendered.first_h1()
    elif fmt == "html":
        found_title, rendered = _render_html(_decode(data, doc_id))
        found_title = found_title or rendered.first_h1()
    else:
        rendered = Rendered(normalise_text(_decode(data, doc_id)))
        found_title = _first_line(rendered.text)
    if not rendered.text:
        raise InvalidInput(f"{doc_id}: the document has no text.")
    return SourceDocument(
        id=doc_id,
        text=rendered.text,
        title=normalise_text(title or found_title) or PurePosixPath(doc_id).stem,
        uri=uri,
        source=source,
        source_type=source_type or fmt,
        folder=folder,
        tags=tuple(dict.fromkeys(tag for tag in map(normalise_text, [*tags, *front.tags]) if tag)),
        links=rendered.links,
        headings=rendered.headings,
        size_bytes=len(data),
        modified=modified,
        metadata=front.metadata,
        pages=rendered.pages,
    )


def _first_line(text: str) -> str:
    return text.partition("\n")[0][:_TITLE_MAX_CHARS].rstrip()


def read_jsonl(
    path: Path,
    *,
    source: str = "",
    source_type: str = "",
    folder: str = "",
    max_bytes: int,
) -> Iterator[SourceDocument]:
    """Read a JSON Lines file of documents, one object per line.

    Each object has ``_id`` or ``id`` and ``text``, and optionally ``title``, ``tags`` (list of
    strings), ``source_type`` and ``metadata`` (object of scalars, kept as strings). Blank lines
    are skipped.

    Args:
        path: The ``.jsonl`` file.
        source: Collection name; empty for the name of the file's folder.
        source_type: Tier for lines that give none; empty for ``"jsonl"``.
        folder: Posix folder of the file relative to the ingest root.
        max_bytes: Largest accepted line.

    Yields:
        One document per line, in file order.

    Raises:
        InvalidInput: A line is not a valid document; the message names the line.
        DocumentTooLarge: A line is longer than ``max_bytes``.
    """
    local = LocalSource(path)
    (entry,) = local.entries()
    with local.open(entry) as lines:
        yield from _jsonl_documents(
            lines,
            entry,
            source=source or local.name,
            source_type=source_type,
            folder=folder,
            max_bytes=max_bytes,
        )


def _jsonl_documents(
    lines: Iterable[bytes],
    entry: Entry,
    *,
    source: str,
    source_type: str,
    folder: str,
    max_bytes: int,
) -> Iterator[SourceDocument]:
    """The documents of a JSON Lines file's ``lines`` (``read_jsonl``), read from ``entry``."""
    offset = 0
    for number, line in enumerate(lines, start=1):
        where, line_offset = f"{entry.name}, line {number}", offset
        offset += len(line)
        if number == 1 and line.startswith(codecs.BOM_UTF8):
            line, line_offset = line[len(codecs.BOM_UTF8) :], len(codecs.BOM_UTF8)
        if not line.strip():
            continue
        if len(line) > max_bytes:
            raise DocumentTooLarge(
                f"{where}: {len(line):,} bytes is over the limit of {max_bytes:,} bytes."
            )
        record = _parse_record(line, where, line_offset)
        yield SourceDocument(
            id=record.id,
            text=record.text,
            title=record.title,
            uri=entry.uri,
            source=source,
            source_type=record.source_type or source_type or "jsonl",
            folder=folder,
            tags=record.tags,
            size_bytes=len(line),
            modified=entry.modified,
            metadata=record.metadata,
        )


def read_beir_corpus(path: Path, *, folder: str = "", max_bytes: int) -> Iterator[SourceDocument]:
    """Read a BEIR ``corpus.jsonl`` (``_id``, ``title``, ``text`` per line).

    Args:
        path: The corpus file, or the dataset folder holding ``corpus.jsonl``.
        folder: Posix folder of the file relative to the ingest root.
        max_bytes: Largest accepted line.

    Yields:
        Documents with ``source`` = the dataset folder's name and ``source_type`` = ``"beir"``.

    Raises:
        InvalidInput: A line is not a valid document; the message names the line.
    """
    if path.is_dir():
        path = path / _BEIR_CORPUS
    yield from read_jsonl(path, source_type="beir", folder=folder, max_bytes=max_bytes)


def read_path(
    path: Path,
    *,
    fmt: str | None = None,
    source_type: str = "",
    max_bytes: int,
    on_skip: Callable[[Skipped], None] | None = None,
    files: FileReading | None = None,
) -> Iterator[SourceDocument]:
    """Read a local file, or every supported file under a local folder (``read_source``).

    Raises:
        UnsupportedFormat: ``fmt`` is unknown, or a single file's format is.
        InvalidInput: ``path`` does not exist; reading a single file fails (raised while
            iterating).
    """
    if not path.exists():
        raise InvalidInput(f"{path}: no such file or folder.")
    return read_source(
        LocalSource(path),
        fmt=fmt,
        source_type=source_type,
        max_bytes=max_bytes,
        on_skip=on_skip,
        files=files,
    )


def read_source(
    source: Source,
    *,
    fmt: str | None = None,
    source_type: str = "",
    max_bytes: int,
    on_skip: Callable[[Skipped], None] | None = None,
    files: FileReading | None = None,
    only: Callable[[Entry], bool] | None = None,
    workers: int = 1,
    ahead: int = 64,
) -> Generator[SourceDocument, None, None]:
    """Read a source's single file, or every supported file of its folder, as it lists them
    (a local folder in sorted order; hidden files and folders are never listed).

    A single file gets its name as id. In a folder, each document's id is its posix path
    relative to the folder (``"guides/setup.md"``), ``folder`` its parent there (``""`` at the
    top) and ``source`` the folder's name. In a folder, a file that cannot be used does not stop
    the walk: it is reported to ``on_skip`` with the reason — files of unknown formats, files
    that are too large, corrupt, encrypted, scans where Tesseract is missing, not UTF-8 or
    empty, and the files next to a ``corpus.jsonl`` (a BEIR dataset's queries and qrels are not
    documents). A JSONL file with a bad line is reported after the lines before it were read.

    What the file system knows of each file it read (the native lookup) is part of its
    documents: its size, modification time and revision, its owner, content type and user
    metadata in ``metadata`` (what a document says of itself, such as Markdown front matter,
    wins over them), and its tags (an object's ``key=value`` tags) among the document's tags.

    Args:
        source: Where to read (``anchorgraph.loaders.sources.open_source``).
        fmt: Read every file with this reader instead of choosing one by the file's name.
        source_type: Source tier given to every document (default: its format).
        max_bytes: Largest accepted document (for JSONL: line).
        on_skip: Called once for each file a folder walk passes over.
        files: How PDF, Word and image files are read; None: the defaults.
        only: Read only the files it accepts (a sync's changed ones); None: every file.
        workers: Processes that read a folder's files, each file whole (parsed, and OCRed
            where it is a scan), while the caller takes the documents of those before it in
            order (``anchorgraph.loaders.pool``); 1: read here, one file after the other.
        ahead: Files of a folder read at most past the one whose documents are being taken.

    Returns:
        The documents, read lazily; a folder's in the order of its listing, whatever the
        workers.

    Raises:
        UnsupportedFormat: ``fmt`` is unknown, or a single file's format is.
        InvalidInput: reading a single file fails (raised while iterating).
        SourceUnavailable: the store fails while listing or reading (raised while iterating).
    """
    if fmt is not None and fmt not in FORMATS:
        raise UnsupportedFormat(f"Unknown format '{fmt}'; supported: {_SUPPORTED}.")
    reading = files or FileReading()
    if source.single:
        (entry,) = source.entries()
        return _read_entry(
            source,
            entry,
            fmt or detect_format(entry.name),
            entry.name,
            source_type,
            max_bytes,
            reading,
        )
    return _read_folder(
        source,
        fmt,
        on_skip or _ignore,
        only,
        partial(read_file, source, source_type, max_bytes, reading),
        workers=workers,
        ahead=ahead,
    )


def _ignore(_: Skipped) -> None:
    return None


def _read_folder(
    source: Source,
    fmt: str | None,
    on_skip: Callable[[Skipped], None],
    only: Callable[[Entry], bool] | None,
    read: Callable[[tuple[Entry, str]], FileRead],
    *,
    workers: int,
    ahead: int,
) -> Generator[SourceDocument, None, None]:
    """The documents of a folder's files, each file read by ``read`` in one of ``workers``
    processes; what is passed over is told to ``on_skip`` in its place in the listing."""
    files = folder_files(source, fmt, on_skip, only)
    with closing(ordered_map(read, files, workers=workers, ahead=ahead)) as read_files:
        for found in read_files:
            yield from found.documents
            if found.skipped is not None:
                on_skip(found.skipped)


def folder_files(
    source: Source,
    fmt: str | None,
    on_skip: Callable[[Skipped], None],
    only: Callable[[Entry], bool] | None,
) -> Iterator[tuple[Entry, str]]:
    """The files of a folder to read, each with its format; files of no known format and those
    beside a BEIR corpus are told to ``on_skip`` instead."""
    beir_datasets: dict[str, bool] = {}  # by folder: whether it holds a corpus.jsonl
    for entry in source.entries():
        if only is not None and not only(entry):
            continue
        if fmt is None and entry.name != _BEIR_CORPUS:
            if entry.folder not in beir_datasets:
                corpus = posixpath.join(entry.folder, _BEIR_CORPUS)
                beir_datasets[entry.folder] = source.exists(corpus)
            if beir_datasets[entry.folder]:
                on_skip(
                    Skipped(entry.path, f"part of a BEIR dataset: only {_BEIR_CORPUS} is read.")
                )
                continue
        try:
            file_fmt = fmt or detect_format(entry.name)
        except UnsupportedFormat as error:
            on_skip(Skipped(entry.path, _reason(error, entry)))
            continue
        yield entry, file_fmt


@dataclass(frozen=True)
class FileRead:
    """What one file of a folder gave: its documents, and why the rest of it was passed over
    (a JSON Lines file keeps the lines before a bad one)."""

    documents: list[SourceDocument]
    skipped: Skipped | None = None


def read_file(
    source: Source,
    source_type: str,
    max_bytes: int,
    files: FileReading,
    file: tuple[Entry, str],
) -> FileRead:
    """One file of a folder, read whole (in a worker process, when there are several)."""
    entry, fmt = file
    documents: list[SourceDocument] = []
    try:
        for document in _read_entry(source, entry, fmt, entry.path, source_type, max_bytes, files):
            documents.append(document)
    # A scan where Tesseract is missing is passed over like a bad file: the folder's other
    # formats are still read.
    except (InvalidInput, OcrUnavailable, OSError) as error:
        return FileRead(documents, Skipped(entry.path, _reason(error, entry)))
    return FileRead(documents)


def _reason(error: Exception, entry: Entry) -> str:
    """Why a file is skipped: a reader's message without the file's name it starts with, which
    the skip names already."""
    return str(error).removeprefix(f"{entry.path}: ").removeprefix(f"{entry.name}: ")


def _read_entry(
    source: Source,
    entry: Entry,
    fmt: str,
    doc_id: str,
    source_type: str,
    max_bytes: int,
    files: FileReading,
) -> Generator[SourceDocument, None, None]:
    """The documents of one file: the file system's facts of it joined to each."""
    if fmt in ("beir", "jsonl"):
        facts = source.describe(entry)
        with source.open(entry) as lines:
            documents = _jsonl_documents(
                lines,
                entry,
                # A BEIR corpus is named after its dataset's folder, a JSON Lines file in a
                # folder after that folder (the source's), a single one after its own folder.
                source="" if fmt == "beir" else source.name,
                source_type="beir" if fmt == "beir" else source_type,
                folder=entry.folder,
                max_bytes=max_bytes,
            )
            for document in documents:
                named = document if document.source else replace(document, source=_dataset(entry))
                yield _with_facts(named, entry, facts)
        return
    # Checked before reading, so a huge file is never loaded (nor downloaded).
    if fmt in BINARY_FORMATS:
        files.check_size(entry.size, doc_id)
    elif entry.size > max_bytes:
        raise DocumentTooLarge(
            f"{doc_id}: {entry.size:,} bytes is over the limit of {max_bytes:,} bytes."
        )
    facts = source.describe(entry)
    with source.open(entry) as file:
        data = file.read()
    document = read_bytes(
        data,
        doc_id=doc_id,
        fmt=fmt,
        uri=entry.uri,
        source=source.name,
        source_type=source_type,
        folder=entry.folder,
        max_bytes=max_bytes,
        modified=entry.modified,
        files=files,
    )
    yield _with_facts(document, entry, facts)


def _with_facts(document: SourceDocument, entry: Entry, facts: Description) -> SourceDocument:
    """``document`` with what its file system knows of its file: the listing's attributes and
    the lookup's metadata under what the document says of itself, the file's tags after its
    own, and the file's revision."""
    tags = tuple(dict.fromkeys([*document.tags, *facts.tags]))
    metadata = {**entry.attributes, **facts.metadata, **document.metadata}
    return replace(document, metadata=metadata, tags=tags, revision=entry.revision)


def _dataset(entry: Entry) -> str:
    """The name of the folder a BEIR corpus lies in: its dataset's."""
    return posixpath.basename(posixpath.dirname(uri_path(entry.uri)))


# Byte-order marks of the Unicode encodings a text file may come in besides UTF-8 (Windows
# editors save "Unicode" text as UTF-16 with one), longest first: UTF-32's LE mark begins
# with UTF-16's.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
    (codecs.BOM_UTF8, "utf-8"),
)


def _decode(data: bytes, doc_id: str, base_offset: int = 0) -> str:
    """UTF-8 text, or UTF-16 or UTF-32 text that starts with its byte-order mark.

    Raises:
        InvalidInput: the bytes are none of those, or hold a NUL character: no text does, and
            UTF-16 without its mark decodes as UTF-8 with a NUL in every other byte.
    """
    encoding = "utf-8"
    for mark, marked in _BOMS:
        if data.startswith(mark):
            data, base_offset, encoding = data[len(mark) :], base_offset + len(mark), marked
            break
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as error:
        name = encoding.upper().removesuffix("-LE").removesuffix("-BE")
        raise InvalidInput(
            f"{doc_id}: not valid {name} (first bad byte at offset {base_offset + error.start})."
        ) from error
    if "\x00" in text:
        raise InvalidInput(
            f"{doc_id}: holds a NUL character, so it is not text (UTF-16 without its "
            "byte-order mark?); save it as UTF-8."
        )
    return text


# --- JSONL records ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Record:
    id: str
    text: str
    title: str
    tags: tuple[str, ...]
    source_type: str
    metadata: dict[str, str]


def _parse_record(line: bytes, where: str, line_offset: int) -> _Record:
    try:
        value = json.loads(_decode(line, where, line_offset))
    except json.JSONDecodeError as error:
        raise InvalidInput(
            f"{where}: not valid JSON ({error.msg}, column {error.colno})."
        ) from error
    if not isinstance(value, dict):
        raise InvalidInput(f"{where}: expected a JSON object, got {type(value).__name__}.")
    raw_id = value.get("_id", value.get("id"))
    if isinstance(raw_id, bool) or not isinstance(raw_id, str | int) or not str(raw_id).strip():
        raise InvalidInput(f"{where}: '_id' (or 'id') must be a non-empty string.")
    doc_id = str(raw_id).strip()
    text = normalise_text(_string(value, "text", where, required=True))
    if not text:
        raise InvalidInput(f"{where}: document '{doc_id}' has no text.")
    tags = value.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(tag, str) for tag in tags):
        raise InvalidInput(f"{where}: 'tags' must be a list of strings.")
    return _Record(
        id=doc_id,
        text=text,
        title=normalise_text(_string(value, "title", where)),
        tags=tuple(dict.fromkeys(tag.strip() for tag in tags if tag.strip())),
        source_type=_string(value, "source_type", where).strip(),
        metadata=_metadata(value.get("metadata", {}), where),
    )


def _string(record: dict[str, object], key: str, where: str, *, required: bool = False) -> str:
    value = record.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise InvalidInput(f"{where}: '{key}' must be a string.")
    return value


def _metadata(value: object, where: str) -> dict[str, str]:
    if not isinstance(value, dict):
        raise InvalidInput(f"{where}: 'metadata' must be an object.")
    metadata: dict[str, str] = {}
    for key, item in value.items():
        if item is None:
            continue
        if not isinstance(item, str | int | float | bool):
            raise InvalidInput(f"{where}: metadata '{key}' must be a string, number or boolean.")
        metadata[str(key)] = str(item)
    return metadata


# --- Markdown -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _FrontMatter:
    title: str = ""
    tags: tuple[str, ...] = ()
    metadata: dict[str, str] = field(default_factory=dict)


class _Markdown(MarkdownIt):
    """CommonMark with tables and strikethrough, keeping every link target as written."""

    def validateLink(self, url: str) -> bool:
        # Keep javascript:/data: links as links so their anchor text is rendered as text;
        # resolve_href drops them later.
        return True

    def normalizeLink(self, url: str) -> str:
        return url  # no percent-encoding: RawLink.href is the href as written


_MARKDOWN = _Markdown("commonmark").enable(["table", "strikethrough"])
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(?P<body>.*?\n)??(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)
_FRONT_MATTER_KEY = re.compile(r"(?P<key>[A-Za-z_][\w-]*)[ \t]*:(?:[ \t]+(?P<value>.*))?$")
_FRONT_MATTER_ITEM = re.compile(r"[ \t]*-[ \t]+(?P<value>.*)$")
_HTML_LINK_OPEN = re.compile(
    r"""<a\b[^>]*?\bhref\s*=\s*(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<bare>[^\s>]+))""", re.I
)
_HTML_LINK_CLOSE = re.compile(r"</a\s*>", re.I)
_HTML_BREAK = re.compile(r"<br\s*/?>", re.I)


def _render_markdown(source: str) -> tuple[_FrontMatter, Rendered]:
    source = source.replace("\r\n", "\n").replace("\r", "\n")
    front = _FrontMatter()
    if match := _FRONT_MATTER.match(source):
        front = _parse_front_matter(match.group("body") or "")
        source = source[match.end() :]
    draft = Draft()
    # A table's header row is not written as a row: its cells head every body row's cells.
    headers: list[str] | None = None  # collecting the header row's texts while not None
    table_headers: list[str] = []
    column = body_rows = 0
    for token in _MARKDOWN.parse(source):
        match token.type:
            case "heading_open":
                draft.start_heading(int(token.tag[1:]))
            case "heading_close":
                draft.end_heading()
                draft.write("\n\n")
            case "inline" if headers is not None:
                cell = Draft()
                _render_inline(token.children or [], cell)
                headers.append(cell.finish().text)
            case "inline":
                _render_inline(token.children or [], draft)
            case "paragraph_close":
                # Paragraphs in tight lists are hidden: their items stay on consecutive lines.
                draft.write("\n" if token.hidden else "\n\n")
            case "list_item_open":
                draft.write(f"{token.info}{token.markup} ")  # "- ", "* ", "1. "
            case "table_close" if not body_rows:  # a table of a header row alone
                draft.write(f"{' | '.join(table_headers)}\n\n")
            case "bullet_list_close" | "ordered_list_close" | "hr" | "table_close":
                draft.write("\n\n")
            case "fence" | "code_block":
                draft.write(f"\n{token.content}\n\n")
            case "html_block":
                _walk_html(BeautifulSoup(token.content, "html.parser"), draft)
                draft.write("\n\n")
            case "thead_open":
                headers, body_rows = [], 0
            case "thead_close":
                table_headers, headers = headers or [], None
            case "tr_open":
                column = 0
            case "td_open":
                draft.cell(column, table_headers)
                column += 1
            case "tr_close" if headers is None:
                draft.write("\n\n")  # one row, one sentence
                body_rows += 1
    return front, draft.finish()


def _render_inline(children: list[Token], draft: Draft) -> None:
    for child in children:
        match child.type:
            case "text" | "code_inline":
                draft.write(child.content)
            case "image":
                draft.write(child.content)  # the alt text; the image itself is not a link
            case "softbreak":
                draft.write(" ")  # hard-wrapped source lines are one paragraph
            case "hardbreak":
                draft.write("\n")
            case "link_open":
                draft.start_link(str(child.attrs.get("href", "")))
            case "link_close":
                draft.end_link()
            case "html_inline":
                _render_inline_html(child.content, draft)
    while draft.open_links:  # an inline <a> never closed ends with its paragraph
        draft.end_link()


def _render_inline_html(tag: str, draft: Draft) -> None:
    if match := _HTML_LINK_OPEN.match(tag):
        draft.start_link(match.group("dq") or match.group("sq") or match.group("bare") or "")
    elif _HTML_LINK_CLOSE.match(tag):
        draft.end_link()
    elif _HTML_BREAK.match(tag):
        draft.write("\n")


def _parse_front_matter(body: str) -> _FrontMatter:
    """Read ``title``, ``tags`` and other top-level scalars from YAML-like front matter.

    Not a YAML parser: ``key: value`` lines, ``tags: [a, b]``, ``tags: a, b`` and ``- a`` lists
    under ``tags:``; nested structures are ignored.
    """
    title, tags, metadata = "", [], {}
    key = ""
    for line in body.split("\n"):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if item := _FRONT_MATTER_ITEM.match(line):
            if key == "tags":
                tags.append(_unquote(item.group("value")))
            continue
        entry = _FRONT_MATTER_KEY.match(line)
        if entry is None or line[0].isspace():
            key = ""
            continue
        key, value = entry.group("key").lower(), (entry.group("value") or "").strip()
        if key == "title":
            title = _unquote(value)
        elif key == "tags":
            inner = value[1:-1] if value.startswith("[") and value.endswith("]") else value
            tags.extend(_unquote(tag) for tag in inner.split(",") if tag.strip())
        elif value and value[0] not in "[{|>&*":  # plain scalars only
            metadata[key] = _unquote(value)
    return _FrontMatter(
        title=normalise_text(title),
        tags=tuple(dict.fromkeys(tag for tag in map(normalise_text, tags) if tag)),
        metadata=metadata,
    )


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


# --- HTML ---------------------------------------------------------------------------------------

# Elements whose content is not shown as text.
_HIDDEN = frozenset(
    {"head", "title", "script", "style", "template", "noscript", "iframe", "object", "svg"}
)
# Elements that start on a new line; each gets a blank line around it, so it ends a sentence.
_BLOCKS = frozenset(
    {
        "address", "article", "aside", "blockquote", "body", "caption", "dd", "details", "dialog",
        "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3",
        "h4", "h5", "h6", "header", "hgroup", "hr", "html", "legend", "li", "main", "nav", "ol",
        "p", "pre", "section", "summary", "table", "tbody", "tfoot", "thead", "tr", "ul",
    }
)  # fmt: skip
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
# Elements whose own text nodes sit between cells.
_ROWS = frozenset({"table", "thead", "tbody", "tfoot", "tr"})
_WHITESPACE = re.compile(r"\s+")


def _render_html(source: str) -> tuple[str, Rendered]:
    soup = BeautifulSoup(source, "html.parser")
    title = soup.title.get_text() if soup.title is not None else ""
    draft = Draft()
    _walk_html(main_content(soup), draft)
    return normalise_text(title), draft.finish()


def _walk_html(root: Tag, draft: Draft) -> None:
    """Write the visible text under ``root`` into ``draft``, with its links and headings."""
    _HtmlText(draft).walk(root)


class _HtmlText:
    """The visible text of an HTML tree, written into a draft.

    Iterative, with the end of each element pushed as a callable, so deeply nested markup cannot
    exhaust the interpreter's stack.
    """

    def __init__(self, draft: Draft) -> None:
        self.draft = draft
        self.preformatted = 0  # depth of <pre>/<textarea>, where whitespace is kept
        self.tables: list[_HtmlTable] = []  # the tables being walked, innermost last

    def walk(self, root: Tag) -> None:
        pending: list[PageElement | Callable[[], None]] = list(reversed(root.contents))
        while pending:
            item = pending.pop()
            if not isinstance(item, PageElement):
                item()  # the end of an element
            elif isinstance(item, Tag):
                pending.extend(reversed(self._open(item)))
            elif isinstance(item, NavigableString) and not isinstance(
                item, PreformattedString | Script | Stylesheet | TemplateString
            ):
                text = str(item)
                if item.parent is not None and item.parent.name in _ROWS and not text.strip():
                    continue  # layout between rows and cells, not a space in any cell's text
                self.draft.write(text if self.preformatted else _WHITESPACE.sub(" ", text))

    def _open(self, tag: Tag) -> list[PageElement | Callable[[], None]]:
        """Write what comes before ``tag``'s content; return its content, then its ends."""
        name, draft = tag.name, self.draft
        if name in _HIDDEN or tag.has_attr("hidden"):
            return []
        if name == "br":
            draft.write("\n")
            return []
        if name == "img":
            draft.write(_attribute(tag, "alt"))
            return []
        ends: list[Callable[[], None]] = []
        if name == "table":
            self.tables.append(_HtmlTable.of(tag))
            ends.append(self._leave_table)
        elif name == "tr" and self.tables and tag is self.tables[-1].header_row:
            return []  # its cells head every other row's cells
        elif name in ("td", "th"):
            headers = self.tables[-1].headers if self.tables else []
            draft.cell(len(tag.find_previous_siblings(["td", "th"])), headers)
        if name in _BLOCKS:
            draft.write("\n\n")
            ends.append(lambda: draft.write("\n\n"))
        if name in ("pre", "textarea"):
            self.preformatted += 1
            ends.append(self._leave_preformatted)
        if name in _HEADINGS:
            draft.start_heading(int(name[1]), _attribute(tag, "id").strip())
            ends.insert(0, draft.end_heading)
        elif name == "a" and tag.has_attr("href"):
            draft.start_link(_attribute(tag, "href"))
            ends.insert(0, draft.end_link)
        return [*tag.contents, *ends]

    def _leave_preformatted(self) -> None:
        self.preformatted -= 1

    def _leave_table(self) -> None:
        self.tables.pop()


@dataclass(frozen=True)
class _HtmlTable:
    """A table's header row (a first row of ``<th>`` cells followed by other rows) and the
    texts of its cells; without one, rows are written as they are."""

    header_row: Tag | None
    headers: list[str]

    @classmethod
    def of(cls, table: Tag) -> _HtmlTable:
        rows = [row for row in table.find_all("tr") if row.find_parent("table") is table]
        if len(rows) < 2:
            return cls(None, [])
        cells = rows[0].find_all(["td", "th"], recursive=False)
        if not cells or any(cell.name != "th" for cell in cells):
            return cls(None, [])
        return cls(rows[0], [cell.get_text(" ", strip=True) for cell in cells])


def _attribute(tag: Tag, name: str) -> str:
    value = tag.get(name)
    return value if isinstance(value, str) else ""
