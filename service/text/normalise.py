"""Text normalisation: Unicode NFC and whitespace, with an offset map for readers that need one.

Every character offset anchorgraph stores refers to normalised text, so normalisation runs before
any offset is computed. Readers that find spans in markup (links, headings) build the text first
and then call :func:`normalise_with_offsets`, which returns the same text as
:func:`normalise_text` plus a map that moves their spans into it.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass

# Line separators other than "\n": CRLF, CR, NEL, vertical tab, form feed, LS, PS.
_LINE_BREAKS = re.compile("\r\n?|[\x85\x0b\x0c\u2028\u2029]")
# Invisible characters that split words for search without showing: zero-width space/joiners,
# word joiner, BOM, soft hyphen, Mongolian vowel separator.
_INVISIBLE = re.compile("[\u200b\u200c\u200d\u2060\ufeff\u00ad\u180e]")
# A run of spaces, tabs and Unicode space separators (category Zs).
_SPACES = re.compile("[ \t\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]+")
_TRAILING_SPACES = re.compile(" +(?=\n)")
_BLANK_LINES = re.compile("\n{3,}")
_ENDS = re.compile(r"\A[ \n]+|[ \n]+\Z")

Replacement = str | Callable[[re.Match[str]], str]

# The regex steps around NFC, in order; NFC runs between the second and the third.
_BEFORE_NFC: tuple[tuple[re.Pattern[str], Replacement], ...] = (
    (_LINE_BREAKS, "\n"),
    (_INVISIBLE, ""),
)
_AFTER_NFC: tuple[tuple[re.Pattern[str], Replacement], ...] = (
    (_SPACES, " "),
    (_TRAILING_SPACES, ""),
    (_BLANK_LINES, "\n\n"),
    (_ENDS, ""),
)


def normalise_text(text: str) -> str:
    """Normalise Unicode and whitespace so that equal-looking texts are equal strings.

    Line breaks become ``\\n``; zero-width characters are removed; the text is put in NFC;
    tabs, no-break and other Unicode spaces become ``' '`` and runs of spaces collapse to one;
    trailing spaces on each line are dropped; three or more newlines become two; both ends are
    stripped.

    Args:
        text: Any text.

    Returns:
        The normalised text (idempotent: normalising it again changes nothing).
    """
    for pattern, replacement in _BEFORE_NFC:
        text = pattern.sub(replacement, text)
    text = unicodedata.normalize("NFC", text)
    for pattern, replacement in _AFTER_NFC:
        text = pattern.sub(replacement, text)
    return text


@dataclass(frozen=True)
class _Edits:
    """One step's replacements: input ``[starts[k], ends[k])`` became ``lengths[k]`` chars."""

    starts: list[int]
    ends: list[int]
    lengths: list[int]
    shifts: list[int]  # total length change made by the edits before edit k

    @classmethod
    def of(cls, edits: list[tuple[int, int, int]]) -> _Edits:
        shifts, total = [], 0
        for start, end, length in edits:
            shifts.append(total)
            total += length - (end - start)
        return cls(
            starts=[e[0] for e in edits],
            ends=[e[1] for e in edits],
            lengths=[e[2] for e in edits],
            shifts=shifts,
        )

    def map(self, offset: int) -> int:
        k = bisect_right(self.starts, offset) - 1
        if k < 0:
            return offset
        out_start = self.starts[k] + self.shifts[k]
        if offset == self.starts[k]:
            return out_start
        if offset < self.ends[k]:
            # Inside replaced text: snap to the end of the replacement.
            return out_start + self.lengths[k]
        return offset + self.shifts[k] + self.lengths[k] - (self.ends[k] - self.starts[k])


class OffsetMap:
    """Moves an offset in the original text to the matching offset in the normalised text.

    An offset inside text that normalisation replaced or removed moves to the end of the
    replacement, so a span that started on removed whitespace starts on the next kept character.
    """

    def __init__(self, steps: list[_Edits], source_length: int) -> None:
        self._steps = steps
        self._source_length = source_length

    def __call__(self, offset: int) -> int:
        """Map one offset (0 ≤ offset ≤ len(original text))."""
        offset = min(max(offset, 0), self._source_length)
        for step in self._steps:
            offset = step.map(offset)
        return offset


def normalise_with_offsets(text: str) -> tuple[str, OffsetMap]:
    """Normalise ``text`` exactly as :func:`normalise_text` does and map offsets across.

    Args:
        text: Text whose spans were located before normalisation.

    Returns:
        The normalised text and a callable that maps an offset in ``text`` into it.
    """
    steps: list[_Edits] = []
    source_length = len(text)
    for pattern, replacement in _BEFORE_NFC:
        text = _apply(pattern, replacement, text, steps)
    text = _apply_nfc(text, steps)
    for pattern, replacement in _AFTER_NFC:
        text = _apply(pattern, replacement, text, steps)
    return text, OffsetMap(steps, source_length)


def _apply(
    pattern: re.Pattern[str], replacement: Replacement, text: str, steps: list[_Edits]
) -> str:
    edits: list[tuple[int, int, int]] = []
    parts: list[str] = []
    last = 0
    for match in pattern.finditer(text):
        new = replacement if isinstance(replacement, str) else replacement(match)
        if new == match.group():
            continue  # a lone ' ' replaced by ' ' is no edit
        parts.append(text[last : match.start()])
        parts.append(new)
        edits.append((match.start(), match.end(), len(new)))
        last = match.end()
    if not edits:
        return text
    parts.append(text[last:])
    steps.append(_Edits.of(edits))
    return "".join(parts)


def _apply_nfc(text: str, steps: list[_Edits]) -> str:
    if unicodedata.is_normalized("NFC", text):
        return text
    edits: list[tuple[int, int, int]] = []
    parts: list[str] = []
    for start, end in _nfc_segments(text):
        segment = text[start:end]
        normal = unicodedata.normalize("NFC", segment)
        if normal != segment:
            edits.append((start, end, len(normal)))
        parts.append(normal)
    steps.append(_Edits.of(edits))
    return "".join(parts)


def _nfc_segments(text: str) -> Iterator[tuple[int, int]]:
    """Split text where NFC of the parts, joined, equals NFC of the whole.

    A character starts a new segment unless it is a combining mark or composes with what came
    before (Hangul jamo, some Indic vowel signs); the check asks NFC itself, so no table is
    needed. Everything below U+0300 is a safe boundary and skips the check.
    """
    start = 0
    for i in range(1, len(text)):
        char = text[i]
        if char >= "\u0300":
            if unicodedata.combining(char):
                continue
            head = text[start:i]
            if unicodedata.normalize("NFC", head + char) != unicodedata.normalize(
                "NFC", head
            ) + unicodedata.normalize("NFC", char):
                continue
        yield start, i
        start = i
    if text:
        yield start, len(text)
