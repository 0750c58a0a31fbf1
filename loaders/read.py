"""Reading: bytes, files and folders in, :class:`SourceDocument` with normalised text out.

Each format's reader (``anchorgraph.loaders.formats`` lists them) renders its document to plain
text while recording the spans of its links and headings; the text is then normalised and the
spans moved with it (``anchorgraph.loaders.draft``), so for every document
``text[link.start:link.end] == link.anchor_text`` and
``text[h.start:h.start + len(h.text)] == h.text``. PDF and TIFF documents also know their pages.
Here the reader is chosen, the limits are checked, text is decoded, and JSON Lines files and
folders are read.
"""

from __future__ import annotations

import codecs
import json
import posixpath
from collections.abc import Callable, Generator, Iterable, Iterator
from contextlib import closing
from dataclasses import dataclass, replace
from datetime import datetime
from functools import partial
from pathlib import Path, PurePosixPath

from anchorgraph.errors import DocumentTooLarge, InvalidInput, OcrUnavailable, UnsupportedFormat
from anchorgraph.loaders.files import FileReading
from anchorgraph.loaders.formats import (
    DOCUMENT_FORMAT_NAMES,
    CollectionFormat,
    FileFormat,
    TextFormat,
    format_named,
    format_of_name,
    names,
    supported,
)
from anchorgraph.loaders.model import SourceDocument
from anchorgraph.loaders.pool import IN_PROCESS_S, ordered_map
from anchorgraph.loaders.sources import Description, Entry, LocalSource, Source, uri_path
from anchorgraph.scope import document_id
from anchorgraph.text.normalise import normalise_text

_BEIR_CORPUS = "corpus.jsonl"


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
        The name of one of ``anchorgraph.loaders.formats.FORMATS``: by the file's whole name
        (``corpus.jsonl`` is ``"beir"``), else by its suffix.

    Raises:
        UnsupportedFormat: No reader handles the suffix.
    """
    name = Path(path).name
    found = format_of_name(name)
    if found is None:
        raise UnsupportedFormat(f"{name}: no reader for this file; supported: {supported()}.")
    return found.name


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
    """Read one document of a text or file format (``anchorgraph.loaders.formats``).

    Args:
        data: The document's bytes: UTF-8 text (a leading BOM is dropped), or the file.
        doc_id: Its id.
        fmt: The name of a text or file format (``formats.DOCUMENT_FORMAT_NAMES``).
        title: Its title; empty to take it from the document (front matter ``title:``, HTML
            ``<title>``, a PDF's or Word file's Title property, first H1, first line of a
            text, PDF or scan) or else the id's file stem.
        uri: Where it came from.
        source: Collection name.
        source_type: Source tier; empty for the format name.
        folder: Posix folder relative to the ingest root.
        tags: Tags, merged with any Markdown front matter ``tags:``.
        max_bytes: Largest accepted size of a document of a text format.
        modified: Last modification time, if known.
        files: How files of a file format are read (their size and page limits, and OCR);
            None: the defaults.

    Returns:
        The document, with normalised text and its links, headings and pages.

    Raises:
        UnsupportedFormat: ``fmt`` is not a single-document format.
        DocumentTooLarge: ``data`` is longer than ``max_bytes`` (``files.max_bytes``).
        InvalidInput: ``doc_id`` is not a document id (``anchorgraph.scope.document_id``),
            the bytes are not UTF-8, or no text is left after normalisation; a file is empty,
            corrupt, encrypted (``UnreadableDocument``) or has too many pages (``TooManyPages``).
        OcrUnavailable: A scan needs OCR and Tesseract is not installed.
    """
    document_id(doc_id)
    reader = format_named(fmt)
    if isinstance(reader, FileFormat):
        reading = files or FileReading()
        reading.check_size(len(data), doc_id)
        if not data:
            raise InvalidInput(f"{doc_id}: the file is empty.")
        found = reader.read(data, doc_id, reading)
    elif not isinstance(reader, TextFormat):
        raise UnsupportedFormat(
            f"{doc_id}: '{fmt}' is not a single-document format; use "
            f"{names(DOCUMENT_FORMAT_NAMES)}."
        )
    elif len(data) > max_bytes:
        raise DocumentTooLarge(
            f"{doc_id}: {len(data):,} bytes is over the limit of {max_bytes:,} bytes."
        )
    else:
        found = reader.read(_decode(data, doc_id))
    rendered = found.rendered
    if not rendered.text:
        raise InvalidInput(f"{doc_id}: the document has no text.")
    return SourceDocument(
        id=doc_id,
        text=rendered.text,
        title=normalise_text(title or found.title) or PurePosixPath(doc_id).stem,
        uri=uri,
        source=source,
        source_type=source_type or fmt,
        folder=folder,
        tags=tuple(dict.fromkeys(tag for tag in map(normalise_text, [*tags, *found.tags]) if tag)),
        links=rendered.links,
        headings=rendered.headings,
        size_bytes=len(data),
        modified=modified,
        metadata=found.metadata,
        pages=rendered.pages,
    )


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
    in_process_s: float = IN_PROCESS_S,
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
        in_process_s: How long the files are read here before the processes take the rest.
        ahead: Files of a folder read at most past the one whose documents are being taken.

    Returns:
        The documents, read lazily; a folder's in the order of its listing, whatever the
        workers.

    Raises:
        UnsupportedFormat: ``fmt`` is unknown, or a single file's format is.
        InvalidInput: reading a single file fails (raised while iterating).
        SourceUnavailable: the store fails while listing or reading (raised while iterating).
    """
    if fmt is not None:
        format_named(fmt)
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
        in_process_s=in_process_s,
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
    in_process_s: float,
    ahead: int,
) -> Generator[SourceDocument, None, None]:
    """The documents of a folder's files, each file read by ``read`` here for the first
    ``in_process_s``, then in one of ``workers`` processes; what is passed over is told to
    ``on_skip`` in its place in the listing."""
    files = folder_files(source, fmt, on_skip, only)
    mapped = ordered_map(read, files, workers=workers, ahead=ahead, in_process_s=in_process_s)
    with closing(mapped) as read_files:
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
    if isinstance(format_named(fmt), CollectionFormat):
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
    if isinstance(format_named(fmt), FileFormat):
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
    try:
        document_id(doc_id)
    except InvalidInput as error:
        raise InvalidInput(f"{where}: {error}") from None
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
