"""Word ``.docx`` through python-docx: paragraphs in order, Heading and Title styles as
headings, tables with their header on every row, and hyperlinks as links.

A ``.docx`` has no fixed pages: they are where Word lays them out. Its pages are kept only as
the file states them. A file Word laid out holds where each page began when Word last saved it
(``w:lastRenderedPageBreak``, which follows the author's page breaks too); a file no word
processor laid out (one a program wrote) holds only the author's page breaks (``w:br
w:type="page"``) and section breaks that start a new page, and its page N is the part after the
(N-1)th of those. A file with neither has no pages.
"""

from __future__ import annotations

import re
import zipfile
import zlib
from dataclasses import dataclass, replace
from io import BytesIO
from typing import TYPE_CHECKING

from anchorgraph.errors import UnreadableDocument
from anchorgraph.loaders.draft import Draft, Found, Rendered

if TYPE_CHECKING:
    from docx.table import Table, _Cell
    from docx.text.paragraph import Paragraph
    from docx.text.run import Run

    from anchorgraph.loaders.files import FileReading

_HEADING_STYLE = re.compile(r"Heading ([1-9])")
# A run's elements, in order: those python-docx reads as text (``Run.text``) and the two page
# breaks, Word's and the author's (a ``w:br`` of type page, which reads as "").
_RUN_CONTENT = "w:br | w:cr | w:noBreakHyphen | w:ptab | w:t | w:tab | w:lastRenderedPageBreak"


def render_docx(data: bytes, doc_id: str) -> tuple[str, Rendered]:
    """The title (the document's core Title property, else "") and the text of a ``.docx``.

    Raises:
        UnreadableDocument: Not a Word package: corrupt, truncated, encrypted (Word stores an
            encrypted file in another container), or an old binary ``.doc``.
    """
    import docx
    from docx.enum.section import WD_SECTION
    from docx.opc.exceptions import OpcError
    from docx.table import Table
    from lxml.etree import LxmlError

    try:
        document = docx.Document(BytesIO(data))
        draft = Draft()
        pages = _Pages(
            draft,
            laid_out=bool(document.element.body.xpath(".//w:lastRenderedPageBreak")),
            new_page_sections=[
                section.start_type not in (WD_SECTION.CONTINUOUS, WD_SECTION.NEW_COLUMN)
                for section in document.sections
            ],
        )
        for block in document.iter_inner_content():
            if isinstance(block, Table):
                _table(block, draft, pages)
            else:
                _paragraph(block, draft, pages)
                pages.after_paragraph(block)
        title = (document.core_properties.title or "").strip()
    except (OpcError, zipfile.BadZipFile, zlib.error, KeyError, ValueError, LxmlError) as error:
        raise UnreadableDocument(
            f"{doc_id}: not a readable Word .docx file (corrupt, truncated, encrypted, or an "
            f"old .doc): {error}"
        ) from error
    rendered = draft.finish()
    return title, rendered if len(rendered.pages) > 1 else replace(rendered, pages=())


@dataclass
class _Pages:
    """Where a ``.docx``'s pages begin, as the file states them (the module's docstring)."""

    draft: Draft
    laid_out: bool  # Word's own breaks are in the file: they alone count
    new_page_sections: list[bool]  # whether each section, in order, begins on a new page
    number: int = 1
    section: int = 0

    def __post_init__(self) -> None:
        self.draft.start_page(1)

    def rendered(self) -> None:
        """Word began a page here (inside running text: no line break is added)."""
        if self.laid_out:
            self._turn("")

    def explicit(self) -> None:
        """The author's page break: a line break, and a page unless Word's breaks count."""
        if self.laid_out:
            self.draft.write("\n")
        else:
            self._turn("\n")

    def after_paragraph(self, paragraph: Paragraph) -> None:
        """A paragraph that holds a section's properties ends that section."""
        p_pr = paragraph._p.pPr
        if p_pr is None or p_pr.sectPr is None:
            return
        self.section += 1
        if self.section < len(self.new_page_sections) and self.new_page_sections[self.section]:
            self.explicit()

    def _turn(self, separator: str) -> None:
        self.number += 1
        self.draft.start_page(self.number, separator=separator)


def _paragraph(paragraph: Paragraph, draft: Draft, pages: _Pages) -> None:
    level = _heading_level(paragraph)
    if level:
        draft.start_heading(level)
    _inline(paragraph, draft, pages)
    if level:
        draft.end_heading()
    draft.write("\n\n")


def _heading_level(paragraph: Paragraph) -> int:
    name = paragraph.style.name if paragraph.style is not None else ""
    if name == "Title":
        return 1
    match = _HEADING_STYLE.fullmatch(name or "")
    return int(match.group(1)) if match else 0


def _inline(paragraph: Paragraph, draft: Draft, pages: _Pages) -> None:
    """A paragraph's runs and hyperlinks; a jump to a bookmark of the same file (no address)
    is no link between documents, so only its text is kept."""
    from docx.text.hyperlink import Hyperlink

    for item in paragraph.iter_inner_content():
        if isinstance(item, Hyperlink):
            if item.address:
                draft.start_link(item.url)
            for run in item.runs:
                _run(run, draft, pages)
            if item.address:
                draft.end_link()
        else:
            _run(item, draft, pages)


def _run(run: Run, draft: Draft, pages: _Pages) -> None:
    """A run's text (python-docx's reading of each element, as ``Run.text`` has it), and the
    page breaks in it."""
    from docx.oxml.ns import qn

    for element in run._r.xpath(_RUN_CONTENT):
        if element.tag == qn("w:lastRenderedPageBreak"):
            pages.rendered()
        elif element.tag == qn("w:br") and element.get(qn("w:type")) == "page":
            pages.explicit()
        else:
            draft.write(str(element))


def _table(table: Table, draft: Draft, pages: _Pages) -> None:
    """One row, one sentence; with two rows or more the first is the header and each cell of
    the others reads "Header: value" (Word does not mark header rows reliably)."""
    rows = [_distinct_cells(row.cells) for row in table.rows]
    headers: list[str] = []
    if len(rows) >= 2:
        headers = [cell.text for cell in rows[0]]
        rows = rows[1:]
    for cells in rows:
        for column, cell in enumerate(cells):
            draft.cell(column, headers)
            for at, paragraph in enumerate(cell.paragraphs):
                draft.write(" " if at else "")
                _inline(paragraph, draft, pages)
        draft.write("\n\n")


def _distinct_cells(cells: list[_Cell]) -> list[_Cell]:
    """A merged cell appears once for every grid column it spans: keep it once."""
    distinct: list[_Cell] = []
    for cell in cells:
        if not distinct or cell._tc is not distinct[-1]._tc:
            distinct.append(cell)
    return distinct


def read(data: bytes, doc_id: str, reading: FileReading) -> Found:
    """A Word ``.docx`` (the reader of ``anchorgraph.loaders.formats``), titled by its Title
    property, else its first Title or Heading 1 paragraph, else its first line."""
    title, rendered = render_docx(data, doc_id)
    return Found(title or rendered.first_h1() or rendered.first_line(), rendered)
