"""Real files for the readers' tests and their benchmark (``benchmarks/readers.py``), made by the
libraries that write them: PDFs by reportlab, Word files by python-docx (and msoffcrypto-tool, to
encrypt one), scans by Pillow.

The text is this project's own. A scan is a letter drawn in Bitstream Vera (shipped inside
reportlab, so no system font is needed) at 300 dpi, the way an archive scans paper.
"""

from __future__ import annotations

import io
from pathlib import Path

import docx
import reportlab
from docx.enum.section import WD_SECTION
from docx.enum.text import WD_BREAK
from docx.opc.constants import RELATIONSHIP_TYPE
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from docx.text.paragraph import Paragraph
from msoffcrypto.format.ooxml import OOXMLFile
from PIL import Image, ImageDraw, ImageFont
from reportlab.lib.pagesizes import A4
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen import canvas

FONT = Path(reportlab.__file__).parent / "fonts" / "Vera.ttf"
REGISTER_URL = "https://archive.example.org/loan-register"
LEDGER_URL = "https://archive.example.org/ledger"

# A letter of the museum's archive (written for these tests), as it is typed on the page.
LETTER = (
    "Lisboa, 11 de março de 1978",
    "",
    "Ao Diretor do Museu de Arte,",
    "",
    "Confirmamos o empréstimo de doze pinturas",
    "para a exposição de outono. O seguro cobre",
    "o transporte e a montagem das obras.",
    "",
    "Atenciosamente, Ana Souza",
)


def two_page_pdf(*, encrypt: str | None = None) -> bytes:
    """A report of two pages: an outline entry heading each, a link on the first page to the
    loan register, and a Title in its metadata."""
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=A4, encrypt=encrypt)
    pdf.setTitle("Annual report of the museum")
    pages = (
        (
            "Acquisitions in 1978",
            [
                "The museum acquired twelve paintings in 1978, among them a portrait by",
                "Tarsila do Amaral. Every loan is listed in the register of the archive.",
            ],
        ),
        (
            "Visitors",
            ["In 1978 the museum received 41,000 visitors, twice as many as in 1970."],
        ),
    )
    for number, (heading, lines) in enumerate(pages, start=1):
        pdf.setFont("Helvetica-Bold", 16)
        pdf.drawString(72, 780, heading)
        pdf.bookmarkPage(f"page{number}")
        pdf.addOutlineEntry(heading, f"page{number}", level=0)
        pdf.setFont("Helvetica", 11)
        y = 750
        for line in lines:
            pdf.drawString(72, y, line)
            y -= 14
        if number == 1:
            before, anchor = "See the ", "loan register"
            pdf.drawString(72, y - 10, f"{before}{anchor} for details.")
            left = 72 + pdf.stringWidth(before, "Helvetica", 11)
            right = left + pdf.stringWidth(anchor, "Helvetica", 11)
            pdf.linkURL(REGISTER_URL, (left, y - 14, right, y + 1), relative=0)
        pdf.showPage()
    pdf.save()
    return buffer.getvalue()


def text_pdf(pages: int, lines_per_page: int = 45) -> bytes:
    """A long report: ``pages`` pages of typed lines, an outline entry a page."""
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=A4)
    for number in range(1, pages + 1):
        pdf.setFont("Helvetica-Bold", 14)
        pdf.drawString(72, 790, f"Section {number}")
        pdf.bookmarkPage(f"section{number}")
        pdf.addOutlineEntry(f"Section {number}", f"section{number}", level=0)
        pdf.setFont("Helvetica", 10)
        for line in range(lines_per_page):
            pdf.drawString(
                72,
                770 - 15 * line,
                f"Item {number}.{line}: the archive holds {number * line} letters of the museum,"
                f" catalogued under shelf mark AR-{number:03d}-{line:02d} in 1978.",
            )
        pdf.showPage()
    pdf.save()
    return buffer.getvalue()


# A report of four pages, a fact a page, as its pages are typed between a running header and a
# running footer ("page N"); and two pages with a sentence that the first begins and the second
# ends.
RUNNING_HEADER = "City Museum - Annual report 1978"
FACTS = (
    "The museum acquired twelve paintings by Tarsila do Amaral in 1978.",
    "The conservation lab restored the frame of Abaporu in March.",
    "The sculpture garden reopened after the spring storm.",
    "Attendance reached 41,000 visitors over the year.",
)
REPORT_PAGES = tuple((fact,) for fact in FACTS)
ACROSS_PAGES = "The roof of the east wing was replaced with copper sheets in October."
BROKEN_PAGES = (
    (FACTS[0], "The roof of the east wing was"),
    ("replaced with copper sheets in October.", FACTS[1]),
)


def running_pdf(pages: tuple[tuple[str, ...], ...] = REPORT_PAGES) -> bytes:
    """A PDF with a line of text for each of a page's strings, under a running header and above
    a running footer, ``page N``."""
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=A4)
    for number, lines in enumerate(pages, start=1):
        pdf.setFont("Helvetica", 9)
        pdf.drawString(72, 810, RUNNING_HEADER)
        pdf.setFont("Helvetica", 11)
        for at, line in enumerate(lines):
            pdf.drawString(72, 750 - 14 * at, line)
        pdf.setFont("Helvetica", 9)
        pdf.drawString(290, 40, f"page {number}")
        pdf.showPage()
    pdf.save()
    return buffer.getvalue()


def running_scan(pages: tuple[tuple[str, ...], ...]) -> list[Image.Image]:
    """A typed sheet scanned at 300 dpi for each page: the running header at its top, its lines,
    and ``page N`` at its foot."""
    images = []
    font = ImageFont.truetype(str(FONT), 42)
    for number, lines in enumerate(pages, start=1):
        image = Image.new("L", (2480, 3508), 255)
        draw = ImageDraw.Draw(image)
        draw.text((250, 150), RUNNING_HEADER, fill=0, font=font)
        for at, line in enumerate(lines):
            draw.text((250, 400 + 70 * at), line, fill=0, font=font)
        draw.text((1150, 3250), f"page {number}", fill=0, font=font)
        images.append(image)
    return images


def word_pages(pages: tuple[tuple[str, ...], ...], *, laid_out: bool = False) -> bytes:
    """A .docx of ``pages``, a paragraph a string: the second page begins with a section break,
    the others with the author's page break, and a page whose last string has no full stop
    breaks the page inside that paragraph, which the next page's first string goes on (a
    sentence across the break). With ``laid_out``, it is as Word saves a file it laid out: a
    ``w:lastRenderedPageBreak`` where each page begins, beside the author's breaks. The running
    header is the section's header, which Word keeps apart from the body."""
    document = docx.Document()
    document.sections[0].header.paragraphs[0].text = RUNNING_HEADER
    open_paragraph = None
    for number, lines in enumerate(pages, start=1):
        if number == 2 and open_paragraph is None:
            document.add_section(WD_SECTION.NEW_PAGE)
        elif number > 1:
            (open_paragraph or document.add_paragraph()).add_run().add_break(WD_BREAK.PAGE)
        for at, line in enumerate(lines):
            paragraph = open_paragraph if at == 0 and open_paragraph else document.add_paragraph()
            run = paragraph.add_run(line)
            if laid_out and at == 0 and number > 1:
                run._r.insert(0, OxmlElement("w:lastRenderedPageBreak"))
        open_paragraph = None if lines[-1].endswith(".") else paragraph
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def pdf_of_pages(*pages: Image.Image | str | None) -> bytes:
    """A PDF with a page per item: a scan (an image and no text layer), a line of text, or
    None for a blank page."""
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=A4)
    width, height = A4
    for page in pages:
        if isinstance(page, Image.Image):
            pdf.drawImage(ImageReader(page), 0, 0, width, height)
        elif isinstance(page, str):
            pdf.setFont("Helvetica", 11)
            pdf.drawString(72, 780, page)
        pdf.showPage()
    pdf.save()
    return buffer.getvalue()


def letter_image(
    lines: tuple[str, ...] = LETTER,
    *,
    font_size: int = 42,
    top: int = 300,
    left: int = 250,
    line_height: int = 70,
    blank_height: int | None = None,
) -> Image.Image:
    """A typed letter on an A4 sheet scanned at 300 dpi, in grey; an empty line advances
    ``blank_height`` (``line_height`` when None)."""
    image = Image.new("L", (2480, 3508), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(str(FONT), font_size)
    y = top
    for line in lines:
        draw.text((left, y), line, fill=0, font=font)
        y += line_height if line or blank_height is None else blank_height
    return image


def png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", dpi=(300, 300))
    return buffer.getvalue()


def tiff(*images: Image.Image) -> bytes:
    """A multi-page TIFF, a page per image."""
    buffer = io.BytesIO()
    first, *rest = images
    first.save(
        buffer,
        format="TIFF",
        save_all=True,
        append_images=rest,
        dpi=(300, 300),
        compression="tiff_lzw",
    )
    return buffer.getvalue()


def word_report(*, encrypt: str | None = None) -> bytes:
    """A .docx with a title, two headings, a paragraph with a hyperlink and a table of loans
    (a header row and two rows, one of them holding a link)."""
    document = docx.Document()
    document.core_properties.title = "Loans of 1978"
    document.add_heading("Loans of 1978", level=1)
    intro = document.add_paragraph("Every loan is entered in the ")
    _hyperlink(intro, LEDGER_URL, "ledger of the archive")
    intro.add_run(" on the day the works leave.")
    document.add_heading("Paintings lent", level=2)
    table = document.add_table(rows=3, cols=3)
    for row, values in zip(
        table.rows,
        (
            ("Work", "Borrower", "Returned"),
            ("Abaporu", "Museu de Arte Moderna", "1979"),
            ("Operários", "", "never"),
        ),
        strict=True,
    ):
        for cell, value in zip(row.cells, values, strict=True):
            cell.text = value
    _hyperlink(table.rows[2].cells[1].paragraphs[0], REGISTER_URL, "a private collector")
    document.add_paragraph("The insurance of each loan is kept with the contract.")
    buffer = io.BytesIO()
    document.save(buffer)
    if encrypt is None:
        return buffer.getvalue()
    buffer.seek(0)
    encrypted = io.BytesIO()
    OOXMLFile(buffer).encrypt(encrypt, encrypted)
    return encrypted.getvalue()


def _hyperlink(paragraph: Paragraph, url: str, text: str) -> None:
    """python-docx reads hyperlinks but has no call to write one: its element, by hand."""
    relationship = paragraph.part.relate_to(url, RELATIONSHIP_TYPE.HYPERLINK, is_external=True)
    link = OxmlElement("w:hyperlink")
    link.set(qn("r:id"), relationship)
    run = OxmlElement("w:r")
    text_element = OxmlElement("w:t")
    text_element.text = text
    text_element.set(qn("xml:space"), "preserve")
    run.append(text_element)
    link.append(run)
    paragraph._p.append(link)


MUSEUM_PAGE = """<!DOCTYPE html>
<html><head><title>Visiting the museum</title></head><body>
<header><a href="/"><img alt="City Museum"></a>
<nav><a href="/">Home</a> | <a href="/visit">Visit</a> | <a href="/cafe">Café</a></nav></header>
<main><article>
<h1 id="hours">Opening hours</h1>
<p>The museum opens at 10:00 every day except Monday. The archive reading room needs an
appointment, see <a href="archive.html#booking">booking the archive</a> for details.</p>
<h2 id="prices">Prices</h2>
<table><thead><tr><th>Ticket</th><th>Price</th></tr></thead>
<tbody><tr><td>Adult</td><td>12 euros</td></tr><tr><td>Student</td><td>6 euros</td></tr></tbody>
</table>
<p>Guided tours of the sculpture garden start at 11:00 and 15:00 and last one hour. Groups of
more than ten people book a week ahead by writing to the education office.</p>
</article></main>
<aside><h3>Newsletter</h3><p>Subscribe to our newsletter for news of exhibitions.</p></aside>
<footer><p>© 2024 City Museum · Privacy policy · Contact us at info@example.org</p></footer>
</body></html>"""
