"""Languages: which of the languages anchorgraph analyses a text is written in.

Lexical search analyses a document with the Lucene analyzer of its language (stemming, stop
words) and a query with the analyzer of its own (``cypher/schema/fulltext_indexes.cypher``).
anchorgraph analyses English, Portuguese and Italian, the languages its users' archives are
written in; a text in any other language is analysed as English.

Detection is lingua's (https://github.com/pemistahl/lingua-py, offline, maintained), restricted
to those three languages and in its low-accuracy mode: trigram models only, which load in about
0.1 s where the full ones take 1.8 s (a command-line search pays that once), and which on these
three languages told apart every query of the tests, down to two words ("empréstimos de obras").
A text whose most likely language is less sure than ``MIN_CONFIDENCE`` (an identifier such as
"MAC-ARQ-1978-138", a bare number) gets the default.
"""

from __future__ import annotations

from enum import StrEnum
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lingua import LanguageDetector

# Below this confidence (lingua's, in [0, 1], summing to 1 over the three) the default holds.
MIN_CONFIDENCE = 0.8
# Characters of a document that detection reads: its start tells its language, and a long
# document would otherwise cost milliseconds for nothing.
DETECTION_CHARS = 2_000


class Language(StrEnum):
    """A language anchorgraph analyses, by its ISO 639-1 code."""

    ENGLISH = "en"
    PORTUGUESE = "pt"
    ITALIAN = "it"

    @property
    def analyzer(self) -> str:
        """The Lucene analyzer Neo4j ships for it (``db.index.fulltext.listAvailableAnalyzers``)."""
        return self.name.lower()

    @property
    def labels(self) -> tuple[str, str]:
        """The labels its chunks and documents carry (``PortugueseChunk``,
        ``PortugueseDocument``), over which its full-text indexes are; none for English, whose
        indexes hold every chunk and document, as they always did."""
        if self is Language.ENGLISH:
            return ("", "")
        name = self.name.capitalize()
        return (f"{name}Chunk", f"{name}Document")

    @property
    def fulltext_indexes(self) -> tuple[str, str]:
        """Its full-text indexes over chunk text and document text
        (``cypher/schema/fulltext_indexes.cypher``)."""
        if self is Language.ENGLISH:
            return ("chunk_text", "document_text")
        return (f"chunk_text_{self.analyzer}", f"document_text_{self.analyzer}")


def language_labels(code: str) -> tuple[list[str], list[str]]:
    """The labels of a chunk and of a document in the language of ``code`` (as stored; "" or
    a code not analysed: English), each as the list a dynamic label takes."""
    try:
        chunk, document = language_of(code).labels if code else ("", "")
    except ValueError:
        chunk, document = ("", "")
    return ([chunk] if chunk else [], [document] if document else [])


ALL_DOCUMENT_LABELS = [language.labels[1] for language in Language if language.labels[1]]
"""Every language label a document may carry: a document written again loses the one it had."""


def language_of(code: str) -> Language:
    """The language of an ISO 639-1 code or an English name ("pt", "Portuguese").

    Raises:
        ValueError: not a language anchorgraph analyses (the message lists them).
    """
    wanted = code.strip().lower()
    for language in Language:
        if wanted in (language.value, language.name.lower()):
            return language
    known = ", ".join(f"{language.value} ({language.name.lower()})" for language in Language)
    raise ValueError(f"{code!r} is not a language anchorgraph analyses: {known}")


def detect_language(text: str, default: Language = Language.ENGLISH) -> Language:
    """The most likely of ``Language`` for ``text`` (its first ``DETECTION_CHARS`` characters),
    or ``default`` when that is less sure than ``MIN_CONFIDENCE``."""
    sample = text[:DETECTION_CHARS]
    if not any(character.isalpha() for character in sample):
        return default
    values = _detector().compute_language_confidence_values(sample)
    if not values or values[0].value < MIN_CONFIDENCE:
        return default
    return Language(values[0].language.iso_code_639_1.name.lower())


@cache
def _detector() -> LanguageDetector:
    """Built at the first detection, not at import (lingua loads its models lazily too)."""
    from lingua import Language as Lingua
    from lingua import LanguageDetectorBuilder

    languages = [getattr(Lingua, language.name) for language in Language]
    return LanguageDetectorBuilder.from_languages(*languages).with_low_accuracy_mode().build()
