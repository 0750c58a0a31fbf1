"""Text being assembled by a reader, with the spans of its links, headings and pages.

Every reader (Markdown, HTML, PDF, Word, OCR) writes what it shows into a :class:`Draft` and
marks where links, headings, pages and table cells begin and end; :meth:`Draft.finish` then
normalises the text once and moves every span into it, so for every document
``text[link.start:link.end] == link.anchor_text`` and
``text[h.start:h.start + len(h.text)] == h.text``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from anchorgraph.loaders.links import heading_slug
from anchorgraph.loaders.model import Heading, Page, RawLink
from anchorgraph.text.normalise import normalise_text, normalise_with_offsets

# Between the cells of a row: with headers each cell reads "Header: value", and a semicolon
# keeps those pairs apart; a row without headers keeps the plain column bar.
_HEADED_CELL_SEPARATOR = "; "
_CELL_SEPARATOR = " | "
# The longest title taken from a document's first line.
_TITLE_MAX_CHARS = 200


@dataclass(frozen=True)
class Rendered:
    """Normalised text with the links, headings and pages located in it."""

    text: str
    links: tuple[RawLink, ...] = ()
    headings: tuple[Heading, ...] = ()
    pages: tuple[Page, ...] = ()

    def first_h1(self) -> str:
        return next((h.text for h in self.headings if h.level == 1), "")

    def first_line(self) -> str:
        return self.text.partition("\n")[0][:_TITLE_MAX_CHARS].rstrip()


@dataclass(frozen=True)
class Found:
    """What a reader found in one document: the title it gives itself ("" for none, and the
    document is titled by its id), its text, and the tags and metadata it states."""

    title: str
    rendered: Rendered
    tags: tuple[str, ...] = ()
    metadata: dict[str, str] = field(default_factory=dict)


@dataclass
class Draft:
    """Text being assembled, with the spans of links, headings and pages written into it."""

    parts: list[str] = field(default_factory=list)
    length: int = 0
    links: list[tuple[str, int, int]] = field(default_factory=list)  # href, start, end
    headings: list[tuple[int, int, int, str]] = field(default_factory=list)  # level, span, id
    pages: list[tuple[int, int, float | None]] = field(default_factory=list)  # number, start, conf
    open_links: list[tuple[str, int]] = field(default_factory=list)
    open_headings: list[tuple[int, int, str]] = field(default_factory=list)

    def write(self, text: str) -> None:
        self.parts.append(text)
        self.length += len(text)

    def start_link(self, href: str) -> None:
        self.open_links.append((href, self.length))

    def end_link(self) -> None:
        if self.open_links:
            href, start = self.open_links.pop()
            self.links.append((href, start, self.length))

    def link(self, href: str, anchor_text: str) -> None:
        """Write a link's anchor text as one span."""
        self.start_link(href)
        self.write(anchor_text)
        self.end_link()

    def start_heading(self, level: int, anchor: str = "") -> None:
        self.open_headings.append((level, self.length, anchor))

    def end_heading(self) -> None:
        if self.open_headings:
            level, start, anchor = self.open_headings.pop()
            self.headings.append((level, start, self.length, anchor))

    def start_page(
        self, number: int, ocr_confidence: float | None = None, *, separator: str = "\n"
    ) -> None:
        """A new page begins here, after ``separator`` (a line break: a sentence the page cut
        runs on into the next page, and the sentence splitter tells it as it tells a wrapped
        line; "" where the break falls inside running text, as Word's own page breaks do)."""
        if self.pages:
            self.write(separator)
        self.pages.append((number, self.length, ocr_confidence))

    def cell(self, column: int, headers: Sequence[str]) -> None:
        """Begin a table cell: a separator after the row's first cell, then the column's header,
        so every row reads whole on its own ("Ticket: Adult; Price: 12 euros") and a chunk that
        holds only some rows of a table still says what each value is."""
        header = normalise_text(headers[column]) if column < len(headers) else ""
        if column > 0:
            self.write(_HEADED_CELL_SEPARATOR if headers else _CELL_SEPARATOR)
        if header:
            self.write(f"{header}: ")

    def finish(self) -> Rendered:
        """Normalise the text and move every span into it, trimmed of whitespace."""
        text, moved = normalise_with_offsets("".join(self.parts))

        def locate(start: int, end: int) -> tuple[int, int]:
            start, end = moved(start), moved(end)
            while start < end and text[start].isspace():
                start += 1
            while end > start and text[end - 1].isspace():
                end -= 1
            return start, end

        links = []
        for href, raw_start, raw_end in self.links:
            start, end = locate(raw_start, raw_end)
            if start < end:  # a link with no visible text (an image without alt) is dropped
                links.append(RawLink(href.strip(), text[start:end], start, end))
        headings = []
        slugs = _Slugs()
        for level, raw_start, raw_end, anchor in sorted(self.headings, key=lambda h: h[1]):
            start, end = locate(raw_start, raw_end)
            if start < end:
                slug = slugs.claim(anchor) if anchor else slugs.generate(text[start:end])
                headings.append(Heading(slug, text[start:end], level, start))
        pages = tuple(
            Page(number, locate(raw_start, self.length)[0], confidence)
            for number, raw_start, confidence in self.pages
        )
        links.sort(key=lambda link: link.start)
        return Rendered(text, tuple(links), tuple(headings), pages)


@dataclass
class _Slugs:
    """The anchors given out in one document, with GitHub's rule for repeated headings."""

    used: set[str] = field(default_factory=set)
    repeats: dict[str, int] = field(default_factory=dict)  # last suffix given for a slug

    def claim(self, anchor: str) -> str:
        """An explicit anchor (an HTML ``id``), used as it is."""
        self.used.add(anchor)
        return anchor

    def generate(self, heading: str) -> str:
        """``intro``, then ``intro-1``, ``intro-2``… for headings with the same text."""
        base = heading_slug(heading)
        repeat = self.repeats.get(base, 0)
        candidate = base if repeat == 0 else f"{base}-{repeat}"
        while candidate in self.used:
            repeat += 1
            candidate = f"{base}-{repeat}"
        self.repeats[base] = repeat
        return self.claim(candidate)
