"""Running headers and footers: the lines a paged document repeats at the top or bottom of most
pages (its title, "page 3 of 9", a notice), which are the page's furniture, not its content.

The readers of paged files (PDF, scans) drop them before the text is chunked, so no chunk is
indexed under a footer and no hit cites one.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import product

EDGE_LINES = 2  # lines at the top and at the bottom of a page where a running line may stand
# A line with more numbers than this is a row of figures, never a running line (and the
# readings of its numbers, two each, would be too many to compare).
MAX_NUMBERS = 6
_LINE = re.compile(r"[^\r\n]*\S[^\r\n]*")  # a line with something on it
_DIGITS = re.compile(r"\d+")

# A line as it may repeat: its key, and for each of its numbers either ("=", the number) or
# ("+", the number less the page's index).
_Pattern = tuple[str, tuple[tuple[str, int], ...]]


def page_bodies(
    pages: Sequence[str], protected: Sequence[Sequence[int]] = ()
) -> list[tuple[int, int]]:
    """Each page's text without its running header and footer, as a span ``(start, end)`` of it.

    A line's key is its text with every run of digits masked, spaces collapsed and case folded:
    "Page 3 of 9" and "page 4 of 9" share the key ``page # of #``. A line is running when lines
    of its key stand among the first or the last ``EDGE_LINES`` non-blank lines of at least half
    of the pages that have text, and of at least two, and each of their numbers is either the
    same on all of those pages or the page's number plus the same constant on all of them (the
    3 and the 9 of "page 3 of 9"): the numbered rows of a table, whose numbers follow no page,
    are content. From the top and from the bottom of each page, up to ``EDGE_LINES`` running
    lines are dropped, stopping at the first line that is not running; a line holding one of
    the page's ``protected`` offsets (a heading of the document's outline) is content and is
    never dropped. A document of one page has no running lines.

    Args:
        pages: The text of each page, in order (a blank page as "").
        protected: For each page, offsets in its text of lines to keep (may be shorter than
            ``pages``).

    Returns:
        For each page, the span of its text that remains, from the start of its first kept line
        to the end of its last (``(n, n)``, n its length, for a page with nothing left).
    """
    lines = [[(m.start(), m.end()) for m in _LINE.finditer(text)] for text in pages]
    patterns = [
        [set(_patterns(text[start:end], index)) for start, end in spans]
        for index, (text, spans) in enumerate(zip(pages, lines, strict=True))
    ]
    at_edges: Counter[_Pattern] = Counter(
        pattern
        for page in patterns
        for pattern in set().union(*page[:EDGE_LINES], *page[-EDGE_LINES:])
    )
    needed = max(2, math.ceil(sum(1 for spans in lines if spans) / 2))
    running = {pattern for pattern, pages_with in at_edges.items() if pages_with >= needed}
    bodies = []
    for index, (text, spans, page) in enumerate(zip(pages, lines, patterns, strict=True)):
        kept = protected[index] if index < len(protected) else ()
        drop = [
            not line.isdisjoint(running) and not any(start <= at < end for at in kept)
            for line, (start, end) in zip(page, spans, strict=True)
        ]
        first, last = 0, len(spans)
        while first < min(EDGE_LINES, last) and drop[first]:
            first += 1
        while last > max(first, len(spans) - EDGE_LINES) and drop[last - 1]:
            last -= 1
        bodies.append((spans[first][0], spans[last - 1][1]) if first < last else (len(text),) * 2)
    return bodies


def _patterns(line: str, page: int) -> Iterator[_Pattern]:
    """The ways ``line`` may repeat from page to page: each of its numbers as itself or as an
    offset from the page."""
    key = " ".join(_DIGITS.sub("#", line).split()).casefold()
    numbers = [int(digits) for digits in _DIGITS.findall(line)]
    if len(numbers) > MAX_NUMBERS:
        return
    readings = [(("=", number), ("+", number - page)) for number in numbers]
    for reading in product(*readings):
        yield key, reading
