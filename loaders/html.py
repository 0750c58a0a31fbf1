"""HTML: the page's main content (``anchorgraph.loaders.webpage``) rendered to plain text with
its links and headings located, tables written a row to a sentence."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from bs4 import BeautifulSoup, Tag
from bs4.element import (
    NavigableString,
    PageElement,
    PreformattedString,
    Script,
    Stylesheet,
    TemplateString,
)

from anchorgraph.loaders.draft import Draft, Found, Rendered
from anchorgraph.loaders.webpage import main_content
from anchorgraph.text.normalise import normalise_text

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


def render_html(source: str) -> tuple[str, Rendered]:
    """The ``<title>`` and the rendered text of the page's main content."""
    soup = BeautifulSoup(source, "html.parser")
    title = soup.title.get_text() if soup.title is not None else ""
    draft = Draft()
    walk_html(main_content(soup), draft)
    return normalise_text(title), draft.finish()


def walk_html(root: Tag, draft: Draft) -> None:
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


def read(source: str) -> Found:
    """An HTML page, titled by its ``<title>``, else its first H1."""
    title, rendered = render_html(source)
    return Found(title or rendered.first_h1(), rendered)
