"""Identifiers and entity ids: what ingestion and query analysis must agree on.

An entity is known by a normalised id (:func:`normalise_entity_id`); product codes, serial numbers
and acronyms are found by patterns (:func:`find_identifiers`), the same at ingest and at query time.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

IDENTIFIER = "IDENTIFIER"
ACRONYM = "ACRONYM"

# Punctuation stripped from both ends of an entity name; '#', '+', '&' are kept ("C#", "C++").
_SURROUNDING_PUNCTUATION = " \"'`“”‘’«»()[]{}<>.,;:!?…-–—*_/\\|"
_WHITESPACE = re.compile(r"\s+")


def normalise_entity_id(name: str) -> str:
    """The id an entity name is known by: NFC, casefolded, single spaces, no outer punctuation.

    Args:
        name: A surface form, e.g. ``" MAC "``, ``"Mac"``, ``'"Acme Corp."'``.

    Returns:
        The id, e.g. ``"mac"``, ``"acme corp"``; ``""`` when nothing but punctuation is left.
    """
    name = unicodedata.normalize("NFC", name).casefold()
    return _WHITESPACE.sub(" ", name).strip(_SURROUNDING_PUNCTUATION)


def without_accents(text: str) -> str:
    """``text`` with its combining marks removed: decomposed (NFD), marks (Unicode category
    ``Mn``) dropped, composed again (NFC). ``"contemporânea"`` → ``"contemporanea"``, ``"são
    paulo"`` → ``"sao paulo"``; letters that are not a base plus a mark stay (``"ß"``, ``"ø"``)."""
    decomposed = unicodedata.normalize("NFD", text)
    bare = "".join(char for char in decomposed if unicodedata.category(char) != "Mn")
    return unicodedata.normalize("NFC", bare)


def entity_keys(name: str) -> list[str]:
    """The keys a name matches an entity by, case and accents aside: its id
    (:func:`normalise_entity_id`) and, when it differs, the id without accents. Ingestion stores
    both for every entity (the second as an alias key) and a query looks both up, so that
    "Contemporanea", typed or read by OCR without its accent, finds "Contemporânea" and the other
    way round. Empty when the name is nothing but punctuation."""
    key = normalise_entity_id(name)
    return list(dict.fromkeys(k for k in (key, without_accents(key)) if k))


def alias_keys(entity_id: str, aliases: Iterable[str]) -> set[str]:
    """The keys besides its id that find an entity: each alias's and the id's own
    (:func:`entity_keys`, so also without accents), less the id itself (an alias that normalises
    to the id, "Mac" of "mac", needs no key of its own)."""
    return {key for name in (entity_id, *aliases) for key in entity_keys(name)} - {entity_id}


# --- Identifier patterns ------------------------------------------------------------------------

# Uppercase letters and digits in hyphen-joined parts: "AG-2048", "XR-7-PRO", "SN-4711-AB-09".
_CODE = re.compile(r"(?<![\w-])[A-Z0-9]+(?:-[A-Z0-9]+)+(?![\w-])")
# A serial number after a label: "S/N 4711AB09", "Serial No. 12-345". The number is the match.
_SERIAL = re.compile(
    r"(?<![\w/])(?i:s/n|serial\s+(?:no\.?|number))[:#]?\s*"
    r"(?P<serial>[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)(?![\w-])"
)
# An all-caps word, digits allowed, maybe with a plural "s": "NASA", "GPT4", "APIs".
_ACRONYM = re.compile(r"(?<![\w-])(?P<acronym>[A-Z][A-Z0-9]*[A-Z0-9])s?(?![\w-])")
_ACRONYM_LETTERS = range(2, 7)
_ACRONYM_MAX_CHARS = 8
# Three or more all-caps words in a row are shouting ("READ THE TERMS"), not acronyms.
_SHOUTING = re.compile(r"\b[A-Z]{2,}(?:[ ,]+[A-Z]{2,}){2,}\b")
_ROMAN_NUMERAL = re.compile(r"[IVX]+")
_CAPITALISED_WORDS = frozenset(
    {
        "A", "AM", "AN", "AND", "ANY", "ARE", "AS", "AT", "BE", "BUT", "BY", "CAN", "DO", "FOR",
        "FREE", "FROM", "HAS", "HAVE", "HE", "IF", "IN", "IS", "IT", "ME", "MUST", "MY", "NEW",
        "NO", "NOT", "NOTE", "OF", "OK", "ON", "ONLY", "OR", "OUR", "PM", "SHE", "SO", "THAT",
        "THE", "THIS", "TO", "UP", "US", "WAS", "WE", "WITH", "YES", "YOU",
    }
)  # fmt: skip


@dataclass(frozen=True)
class Found:
    """An entity occurrence in one chunk's text."""

    start: int
    end: int
    surface: str
    type: str
    entity_id: str = ""


def find_identifiers(text: str) -> list[str]:
    """Product codes, serial numbers and acronyms in ``text``, as written.

    Codes are uppercase letters and digits joined by hyphens with at least one of each
    (``AG-2048``, ``XR-7-PRO``, ``SN-4711-AB-09``); a serial number after ``S/N`` or
    ``Serial No.`` is returned without the label (``4711AB09``); acronyms are all-caps words of
    2–6 letters, digits allowed (``NASA``, ``GPT4``, ``APIs`` → ``API``), not common words written
    in capitals (``THE``, ``IS``), not Roman numerals (``IV``) and not inside shouted text.

    Args:
        text: A document chunk or a query.

    Returns:
        Distinct identifiers in order of first appearance.
    """
    return list(dict.fromkeys(found.surface for found in identifier_spans(text)))


def identifier_spans(text: str) -> list[Found]:
    found = [
        Found(m.start(), m.end(), m.group(), IDENTIFIER)
        for m in _CODE.finditer(text)
        if any(c.isdigit() for c in m.group()) and any(c.isalpha() for c in m.group())
    ]
    found += [
        Found(m.start("serial"), m.end("serial"), m.group("serial"), IDENTIFIER)
        for m in _SERIAL.finditer(text)
        if any(c.isdigit() for c in m.group("serial")) and len(m.group("serial")) >= 4
    ]
    shouting = [m.span() for m in _SHOUTING.finditer(text)]
    for m in _ACRONYM.finditer(text):
        word, start = m.group("acronym"), m.start()
        if (
            sum(c.isalpha() for c in word) in _ACRONYM_LETTERS
            and len(word) <= _ACRONYM_MAX_CHARS
            and word not in _CAPITALISED_WORDS
            and not _ROMAN_NUMERAL.fullmatch(word)
            and not any(low <= start < high for low, high in shouting)
        ):
            found.append(Found(start, m.end("acronym"), word, ACRONYM))
    found.sort(key=lambda f: f.start)
    return [f for k, f in enumerate(found) if not overlaps_any(f, found[:k])]


def overlaps_any(found: Found, others: Iterable[Found]) -> bool:
    return any(found.start < other.end and other.start < found.end for other in others)
