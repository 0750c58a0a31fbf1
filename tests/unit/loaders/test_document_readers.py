"""The readers of documents as archives keep them: PDF (pages, outline, links), Word (headings,
tables, hyperlinks), scans through Tesseract (PNG, TIFF, PDF pages without a text layer), web
pages without their furniture, and tables with their header on every row; the pages of PDF,
Word and scans chunked page by page without their running headers and footers; and the files
they refuse: corrupt, encrypted, empty, too large, too many pages, a scan without Tesseract.

Every file is made here by the library that writes that format (tests/documents.py).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from anchorgraph.errors import (
    DocumentTooLarge,
    InvalidInput,
    OcrUnavailable,
    TooManyPages,
    UnreadableDocument,
)
from anchorgraph.loaders.chunking import chunk_document
from anchorgraph.loaders.files import FileReading
from anchorgraph.loaders.model import Chunk, SourceDocument
from anchorgraph.loaders.ocr import Tesseract
from anchorgraph.loaders.read import Skipped, read_bytes, read_path
from anchorgraph.text.normalise import normalise_text
from benchmarks.document_files import (
    ACROSS_PAGES,
    BROKEN_PAGES,
    FACTS,
    LEDGER_URL,
    LETTER,
    MUSEUM_PAGE,
    REGISTER_URL,
    REPORT_PAGES,
    RUNNING_HEADER,
    letter_image,
    pdf_of_pages,
    png,
    running_pdf,
    running_scan,
    tiff,
    two_page_pdf,
    word_pages,
    word_report,
)

LIMIT = 1_000_000
needs_tesseract = pytest.mark.skipif(
    shutil.which("tesseract") is None, reason="Tesseract is not installed: `make ocr`"
)


def read(data: bytes, doc_id: str, fmt: str, files: FileReading | None = None) -> SourceDocument:
    return read_bytes(data, doc_id=doc_id, fmt=fmt, max_bytes=LIMIT, files=files)


def assert_spans_hold(doc: SourceDocument) -> None:
    assert normalise_text(doc.text) == doc.text
    for link in doc.links:
        assert doc.text[link.start : link.end] == link.anchor_text, link
    for heading in doc.headings:
        assert doc.text[heading.start : heading.start + len(heading.text)] == heading.text
    starts = [page.start for page in doc.pages]
    assert starts == sorted(starts) and all(0 <= s <= len(doc.text) for s in starts)


def character_error_rate(expected: str, found: str) -> float:
    """Levenshtein distance over the expected text's length, both with whitespace folded."""
    expected, found = " ".join(expected.split()), " ".join(found.split())
    previous = list(range(len(found) + 1))
    for i, wanted in enumerate(expected, start=1):
        current = [i]
        for j, got in enumerate(found, start=1):
            current.append(
                min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (wanted != got))
            )
        previous = current
    return previous[-1] / len(expected)


# --- PDF ----------------------------------------------------------------------------------------
def test_pdf_pages_outline_and_link() -> None:
    doc = read(two_page_pdf(), "reports/1978.pdf", "pdf")
    assert_spans_hold(doc)
    assert doc.title == "Annual report of the museum"  # the PDF's Title
    assert doc.source_type == "pdf"
    assert [(h.text, h.level, h.slug) for h in doc.headings] == [
        ("Acquisitions in 1978", 1, "acquisitions-in-1978"),
        ("Visitors", 1, "visitors"),
    ]
    assert [(link.href, link.anchor_text) for link in doc.links] == [
        (REGISTER_URL, "loan register")
    ]
    first, second = doc.pages
    assert (first.number, second.number) == (1, 2)
    assert first.ocr_confidence is None and doc.ocr_confidence is None  # a text layer
    assert "41,000 visitors" in doc.text[second.start :]
    assert "41,000" not in doc.text[: second.start] and "Tarsila" in doc.text[: second.start]


def test_pdf_chunks_know_their_pages() -> None:
    doc = read(two_page_pdf(), "reports/1978.pdf", "pdf")
    chunks = chunk_document(doc, lambda text: len(text.split()), target_tokens=12, overlap=0.0)
    assert len(chunks) >= 3
    second_page = doc.pages[1].start
    for chunk in chunks:
        expected = (1,) if chunk.end <= second_page else (2,)
        assert chunk.pages == expected, chunk
    (visitors,) = [chunk for chunk in chunks if "41,000" in chunk.text]
    assert visitors.pages == (2,)
    (tarsila,) = [chunk for chunk in chunks if "Tarsila" in chunk.text]
    assert tarsila.pages == (1,)
    # A window that would hold both pages ends at the page break.
    whole = chunk_document(doc, lambda text: len(text.split()), target_tokens=500, overlap=0.2)
    assert [chunk.pages for chunk in whole] == [(1,), (2,)]


@needs_tesseract
def test_pdf_page_without_text_layer_is_read_by_ocr() -> None:
    data = pdf_of_pages(letter_image(), "The second page has a text layer.", None)
    doc = read(data, "letters/138.pdf", "pdf")
    assert_spans_hold(doc)
    scan, typed, blank = doc.pages
    assert scan.ocr_confidence is not None and scan.ocr_confidence > 0.8
    assert typed.ocr_confidence is None and blank.ocr_confidence is None
    assert doc.ocr_confidence == scan.ocr_confidence
    assert "empréstimo de doze pinturas" in doc.text[: typed.start]
    assert doc.text[typed.start :] == "The second page has a text layer."
    chunks = chunk_document(doc, lambda text: len(text.split()), target_tokens=500, overlap=0.0)
    assert chunks[0].ocr_confidence == scan.ocr_confidence  # the mean of its OCR-read pages


def test_pdf_of_blank_pages_has_no_text_and_needs_no_ocr() -> None:
    # No text and no image on a page: nothing to read, so no OCR is asked for, even without
    # Tesseract.
    without = FileReading(ocr=Tesseract(command="/nonexistent/tesseract"))
    with pytest.raises(InvalidInput, match="no text"):
        read(pdf_of_pages(None, None), "blank.pdf", "pdf", without)


# --- pages: each chunk on its own page, without running headers and footers ---------------------
def chunks_of(doc: SourceDocument, target_tokens: int) -> list[Chunk]:
    return chunk_document(
        doc, lambda text: len(text.split()), target_tokens=target_tokens, overlap=0.2
    )


def holding(chunks: list[Chunk], sentence: str) -> Chunk:
    """The one chunk that holds ``sentence`` whole (its line breaks as spaces)."""
    (chunk,) = [chunk for chunk in chunks if sentence in " ".join(chunk.text.split())]
    return chunk


def assert_no_running_lines(doc: SourceDocument) -> None:
    assert RUNNING_HEADER not in doc.text and "page" not in doc.text, doc.text


def assert_a_fact_a_page(doc: SourceDocument) -> None:
    """Each page a fact: with room for them all in one chunk, still a chunk a page."""
    assert [page.number for page in doc.pages] == [1, 2, 3, 4]
    chunks = chunks_of(doc, target_tokens=500)
    assert [chunk.pages for chunk in chunks] == [(1,), (2,), (3,), (4,)]
    for number, fact in enumerate(FACTS, start=1):
        assert holding(chunks, fact).pages == (number,)


def assert_the_sentence_across_pages_is_whole(doc: SourceDocument) -> None:
    """The sentence the first page began and the second ended is in one chunk, which cites both;
    the chunks before and after it cite their own page."""
    chunks = chunks_of(doc, target_tokens=14)  # room for one sentence of the two pages
    assert holding(chunks, FACTS[0]).pages == (1,)
    assert holding(chunks, ACROSS_PAGES).pages == (1, 2)
    assert holding(chunks, FACTS[1]).pages == (2,)
    # With room for everything, the sentence still ends the chunk that covers two pages.
    whole = chunks_of(doc, target_tokens=500)
    assert [chunk.pages for chunk in whole] == [(1, 2), (2,)]
    assert holding(whole, ACROSS_PAGES) == whole[0] and holding(whole, FACTS[1]) == whole[1]


def test_a_paged_pdf_is_chunked_page_by_page_without_its_running_lines() -> None:
    doc = read(running_pdf(REPORT_PAGES), "reports/1978.pdf", "pdf")
    assert_spans_hold(doc)
    assert_no_running_lines(doc)
    assert_a_fact_a_page(doc)
    across = read(running_pdf(BROKEN_PAGES), "reports/roof.pdf", "pdf")
    assert_no_running_lines(across)
    assert_the_sentence_across_pages_is_whole(across)


@pytest.mark.parametrize("laid_out", [False, True], ids=["as written", "as Word laid it out"])
def test_a_word_file_has_the_pages_its_breaks_state(laid_out: bool) -> None:
    # Written by a program, its pages are the author's breaks (a section break, page breaks);
    # laid out by Word, Word's own, which follow the author's without counting them twice.
    doc = read(word_pages(REPORT_PAGES, laid_out=laid_out), "reports/1978.docx", "docx")
    assert_spans_hold(doc)
    assert RUNNING_HEADER not in doc.text  # a Word header is not in the body
    assert_a_fact_a_page(doc)
    across = read(word_pages(BROKEN_PAGES, laid_out=laid_out), "reports/roof.docx", "docx")
    assert_spans_hold(across)
    assert_the_sentence_across_pages_is_whole(across)


@needs_tesseract
def test_a_scan_is_chunked_page_by_page_without_its_running_lines() -> None:
    doc = read(tiff(*running_scan(BROKEN_PAGES)), "reports/roof.tif", "image")
    assert_spans_hold(doc)
    assert_no_running_lines(doc)
    assert [page.number for page in doc.pages] == [1, 2]
    assert_the_sentence_across_pages_is_whole(doc)


# --- scans --------------------------------------------------------------------------------------
@needs_tesseract
def test_scanned_letter_is_read_back_by_ocr() -> None:
    doc = read(png(letter_image()), "letters/carta_oficio_138_11031978.png", "image")
    assert_spans_hold(doc)
    assert doc.source_type == "image"
    assert doc.title == "Lisboa, 11 de março de 1978"  # its first line
    (page,) = doc.pages
    assert page.number == 1 and page.ocr_confidence is not None and page.ocr_confidence > 0.8
    error = character_error_rate("\n".join(LETTER), doc.text)
    assert error <= 0.02, f"character error rate {error:.1%}:\n{doc.text}"


@needs_tesseract
def test_multipage_tiff_is_a_page_per_frame() -> None:
    data = tiff(letter_image(), letter_image(("Second page of the letter.",)))
    doc = read(data, "letters/138.tif", "image")
    first, second = doc.pages
    assert (first.number, second.number) == (1, 2)
    assert doc.text[second.start :] == "Second page of the letter."
    assert second.ocr_confidence is not None


def test_without_tesseract_a_scan_is_refused_naming_the_package(tmp_path: Path) -> None:
    without = FileReading(ocr=Tesseract(command=str(tmp_path / "no-tesseract")))
    with pytest.raises(OcrUnavailable, match=r"apt-get install tesseract-ocr "):
        read(png(letter_image()), "letter.png", "image", without)
    with pytest.raises(OcrUnavailable, match="tesseract-ocr"):
        read(pdf_of_pages(letter_image()), "letter.pdf", "pdf", without)
    # The other formats read as before, and a folder walk passes over the scan alone.
    (tmp_path / "letter.png").write_bytes(png(letter_image()))
    (tmp_path / "report.pdf").write_bytes(two_page_pdf())
    (tmp_path / "loans.docx").write_bytes(word_report())
    skipped: list[Skipped] = []
    docs = read_path(tmp_path, max_bytes=LIMIT, on_skip=skipped.append, files=without)
    assert sorted(doc.id for doc in docs) == ["loans.docx", "report.pdf"]
    ((path, reason),) = [(item.path, item.reason) for item in skipped]
    assert path == "letter.png" and "tesseract-ocr" in reason
    # A corrupt or truncated image is named as such, not sent to install Tesseract first.
    whole = png(letter_image())
    for broken in (b"\x89PNG\r\n\x1a\n not an image", whole[: len(whole) // 2]):
        with pytest.raises(UnreadableDocument, match="not a readable PNG"):
            read(broken, "broken.png", "image", without)


@needs_tesseract
def test_missing_language_data_is_named() -> None:
    with pytest.raises(OcrUnavailable, match=r"tesseract-ocr-xyz .*installed ones \(.*eng"):
        read(png(letter_image()), "letter.png", "image", FileReading(ocr=Tesseract("eng+xyz")))


# --- Word ---------------------------------------------------------------------------------------
def test_docx_headings_table_and_hyperlinks() -> None:
    doc = read(word_report(), "loans/1978.docx", "docx")
    assert_spans_hold(doc)
    assert doc.title == "Loans of 1978" and doc.source_type == "docx" and doc.pages == ()
    assert [(h.text, h.level) for h in doc.headings] == [
        ("Loans of 1978", 1),
        ("Paintings lent", 2),
    ]
    assert [(link.href, link.anchor_text) for link in doc.links] == [
        (LEDGER_URL, "ledger of the archive"),
        (REGISTER_URL, "a private collector"),
    ]
    # The header row heads every other row, so each row reads whole on its own.
    assert "Work: Abaporu; Borrower: Museu de Arte Moderna; Returned: 1979\n\n" in doc.text
    assert "Work: Operários; Borrower: a private collector; Returned: never" in doc.text
    assert "Work; Borrower" not in doc.text and "Work | Borrower" not in doc.text


# --- web pages and tables -------------------------------------------------------------------------
def test_web_page_keeps_its_main_content_only() -> None:
    doc = read(MUSEUM_PAGE.encode(), "site/visit.html", "html")
    assert_spans_hold(doc)
    assert doc.title == "Visiting the museum"
    for furniture in ("Home", "Café", "City Museum", "Privacy", "newsletter", "Newsletter"):
        assert furniture not in doc.text
    assert doc.text.startswith("Opening hours\n\nThe museum opens at 10:00")
    assert "Ticket: Adult; Price: 12 euros\n\nTicket: Student; Price: 6 euros" in doc.text
    assert "education office" in doc.text
    assert [(link.href, link.anchor_text) for link in doc.links] == [
        ("archive.html#booking", "booking the archive")
    ]
    # trafilatura drops the ids; the headings get back the ones the page gave them.
    assert [(h.slug, h.level) for h in doc.headings] == [("hours", 1), ("prices", 2)]


def test_page_without_furniture_is_read_whole() -> None:
    page = b"<h1 id=setup>Setup</h1><p>The AG-5100 gateway accepts 32 sensors.</p><ul><li>One"
    doc = read(page, "gateway.html", "html")
    assert doc.text == "Setup\n\nThe AG-5100 gateway accepts 32 sensors.\n\nOne"
    assert [h.slug for h in doc.headings] == ["setup"]


def test_markdown_table_has_its_header_on_every_row() -> None:
    source = (
        "# Loans\n\n| Work | Borrower |\n|---|---|\n| Abaporu | [MAM](mam.md) |\n"
        "| Operários | a collector |\n\n| Only | Header |\n|---|---|\n"
    )
    doc = read(source.encode(), "loans.md", "markdown")
    assert_spans_hold(doc)
    assert doc.text == (
        "Loans\n\nWork: Abaporu; Borrower: MAM\n\nWork: Operários; Borrower: a collector"
        "\n\nOnly | Header"
    )
    assert [(link.href, link.anchor_text) for link in doc.links] == [("mam.md", "MAM")]


def test_html_table_without_header_row_keeps_its_cells() -> None:
    doc = read(b"<table><tr><td>1978</td><td>41,000</td></tr></table>", "t.html", "html")
    assert doc.text == "1978 | 41,000"


# --- files refused ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("data", "fmt", "message"),
    [
        (two_page_pdf()[:400], "pdf", "not a readable PDF"),
        (b"%PDF-1.7\nnot really", "pdf", "not a readable PDF"),
        (two_page_pdf(encrypt="s3cret"), "pdf", "encrypted"),
        (word_report()[:3000], "docx", "not a readable Word .docx"),
        (word_report(encrypt="s3cret"), "docx", "encrypted"),
        (b"PK\x03\x04 not a zip", "docx", "not a readable Word .docx"),
        (png(letter_image())[:2000], "image", "not a readable PNG, JPEG or TIFF"),
        (b"GIF89a", "image", "not a readable PNG, JPEG or TIFF"),
    ],
)
@needs_tesseract
def test_corrupt_and_encrypted_files_are_refused(data: bytes, fmt: str, message: str) -> None:
    with pytest.raises(UnreadableDocument, match=message):
        read(data, f"bad.{fmt}", fmt)


@pytest.mark.parametrize("fmt", ["pdf", "docx", "image"])
def test_empty_files_are_refused(fmt: str) -> None:
    with pytest.raises(InvalidInput, match="empty"):
        read(b"", f"empty.{fmt}", fmt)


def test_files_over_the_size_limit_are_refused_unread(tmp_path: Path) -> None:
    data = two_page_pdf()
    small = FileReading(max_bytes=len(data) - 1)
    with pytest.raises(DocumentTooLarge, match=rf"{len(data):,} bytes is over the limit"):
        read(data, "big.pdf", "pdf", small)
    # The file limit, not the text limit, is the one for binary formats.
    assert read_bytes(data, doc_id="ok.pdf", fmt="pdf", max_bytes=10).pages
    (tmp_path / "big.pdf").write_bytes(data)
    with pytest.raises(DocumentTooLarge):
        list(read_path(tmp_path / "big.pdf", max_bytes=LIMIT, files=small))


@needs_tesseract
def test_files_over_the_page_limit_are_refused() -> None:
    one_page = FileReading(max_pages=1)
    with pytest.raises(TooManyPages, match="2 pages is over the limit of 1 pages"):
        read(two_page_pdf(), "report.pdf", "pdf", one_page)
    with pytest.raises(TooManyPages, match="2 pages"):
        read(tiff(letter_image(), letter_image()), "two.tif", "image", one_page)
