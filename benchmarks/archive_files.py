"""The archive sample as an archive keeps it: each document of ``loaders/sample_archive`` made
into the file its front matter's ``format:`` names (a scanned letter as a PNG, a PDF with a
text layer, a Word file), by the libraries that write those formats, for the tests and
``benchmarks/archive.py``. Markdown documents stay as they are.

The Markdown is the source; what is drawn, typed or written is its text as a reader sees it:
headings as headings, tables as tables (Word) or lines (PDF), links as link annotations (PDF)
or hyperlinks (Word). Scans carry no links, and no Markdown syntax is drawn on them.
"""

from __future__ import annotations

import io
import posixpath
import re
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import docx
from PIL import Image
from reportlab.lib.pagesizes import A4
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen import canvas

from benchmarks.document_files import FONT, _hyperlink, letter_image, png

_LINK = re.compile(r"\[([^\]]+)\]\(([^)]+)\)")
_SUFFIX = {"scan": ".png", "pdf": ".pdf", "docx": ".docx", "markdown": ".md"}


@dataclass(frozen=True)
class Block:
    """One block of a document's body: a heading (level 1–6), a paragraph, or a table's rows."""

    kind: str  # "heading", "paragraph", "table"
    text: str = ""
    level: int = 0
    rows: tuple[tuple[str, ...], ...] = ()


@dataclass(frozen=True)
class ArchiveFile:
    """A document of the archive as a file: its path in the collection and its bytes."""

    path: str  # relative to the archive, its suffix the file's (.png, .pdf, .docx, .md)
    source: str  # the Markdown document's path
    format: str
    data: bytes
    text: str  # the text drawn or written: what a reader should give back


def front_matter(markdown: str) -> tuple[dict[str, str], str]:
    """The front matter's scalar fields and the body after it."""
    head, _, body = markdown.removeprefix("---\n").partition("\n---\n")
    fields = {}
    for line in head.splitlines():
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    return fields, body


def blocks(body: str) -> Iterator[Block]:
    """The body's headings, paragraphs and tables, in order (the archive's Markdown only)."""
    for part in re.split(r"\n\s*\n", body.strip()):
        lines = [line.strip() for line in part.strip().splitlines()]
        if lines and lines[0].startswith("#"):
            marks, _, text = lines[0].partition(" ")
            yield Block("heading", text, level=len(marks))
            lines = lines[1:]
        if not lines:
            continue
        if lines[0].startswith("|"):
            rows = [
                tuple(cell.strip() for cell in line.strip("|").split("|"))
                for line in lines
                if not set(line) <= set("|-: ")
            ]
            yield Block("table", rows=tuple(rows))
        else:
            yield Block("paragraph", " ".join(lines))


def plain(text: str) -> str:
    """Text with its Markdown links as their anchor text."""
    return _LINK.sub(r"\1", text)


def target_of(path: Path, root: Path) -> str:
    """The path in the archive of the file ``path`` becomes."""
    fields, _ = front_matter(path.read_text(encoding="utf-8"))
    return path.relative_to(root).as_posix().removesuffix(".md") + _SUFFIX[fields["format"]]


def render(path: Path, root: Path, targets: dict[str, str] | None = None) -> ArchiveFile:
    """The file ``path`` (a document of the archive under ``root``) becomes; links to other
    documents point at the files they became (``targets``: source path → file path)."""
    fields, body = front_matter(path.read_text(encoding="utf-8"))
    kind = fields.get("format", "markdown")
    source = path.relative_to(root).as_posix()
    target = target_of(path, root)
    folder = posixpath.dirname(source)

    def retarget(match: re.Match[str]) -> str:
        linked = posixpath.normpath(posixpath.join(folder, match.group(2)))
        moved = (targets or {}).get(linked, linked)
        return f"[{match.group(1)}]({posixpath.relpath(moved, folder or '.')})"

    body = _LINK.sub(retarget, body) if kind != "scan" else body
    parts = list(blocks(body))
    if kind == "scan":
        lines = _scan_lines(parts)
        return ArchiveFile(target, source, kind, png(scan(lines)), "\n".join(lines))
    if kind == "pdf":
        data, text = pdf(fields.get("title", ""), parts)
        return ArchiveFile(target, source, kind, data, text)
    if kind == "docx":
        data, text = word(fields.get("title", ""), parts)
        return ArchiveFile(target, source, kind, data, text)
    markdown = _LINK.sub(retarget, path.read_text(encoding="utf-8"))
    return ArchiveFile(target, source, kind, markdown.encode("utf-8"), body)


def render_all(root: Path) -> list[ArchiveFile]:
    paths = sorted(root.rglob("*.md"))
    targets = {path.relative_to(root).as_posix(): target_of(path, root) for path in paths}
    return [render(path, root, targets) for path in paths]


def _scan_lines(parts: list[Block]) -> list[str]:
    lines: list[str] = []
    for block in parts:
        text = plain(block.text)
        # Identifiers (MAC-ARQ-1974-102) stay whole on their line, as a typist kept them.
        wrapped = textwrap.wrap(text, 62, break_on_hyphens=False)
        lines.extend(wrapped if block.kind == "paragraph" else [text])
        lines.append("")
    return lines[:-1]


def scan(lines: list[str]) -> Image.Image:
    """A typed page scanned at 300 dpi, in grey: A4, 62 characters a line."""
    return letter_image(
        tuple(lines), font_size=40, top=260, left=230, line_height=64, blank_height=40
    )


def pdf(title: str, parts: list[Block]) -> tuple[bytes, str]:
    """A PDF with a text layer: headings in bold, paragraphs wrapped, tables a line a row, and
    every Markdown link a link annotation over its anchor text."""
    pdfmetrics.registerFont(TTFont("Vera", str(FONT)))
    buffer = io.BytesIO()
    page = canvas.Canvas(buffer, pagesize=A4)
    page.setTitle(title)
    y, written = 790.0, []
    for block in parts:
        rows = (
            [" | ".join(row) for row in block.rows]
            if block.kind == "table"
            else textwrap.wrap(block.text, 80, break_on_hyphens=False) or [""]
        )
        size = 14 if block.kind == "heading" else 10
        for row in rows:
            if y < 60:
                page.showPage()
                y = 790.0
            page.setFont("Vera", size)
            x = 60.0
            for start, piece, href in _pieces(row):
                del start
                page.drawString(x, y, piece)
                width = pdfmetrics.stringWidth(piece, "Vera", size)
                if href:
                    page.linkURL(href, (x, y - 2, x + width, y + size), relative=0)
                x += width
            written.append(plain(row))
            y -= size + 6
        y -= 6
    page.save()
    return buffer.getvalue(), "\n".join(written)


def _pieces(line: str) -> Iterator[tuple[int, str, str]]:
    """A line's runs of text, each with the link it is the anchor of ("" for none); a link cut
    by the wrap is text."""
    at = 0
    for match in _LINK.finditer(line):
        if match.start() > at:
            yield at, line[at : match.start()], ""
        yield match.start(), match.group(1), match.group(2)
        at = match.end()
    if at < len(line):
        yield at, line[at:], ""


def word(title: str, parts: list[Block]) -> tuple[bytes, str]:
    """A .docx: Heading styles, paragraphs with their links as hyperlinks, tables as tables."""
    document = docx.Document()
    document.core_properties.title = title
    written = []
    for block in parts:
        if block.kind == "heading":
            document.add_heading(block.text, level=min(block.level, 9))
            written.append(block.text)
        elif block.kind == "table":
            table = document.add_table(rows=len(block.rows), cols=len(block.rows[0]))
            for row, cells in zip(table.rows, block.rows, strict=True):
                for cell, text in zip(row.cells, cells, strict=False):
                    cell.text = text
            written.extend(" ".join(row) for row in block.rows)
        else:
            paragraph = document.add_paragraph()
            for _, piece, href in _pieces(block.text):
                if href:
                    _hyperlink(paragraph, href, piece)
                else:
                    paragraph.add_run(piece)
            written.append(plain(block.text))
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue(), "\n".join(written)
