"""The typed records ingestion passes from step to step: read → normalise → chunk → enrich → write.

Character offsets (``start``/``end``) always refer to the *normalised* document text.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True)
class RawLink:
    """A hyperlink as a reader found it, located in the normalised text."""

    href: str  # as written: "other.md#setup", "https://…", "#local-heading"
    anchor_text: str
    start: int  # span of the anchor text in the normalised document text
    end: int


@dataclass(frozen=True)
class Heading:
    """A heading that a fragment link (``#slug``) can point at."""

    slug: str  # GitHub-style slug: lowercase, spaces to '-', punctuation dropped
    text: str
    level: int
    start: int  # offset of the heading text in the normalised document text


@dataclass(frozen=True)
class Page:
    """Where a page of a paged file (PDF, scan, a Word file with page breaks) begins in the
    normalised text; it runs to the next page's start, so a chunk knows the pages it covers and
    a hit can cite them."""

    number: int  # 1-based, as a reader would cite it
    start: int
    # The mean confidence of the words OCR read on the page, in [0, 1]; None: it had a text
    # layer (or is a Word file's), nothing was guessed.
    ocr_confidence: float | None = None


@dataclass(frozen=True)
class SourceDocument:
    """One document as read from disk or a request, text already normalised (NFC, whitespace)."""

    id: str  # stable: path relative to the ingest root (posix), BEIR _id, or caller-given
    text: str
    title: str = ""
    uri: str = ""  # where it came from (file URI, URL, dataset path)
    source: str = ""  # collection / dataset name
    source_type: str = ""  # e.g. "markdown", "html", "beir", caller-given tier like "review"
    folder: str = ""  # posix folder path relative to the ingest root; "" at the root
    tags: tuple[str, ...] = ()
    links: tuple[RawLink, ...] = ()
    headings: tuple[Heading, ...] = ()
    size_bytes: int = 0
    modified: datetime | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    pages: tuple[Page, ...] = ()  # in order; empty for formats without pages
    # ISO 639-1 code of a language anchorgraph analyses (anchorgraph.text.language); "" until the
    # ingestor resolves it: declared by the caller, by front matter ``language:``, or detected.
    language: str = ""
    # What changes when its file does (``anchorgraph.loaders.sources.Entry.revision``): a sync
    # reads again only the files whose revision differs from the one stored; "" when unknown.
    revision: str = ""

    @property
    def ocr_confidence(self) -> float | None:
        """The mean OCR confidence of the pages OCR read (None when it read none)."""
        return mean_confidence(self.pages)


def mean_confidence(pages: Iterable[Page]) -> float | None:
    """The mean OCR confidence of those of ``pages`` that OCR read, or None."""
    read = [page.ocr_confidence for page in pages if page.ocr_confidence is not None]
    return sum(read) / len(read) if read else None


@dataclass(frozen=True)
class ChunkLink:
    """A link inside one chunk: the anchor, the sentence around it, and the resolved target."""

    href: str
    anchor_text: str
    context: str  # the sentence that contains the anchor
    target_document: str  # resolved document id (or the absolute URL for external links)
    fragment: str  # heading slug after '#', "" for a whole-document link


@dataclass(frozen=True)
class Chunk:
    """A sentence-aligned window of a document."""

    id: str  # f"{document_id}#{ordinal}"
    document_id: str
    ordinal: int
    text: str
    start: int
    end: int
    n_tokens: int
    heading_slugs: tuple[str, ...] = ()  # headings that start inside this chunk
    links: tuple[ChunkLink, ...] = ()
    # The page numbers its text covers (paged files only): one, or two for a sentence across a
    # page break.
    pages: tuple[int, ...] = ()
    ocr_confidence: float | None = None  # the mean of its OCR-read pages' confidences


@dataclass(frozen=True)
class EntityMention:
    """An entity found in a chunk, already resolved to its normalised id."""

    entity_id: str  # normalised: NFC, casefolded, aliases resolved to the canonical name
    name: str  # canonical display name
    type: str  # spaCy label (ORG, PERSON, …), gazetteer type, or IDENTIFIER
    chunk_id: str
    count: int
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class Triple:
    """A subject–predicate–object relation read from one chunk's dependency parse."""

    subject_id: str  # entity ids, as in EntityMention.entity_id
    predicate: str  # lemma of the verb (with particle/preposition), e.g. "acquire", "base in"
    object_id: str
    text: str  # "subject predicate object" as a sentence-like string, embedded for search
    chunk_id: str
