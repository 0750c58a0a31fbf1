"""PDF through PDFium (pypdfium2): each page's text in PDFium's reading order, the outline's
entries as headings, link annotations as links, and pages without a text layer through OCR.

Every page starts a :class:`~anchorgraph.loaders.model.Page`, so each chunk knows the pages it
covers and a hit can cite ``document, page N``; running headers and footers are dropped
(``anchorgraph.loaders.running_lines``).
"""

from __future__ import annotations

import ctypes
import math
import re
import threading
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from anchorgraph.errors import TooManyPages, UnreadableDocument
from anchorgraph.loaders.draft import Draft, Found, Rendered
from anchorgraph.loaders.ocr import Ocr
from anchorgraph.loaders.running_lines import page_bodies

if TYPE_CHECKING:
    import pypdfium2

    from anchorgraph.loaders.files import FileReading

# Pages without text are rendered at this resolution for OCR: Tesseract reads print best at
# about 300 dpi, and a page at 300 dpi is ~9 megapixels, still quick to render.
OCR_DPI = 300
_PDF_UNIT_DPI = 72
# A page larger than A4 is rendered at less than OCR_DPI, so a poster-sized page cannot ask for
# gigabytes of bitmap: 40 megapixels is A4 at ~640 dpi.
_MAX_OCR_PIXELS = 40_000_000
# PDFium is not thread-safe, and the API reads uploads in a thread pool: one file at a time.
_PDFIUM = threading.Lock()


@dataclass(frozen=True)
class _Span:
    """A link or heading located in one page's text."""

    start: int
    end: int
    href: str = ""  # a link's target
    level: int = 0  # a heading's level


@dataclass(frozen=True)
class _PageText:
    """One page as read: its text layer's text and spans, or what OCR read on it."""

    number: int
    text: str
    spans: list[_Span] = field(default_factory=list)
    ocr_confidence: float | None = None


def render_pdf(data: bytes, doc_id: str, *, max_pages: int, ocr: Ocr) -> tuple[str, Rendered]:
    """The title (the document's Title, else "") and the text of a PDF, page by page.

    Raises:
        UnreadableDocument: Not a PDF, damaged beyond PDFium's repair, or encrypted.
        TooManyPages: More pages than ``max_pages``.
        OcrUnavailable: A page without a text layer needs OCR and Tesseract is missing.
    """
    with _PDFIUM:
        return _render(data, doc_id, max_pages, ocr)


def _render(data: bytes, doc_id: str, max_pages: int, ocr: Ocr) -> tuple[str, Rendered]:
    import pypdfium2

    try:
        pdf = pypdfium2.PdfDocument(data)
    except pypdfium2.PdfiumError as error:
        raise UnreadableDocument(_load_failure(doc_id, error)) from error
    try:
        if len(pdf) > max_pages:
            raise TooManyPages(
                f"{doc_id}: {len(pdf):,} pages is over the limit of {max_pages:,} pages."
            )
        outline = _outline(pdf)
        pages = []
        for index in range(len(pdf)):
            page = pdf[index]
            try:
                pages.append(_read_page(pdf, page, index + 1, outline[index], ocr))
            finally:
                page.close()
        draft = _draft(pages)
        title = (pdf.get_metadata_value("Title") or "").strip()
    except pypdfium2.PdfiumError as error:
        raise UnreadableDocument(f"{doc_id}: PDFium could not read a page: {error}") from error
    finally:
        pdf.close()
    return title, draft.finish()


def _load_failure(doc_id: str, error: pypdfium2.PdfiumError) -> str:
    import pypdfium2.raw as pdfium_c

    if error.err_code == pdfium_c.FPDF_ERR_PASSWORD:
        return f"{doc_id}: the PDF is encrypted; send it without a password."
    if error.err_code == pdfium_c.FPDF_ERR_SECURITY:
        return f"{doc_id}: the PDF uses an unsupported security handler."
    return f"{doc_id}: not a readable PDF (corrupt or truncated)."


def _outline(pdf: pypdfium2.PdfDocument) -> dict[int, list[tuple[int, str]]]:
    """The outline's (bookmarks') entries by page index: level (1 = top) and title."""
    entries: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for bookmark in pdf.get_toc():
        destination = bookmark.get_dest()
        index = destination.get_index() if destination is not None else None
        title = bookmark.get_title().strip()
        if index is not None and title:
            entries[index].append((bookmark.level + 1, title))
    return entries


def _read_page(
    pdf: pypdfium2.PdfDocument,
    page: pypdfium2.PdfPage,
    number: int,
    headings: list[tuple[int, str]],
    ocr: Ocr,
) -> _PageText:
    textpage = page.get_textpage()
    try:
        text = textpage.get_text_range()
        if text.strip():
            spans = [*_heading_spans(text, headings), *_link_spans(pdf, page, textpage)]
            return _PageText(number, text, spans)
    finally:
        textpage.close()
    if not _has_images(page):
        return _PageText(number, "")  # a blank page: nothing to read
    ocr.check()
    width, height = page.get_size()
    scale = min(OCR_DPI / _PDF_UNIT_DPI, math.sqrt(_MAX_OCR_PIXELS / max(width * height, 1)))
    bitmap = page.render(scale=scale)
    read = ocr.read(bitmap.to_pil(), round(scale * _PDF_UNIT_DPI))
    return _PageText(number, read.text, ocr_confidence=read.confidence)


def _draft(pages: list[_PageText]) -> Draft:
    """The pages written one after the other, each without its running header and footer
    (``page_bodies``; the outline's headings are content wherever they stand)."""
    draft = Draft()
    protected = [[span.start for span in page.spans if span.level] for page in pages]
    for page, (start, end) in zip(
        pages, page_bodies([page.text for page in pages], protected), strict=True
    ):
        draft.start_page(page.number, page.ocr_confidence)
        spans = [
            _Span(span.start - start, span.end - start, span.href, span.level)
            for span in page.spans
            if start <= span.start and span.end <= end
        ]
        _write(page.text[start:end], spans, draft)
    return draft


def _has_images(page: pypdfium2.PdfPage) -> bool:
    import pypdfium2.raw as pdfium_c

    return next(iter(page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE])), None) is not None


def _heading_spans(text: str, headings: list[tuple[int, str]]) -> list[_Span]:
    """Where the page's outline entries stand in its text (the first match of each; an entry
    whose title is not on the page, as printed, is no heading)."""
    spans = []
    for level, title in headings:
        words = (re.escape(word) for word in title.split())
        if match := re.search(r"\s+".join(words), text):
            spans.append(_Span(match.start(), match.end(), level=level))
    return spans


def _link_spans(
    pdf: pypdfium2.PdfDocument, page: pypdfium2.PdfPage, textpage: pypdfium2.PdfTextPage
) -> list[_Span]:
    """Each link annotation to a URI or another file, over the characters its rectangle covers
    (internal jumps to a page of the same file are not links between documents)."""
    import pypdfium2.raw as pdfium_c

    spans = []
    position, link = ctypes.c_int(0), pdfium_c.FPDF_LINK()
    boxes: list[tuple[float, float]] | None = None  # character centres, once a link needs them
    while pdfium_c.FPDFLink_Enumerate(page, ctypes.byref(position), ctypes.byref(link)):
        href = _link_target(pdf, link)
        rect = pdfium_c.FS_RECTF()
        if not href or not pdfium_c.FPDFLink_GetAnnotRect(link, ctypes.byref(rect)):
            continue
        if boxes is None:
            boxes = [_centre(textpage.get_charbox(i)) for i in range(textpage.count_chars())]
        inside = [
            i
            for i, (x, y) in enumerate(boxes)
            if rect.left <= x <= rect.right
            and min(rect.bottom, rect.top) <= y <= max(rect.bottom, rect.top)
        ]
        if inside:
            start = pdfium_c.FPDFText_GetTextIndexFromCharIndex(textpage, inside[0])
            end = pdfium_c.FPDFText_GetTextIndexFromCharIndex(textpage, inside[-1]) + 1
            if 0 <= start < end:
                spans.append(_Span(start, end, href=href))
    return spans


def _centre(box: tuple[float, float, float, float]) -> tuple[float, float]:
    left, bottom, right, top = box
    return (left + right) / 2, (bottom + top) / 2


def _link_target(pdf: pypdfium2.PdfDocument, link: object) -> str:
    """A link's URI, or the file a launch or remote go-to action opens; "" for the rest."""
    import pypdfium2.raw as pdfium_c

    action = pdfium_c.FPDFLink_GetAction(link)
    if not action:
        return ""
    kind = pdfium_c.FPDFAction_GetType(action)
    if kind == pdfium_c.PDFACTION_URI:
        size = pdfium_c.FPDFAction_GetURIPath(pdf, action, None, 0)
        buffer = ctypes.create_string_buffer(size)
        pdfium_c.FPDFAction_GetURIPath(pdf, action, buffer, size)
        return buffer.value.decode("utf-8", "replace")  # 7-bit ASCII by the PDF standard
    if kind in (pdfium_c.PDFACTION_LAUNCH, pdfium_c.PDFACTION_REMOTEGOTO):
        size = pdfium_c.FPDFAction_GetFilePath(action, None, 0)
        buffer = ctypes.create_string_buffer(size)
        pdfium_c.FPDFAction_GetFilePath(action, buffer, size)
        return buffer.value.decode("utf-8", "replace")
    return ""


def _write(text: str, spans: list[_Span], draft: Draft) -> None:
    """Write a page's text with its spans opened and closed at their offsets (at one offset,
    ends before starts, so touching spans do not nest)."""
    events: list[tuple[int, int, _Span]] = []
    for span in spans:
        events.append((span.start, 1, span))
        events.append((span.end, 0, span))
    at = 0
    for offset, opening, span in sorted(events, key=lambda event: event[:2]):
        draft.write(text[at:offset])
        at = offset
        if span.level and opening:
            draft.start_heading(span.level)
        elif span.level:
            draft.end_heading()
        elif opening:
            draft.start_link(span.href)
        else:
            draft.end_link()
    draft.write(text[at:])


def read(data: bytes, doc_id: str, reading: FileReading) -> Found:
    """A PDF (the reader of ``anchorgraph.loaders.formats``), titled by its Title property,
    else its first H1 (an outline entry), else its first line."""
    title, rendered = render_pdf(data, doc_id, max_pages=reading.max_pages, ocr=reading.ocr)
    return Found(title or rendered.first_h1() or rendered.first_line(), rendered)
