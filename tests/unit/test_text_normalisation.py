"""normalise_text and its offset-mapping twin agree, and mapped spans land on the same words."""

from __future__ import annotations

import random
import unicodedata

import pytest

from anchorgraph.text.normalise import normalise_text, normalise_with_offsets


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Cafe\u0301", "Café"),  # combining accent composed (NFC)
        ("e\u200b\u0301", "é"),  # a zero-width space must not block composition
        ("\u1100\u1161\u11a8", "각"),  # Hangul jamo compose
        ("a\r\nb\rc", "a\nb\nc"),
        ("a\tb\u00a0c\u2003d\u3000e", "a b c d e"),
        ("a  \t  b", "a b"),
        ("zero\u200bwidth\u200d joiner\ufeff", "zerowidth joiner"),
        ("line   \nnext\t\n", "line\nnext"),
        ("a\n\n\n\n\nb", "a\n\nb"),
        ("a\n \n \nb", "a\n\nb"),  # lines of spaces are blank lines
        ("  \n\n padded \n\n ", "padded"),
        ("a\u2028b", "a\nb"),
    ],
)
def test_normalise_text(raw: str, expected: str) -> None:
    assert normalise_text(raw) == expected


def test_normalise_text_is_idempotent() -> None:
    messy = " \ufeffTitle\u00a0\u00a0here\r\n\r\n\r\n\tBody  with e\u0301 and\u200b tabs\t\n"
    once = normalise_text(messy)
    assert normalise_text(once) == once
    assert once == "Title here\n\n Body with é and tabs"  # leading indentation is kept


# Characters that normalisation composes, replaces or removes, plus plain ones around them.
TRICKY = (
    "ae x. \n\r\t\u00a0\u3000\u200b\ufeff\u0301\u0308\u0327\u1100\u1161\u11a8\u0bc6\u0bbe\u212bÅ"
)


@pytest.mark.parametrize("seed", range(200))
def test_offset_twin_produces_the_same_text(seed: int) -> None:
    rng = random.Random(seed)
    raw = "".join(rng.choice(TRICKY) for _ in range(rng.randint(0, 40)))
    text, _ = normalise_with_offsets(raw)
    assert text == normalise_text(raw)
    assert unicodedata.is_normalized("NFC", text)


def test_mapped_spans_cover_the_same_words() -> None:
    words = ["Cafe\u0301", "nai\u0308ve", "\u1100\u1161\u11a8", "link", "end"]
    separators = ["\r\n\t ", "\u00a0\u200b ", "\n\n\n\n", "   \u3000", ""]
    raw, spans = " \n", []
    for word, separator in zip(words, separators, strict=True):
        spans.append((len(raw), len(raw) + len(word)))
        raw += word + separator
    text, moved = normalise_with_offsets(raw)
    for (start, end), word in zip(spans, words, strict=True):
        assert text[moved(start) : moved(end)] == normalise_text(word)


def test_offsets_inside_removed_text_snap_forward() -> None:
    raw = "a    b"
    text, moved = normalise_with_offsets(raw)
    assert text == "a b"
    assert moved(2) == 2  # inside the collapsed run: just after the single space
    assert moved(len(raw)) == len(text)
