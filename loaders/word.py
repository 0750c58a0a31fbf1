"""Word ``.docx`` through python-docx: paragraphs in order, Heading and Title styles as
headings, tables with their header on every row, and hyperlinks as links.

A ``.docx`` has no pages until Word lays it out, so its documents carry none.
"""

from __future__ import annotations

import re
import zipfile
import zlib
from io import BytesIO
from typing import TYPE_CHECKING

from anchorgraph.errors import UnreadableDocument
from anchorgraph.loaders.draft import Draft, Rendered

if TYPE_CHECKING:
    from docx.table import Table, _Cell
    from docx.text.paragraph import Paragraph

_HEADING_STYLE = re.compile(r"Heading ([1-9])")


def render_docx(data: bytes, doc_id: str) -> tuple[str, Rendered]:
    """The title (the document's core Title property, else "") and the text of a ``.docx``.

    Raises:
        UnreadableDocument: Not a Word package: corrupt, truncated, encrypted (Word stores an
            encrypted file in another container), or an old binary ``.doc``.
    """
    import docx
    from docx.opc.exceptions import OpcError
    from docx.table import Table
    from lxml.etree import LxmlError

    try:
        document = docx.Document(BytesIO(data))
        draft = Draft()
        for block in document.iter_inner_content():
            if isinstance(block, Table):
                _table(block, draft)
            else:
                _paragraph(block, draft)
        title = (document.core_properties.title or "").strip()
    except (OpcError, zipfile.BadZipFile, zlib.error, KeyError, ValueError, LxmlError) as error:
        raise UnreadableDocument(
            f"{doc_id}: not a readable Word .docx file (corrupt, truncated, encrypted, or an "
            f"old .doc): {error}"
        ) from error
    return title, draft.finish()


def _paragraph(paragraph: Paragraph, draft: Draft) -> None:
    level = _heading_level(paragraph)
    if level:
        draft.start_heading(level)
    _inline(paragraph, draft)
    if level:
        draft.end_heading()
    draft.write("\n\n")


def _heading_level(paragraph: Paragraph) -> int:
    name = paragraph.style.name if paragraph.style is not None else ""
    if name == "Title":
        return 1
    match = _HEADING_STYLE.fullmatch(name or "")
    return int(match.group(1)) if match else 0


def _inline(paragraph: Paragraph, draft: Draft) -> None:
    """A paragraph's runs and hyperlinks; a jump to a bookmark of the same file (no address)
    is no link between documents, so only its text is kept."""
    from docx.text.hyperlink import Hyperlink

    for item in paragraph.iter_inner_content():
        if isinstance(item, Hyperlink) and item.address:
            draft.link(item.url, item.text)
        else:
            draft.write(item.text)


def _table(table: Table, draft: Draft) -> None:
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
                _inline(paragraph, draft)
        draft.write("\n\n")


def _distinct_cells(cells: list[_Cell]) -> list[_Cell]:
    """A merged cell appears once for every grid column it spans: keep it once."""
    distinct: list[_Cell] = []
    for cell in cells:
        if not distinct or cell._tc is not distinct[-1]._tc:
            distinct.append(cell)
    return distinct
