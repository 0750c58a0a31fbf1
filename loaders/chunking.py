"""Sentence splitting and sentence-aware chunking with overlap.

Chunks are windows of whole sentences measured in the embedding model's tokens, so a chunk never
starts or ends mid-sentence; the only exception is a single sentence longer than the window,
which is cut at word boundaries.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import TypeVar

from anchorgraph.loaders.links import resolve_href
from anchorgraph.loaders.model import (
    Chunk,
    ChunkLink,
    Heading,
    Page,
    RawLink,
    SourceDocument,
    mean_confidence,
)

# Sentence-final punctuation, then closing quotes or brackets, then whitespace.
_TERMINATOR = re.compile(r"[.!?…]+[\"'”’»)\]]*(?=\s)")
_OPENERS = frozenset("\"'“‘«([")
# Words that end with a period without ending the sentence (compared case-insensitively).
_ABBREVIATIONS = frozenset(
    {
        "e.g", "i.e", "cf", "vs", "etc", "al", "approx", "ca", "viz",
        "dr", "mr", "mrs", "ms", "prof", "sr", "jr", "st", "mt", "rev", "gen", "col", "lt",
        "fig", "figs", "eq", "eqs", "vol", "pp", "ch", "sec", "ref", "refs",
        "inc", "ltd", "co", "corp", "bros", "dept", "univ",
        "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
    }
)  # fmt: skip
# Abbreviations that are also ordinary sentence-final words count only when capitalised.
_CAPITALISED_ABBREVIATIONS = frozenset({"No", "Nos", "Op", "Art"})
# "U.S", "e.g", "a.m": letters joined by periods are abbreviations.
_DOTTED = re.compile(r"(?:[A-Za-z]\.)+[A-Za-z]")
_LIST_ITEM = re.compile(r"\s*(?:[-*+•]|\d{1,3}[.)])\s")
# A line ending in one of these words was wrapped mid-sentence, whatever comes next.
_CONTINUATION_WORDS = frozenset(
    {
        "a", "an", "the", "and", "or", "but", "nor", "of", "in", "on", "at", "to", "for", "with",
        "by", "from", "as", "into", "than", "that", "which", "who", "is", "are", "was", "were",
    }
)  # fmt: skip
_HEADING_MAX_WORDS = 10
_NEXT_CHARACTER = re.compile(r"\s+(\S)")

_T = TypeVar("_T")

# How chunks meet page breaks (``chunk_document``), named in the content hash of every paged
# document (loaders/ingest.py): a new rule rewrites paged documents, and no others, at their next
# ingest.
PAGED_CHUNKING = "a page break ends a chunk; a sentence across one ends its chunk"


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Split text into sentences.

    A sentence ends after ``.``, ``!``, ``?`` or ``…`` (with any closing quotes or brackets) when
    whitespace and then an uppercase letter, a digit, a quote or an opening bracket follow, unless
    the period belongs to an abbreviation (``e.g.``, ``Dr.``, ``U.S.``, an initial like ``J.``).
    A blank line always ends a sentence. A single newline ends one before a list item and after a
    heading-like line: at most ten words, no closing punctuation, not ending in a word like
    "the" or "and", followed by a line that starts with an uppercase letter or digit. Other single
    newlines are taken as hard wrapping inside a sentence.

    Args:
        text: Any text (normally a normalised document text).

    Returns:
        ``(start, end)`` spans in order, without surrounding whitespace; together they cover every
        non-whitespace character of ``text`` exactly once.
    """
    cuts = {*_line_cuts(text), *_punctuation_cuts(text)}
    spans: list[tuple[int, int]] = []
    previous = 0
    for cut in [*sorted(cuts), len(text)]:
        start, end = _strip(text, previous, cut)
        if start < end:
            spans.append((start, end))
        previous = cut
    return spans


def _strip(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _line_cuts(text: str) -> list[int]:
    cuts: list[int] = []
    lines = text.split("\n")
    offset = 0
    for line, following in pairwise(lines):
        offset += len(line)
        blank = not line.strip() or not following.strip()
        if blank or _LIST_ITEM.match(following) or _is_heading_like(line, following):
            cuts.append(offset)
        offset += 1  # the newline
    return cuts


def _is_heading_like(line: str, following: str) -> bool:
    words = line.split()
    last = words[-1]
    first_next = following.lstrip()[0]
    return (
        len(words) <= _HEADING_MAX_WORDS
        and (last[-1].isalnum() or last[-1] == ")")
        and last.lower() not in _CONTINUATION_WORDS
        and (first_next.isupper() or first_next.isdigit())
    )


def _punctuation_cuts(text: str) -> list[int]:
    cuts: list[int] = []
    for match in _TERMINATOR.finditer(text):
        after = _NEXT_CHARACTER.match(text, match.end())
        if after is None:
            continue  # only whitespace follows: the end of the text
        following = after.group(1)
        if not (following.isupper() or following.isdigit() or following in _OPENERS):
            continue
        if match.group()[0] == "." and _is_abbreviation(text, match.start()):
            continue
        cuts.append(match.end())
    return cuts


def _is_abbreviation(text: str, period: int) -> bool:
    start = period
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    word = text[start:period].lstrip("\"'“‘«([")
    if not word:
        return False
    if len(word) == 1 and word.isupper():
        return True  # an initial: "J. R. R. Tolkien"
    return (
        word.lower() in _ABBREVIATIONS
        or word in _CAPITALISED_ABBREVIATIONS
        or _DOTTED.fullmatch(word) is not None
    )


@dataclass(frozen=True)
class _Unit:
    """A sentence, or a piece of a sentence too long for one chunk, with its token count."""

    start: int
    end: int
    tokens: int


def chunk_document(
    doc: SourceDocument,
    count_tokens: Callable[[str], int],
    *,
    target_tokens: int,
    overlap: float,
) -> list[Chunk]:
    """Cut a document into overlapping windows of whole sentences.

    Sentences are added to a chunk while the sum of their token counts stays within
    ``target_tokens``. The next chunk starts with the last sentences of the previous one, adding
    up to about ``overlap * target_tokens`` tokens: at least one sentence when ``overlap > 0`` and
    the chunk has two or more, never the whole chunk, and never so much that the next sentence
    no longer fits. A sentence longer than ``target_tokens`` on its own is cut at word boundaries.

    A page break of a paged document ends a chunk, and no overlap is carried across it, so each
    chunk cites the page its text stands on; a sentence that runs from one page into the next
    ends the chunk that holds it, which so covers both pages, and the next chunk starts after it.

    Each sentence is counted once and the counts are summed, so ``count_tokens`` should count
    without special tokens ([CLS]/[SEP]); ``Chunk.n_tokens`` is the real count of the chunk text.

    Args:
        doc: The document; its links and headings are attached to the chunks that hold them.
        count_tokens: Token counter of the embedding model.
        target_tokens: Largest chunk, in tokens.
        overlap: Fraction of ``target_tokens`` repeated from one chunk into the next, in [0, 1).

    Returns:
        The chunks in order; ``Chunk.text == doc.text[chunk.start:chunk.end]``.

    Raises:
        ValueError: ``target_tokens`` < 1 or ``overlap`` outside [0, 1).
    """
    if target_tokens < 1:
        raise ValueError(f"target_tokens must be at least 1, not {target_tokens}")
    if not 0.0 <= overlap < 1.0:
        raise ValueError(f"overlap must be in [0, 1), not {overlap}")
    sentences = sentence_spans(doc.text)
    units = [
        unit
        for start, end in sentences
        for unit in _units(doc.text, start, end, count_tokens, target_tokens)
    ]
    tokens = [unit.tokens for unit in units]
    windows = [
        (first + window_first, first + window_last)
        for first, last in _page_runs(units, doc.pages)
        for window_first, window_last in _windows(tokens[first:last], target_tokens, overlap)
    ]
    spans = [(units[first].start, units[last - 1].end) for first, last in windows]
    headings = _assign(spans, doc.headings, _heading_span)
    links = _assign(spans, doc.links, _link_span)
    pages = [_pages_within(doc.pages, start, end, len(doc.text)) for start, end in spans]
    sentence_starts = [start for start, _ in sentences]
    chunks = []
    for ordinal, (start, end) in enumerate(spans):
        text = doc.text[start:end]
        chunk_links = (
            _chunk_link(link, doc, sentences, sentence_starts) for link in links[ordinal]
        )
        chunks.append(
            Chunk(
                id=f"{doc.id}#{ordinal}",
                document_id=doc.id,
                ordinal=ordinal,
                text=text,
                start=start,
                end=end,
                n_tokens=count_tokens(text),
                heading_slugs=tuple(heading.slug for heading in headings[ordinal]),
                links=tuple(link for link in chunk_links if link is not None),
                pages=tuple(page.number for page in pages[ordinal]),
                ocr_confidence=mean_confidence(pages[ordinal]),
            )
        )
    return chunks


def _units(
    text: str, start: int, end: int, count_tokens: Callable[[str], int], target: int
) -> list[_Unit]:
    tokens = count_tokens(text[start:end])
    if tokens <= target:
        return [_Unit(start, end, tokens)]
    # Too long for one chunk: cut at word boundaries, counting each word once.
    units: list[_Unit] = []
    piece_start, piece_end, piece_tokens = -1, -1, 0
    for word in re.finditer(r"\S+", text[start:end]):
        word_start, word_end = start + word.start(), start + word.end()
        word_tokens = count_tokens(word.group())
        if piece_start >= 0 and piece_tokens + word_tokens > target:
            units.append(_Unit(piece_start, piece_end, piece_tokens))
            piece_start = -1
        if word_tokens > target:
            units.extend(_cut_word(text, word_start, word_end, count_tokens, target))
            continue
        if piece_start < 0:
            piece_start, piece_tokens = word_start, 0
        piece_end = word_end
        piece_tokens += word_tokens
    if piece_start >= 0:
        units.append(_Unit(piece_start, piece_end, piece_tokens))
    return units


def _cut_word(
    text: str, start: int, end: int, count_tokens: Callable[[str], int], target: int
) -> list[_Unit]:
    """Cut a word longer than the target (a URL, a base64 blob) into the longest fitting pieces."""
    units = []
    while start < end:
        low, high = start + 1, end  # the longest prefix [start, cut) with at most target tokens
        while low < high:
            middle = (low + high + 1) // 2
            if count_tokens(text[start:middle]) <= target:
                low = middle
            else:
                high = middle - 1
        units.append(_Unit(start, low, count_tokens(text[start:low])))
        start = low
    return units


def _windows(tokens: Sequence[int], target: int, overlap: float) -> list[tuple[int, int]]:
    """Greedy windows ``[first, last)`` over unit token counts, with sentence overlap."""
    windows: list[tuple[int, int]] = []
    budget = overlap * target
    first = 0
    while first < len(tokens):
        last, total = first + 1, tokens[first]
        while last < len(tokens) and total + tokens[last] <= target:
            total += tokens[last]
            last += 1
        windows.append((first, last))
        if last == len(tokens):
            break
        first = _overlap_start(tokens, first, last, target, budget)
    return windows


def _overlap_start(tokens: Sequence[int], first: int, last: int, target: int, budget: float) -> int:
    """Where the next window starts: inside ``[first + 1, last]``, so there is always progress."""
    if budget <= 0 or last - first < 2:
        return last
    start, carried = last - 1, tokens[last - 1]
    while start - 1 > first and carried + tokens[start - 1] <= budget:
        start -= 1
        carried += tokens[start]
    # Leave room for at least one new unit, or the next window would repeat this one's tail.
    while start < last and carried + tokens[last] > target:
        carried -= tokens[start]
        start += 1
    return start


def _page_runs(units: Sequence[_Unit], pages: Sequence[Page]) -> list[tuple[int, int]]:
    """The units in runs ``[first, last)`` that chunk on their own: a run ends before a unit
    when a page break falls after the start of the unit before it and no later than its own
    start, that is between the two units or inside the one before (a sentence the page cut,
    which so ends the chunk that holds it: the next page's sentences cite that page alone)."""
    breaks = [page.start for page in pages[1:]]
    runs: list[tuple[int, int]] = []
    first = 0
    for k in range(1, len(units)):
        at = bisect_right(breaks, units[k - 1].start)
        if at < len(breaks) and breaks[at] <= units[k].start:
            runs.append((first, k))
            first = k
    if units:
        runs.append((first, len(units)))
    return runs


def _pages_within(pages: Sequence[Page], start: int, end: int, length: int) -> list[Page]:
    """The pages whose text overlaps ``[start, end)``: each runs to the next one's start."""
    if not pages:
        return []
    ends = [page.start for page in pages[1:]] + [length]
    return [
        page
        for page, page_end in zip(pages, ends, strict=True)
        if page.start < end and start < page_end
    ]


def _heading_span(heading: Heading) -> tuple[int, int]:
    return heading.start, heading.start + 1


def _link_span(link: RawLink) -> tuple[int, int]:
    return link.start, link.end


def _assign(
    spans: Sequence[tuple[int, int]], items: Sequence[_T], span_of: Callable[[_T], tuple[int, int]]
) -> list[list[_T]]:
    """Give each item to the first chunk that contains it (else the first holding its start)."""
    assigned: list[list[_T]] = [[] for _ in spans]
    ends = [end for _, end in spans]
    for item in items:
        start, end = span_of(item)
        # Chunk starts and ends both increase, so the chunks holding `start` are consecutive.
        holding_start: list[int] = []
        for k in range(bisect_right(ends, start), len(spans)):
            if spans[k][0] > start:
                break
            holding_start.append(k)
        if not holding_start:
            continue  # outside every chunk: the span is not in the text
        whole = [k for k in holding_start if end <= spans[k][1]]
        assigned[(whole or holding_start)[0]].append(item)
    return assigned


def _chunk_link(
    link: RawLink,
    doc: SourceDocument,
    sentences: Sequence[tuple[int, int]],
    sentence_starts: Sequence[int],
) -> ChunkLink | None:
    target = resolve_href(link.href, doc.id)
    if target is None:
        return None
    k = max(bisect_right(sentence_starts, link.start) - 1, 0)
    sentence_start, sentence_end = sentences[k]
    return ChunkLink(
        href=link.href,
        anchor_text=link.anchor_text,
        context=doc.text[sentence_start:sentence_end],
        target_document=target[0],
        fragment=target[1],
    )
