"""Links for corpora that have none: a mention of another document's title becomes a link to it.

Wikipedia-style corpora (HotpotQA, most BEIR sets) come as plain paragraphs whose only structure is
a title each. Where one paragraph names another's title, that mention is what a hyperlink would
have been, so ``--link-titles`` turns it into a :class:`~anchorgraph.loaders.model.RawLink`; the
chunker then makes it a chunk link whose context is the mention's sentence, as for any written link.

The rules, and why:

* **Exact and case-aware.** ``"Paris"`` links ``Paris``, not ``paris`` or ``PARIS``: case is most
  of what tells a name from a word. HTML character references in a title (``A&amp;W``, which
  HotpotQA's titles carry) are decoded first, because the texts never contain them.
* **Whole words.** A title that starts (ends) with a letter or digit must not have one just before
  (after) it: ``Paris`` does not match inside ``Parisian``, but does in ``Paris's``.
* **Longest first, no overlaps.** The text is read left to right; at each word the longest title
  that starts there wins and the scan resumes after it, so ``New York City`` beats ``New York``
  and a title inside a longer matched one is never linked on its own.
* **A disambiguator is dropped too.** Wikipedia's ``Kiss and Tell (1945 film)`` is written
  ``Kiss and Tell`` in a text, so a title ending in a parenthesis also links by the words before
  it (:func:`short_form`), when they are two words or more, would not be skipped as a title, and
  are no other document's title or short form.
* **Titles that cannot link are skipped** (:class:`SkipReason`): shorter than 4 characters,
  without a letter (years, ``5:55``), a single common word (:data:`COMMON_WORDS`, or all lower
  case), shared by two or more documents (ambiguous: which one would it mean?), or whose id no
  href can name.
* **Never to itself, nor inside its own title.** A document's mentions of its own title are not
  links, and they hide the titles inside them (``New York City Marathon``'s text saying its own
  name does not link ``New York City``).
* **Written links win.** Nothing overlaps a link the document already has, and a target it
  already links to is not linked again.
* **One link per target per document**: the first mention (see :func:`link_titles`).

Speed: titles are looked up by their first token, so each token of the text costs a dict lookup
per distinct length of the titles starting with it (:meth:`TitleIndex.mentions`). On HotpotQA
dev500's corpus (4,858 paragraphs, 4,851 Wikipedia titles indexed) building the index and linking
every paragraph took 0.4–0.8 s on one core of a shared 2-core machine, about 0.1 ms a paragraph;
one regex alternation of the titles sorted by length, measured first, took 7–11 s.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from types import MappingProxyType
from typing import NamedTuple
from urllib.parse import quote

from anchorgraph.loaders.chunking import sentence_spans
from anchorgraph.loaders.links import resolve_href
from anchorgraph.loaders.model import ChunkLink, RawLink, SourceDocument
from anchorgraph.text.normalise import normalise_text

MIN_TITLE_LENGTH = 4  # characters; "AXN", "Oak" and "Fen" are skipped, "INXS" and "Azra" kept
# The query marks a link as made here, not written: resolve_href drops the query of a relative
# href, so the target is still the id, and the graph can tell (and replace) title links by href.
TITLE_LINK_MARK = "?link=title"
_EXAMPLES = 5  # titles kept per skip reason for the report

# One-word titles that are too common to mean the document. Matching is case-aware, so these only
# matter capitalised, which is mostly at the start of a sentence ("However, ...", "Music is ...").
# Function words and the most frequent nouns of English; compared case-insensitively.
COMMON_WORDS = frozenset(
    {
        "a", "about", "above", "after", "again", "against", "all", "also", "although",
        "always", "among", "an", "and", "another", "any", "are", "as", "at", "back", "be",
        "because", "been", "before", "being", "below", "between", "both", "but", "by",
        "can", "could", "did", "do", "does", "down", "during", "each", "either", "even",
        "ever", "every", "few", "first", "for", "from", "further", "had", "has", "have",
        "having", "he", "her", "here", "hers", "him", "his", "how", "however", "i", "if",
        "in", "into", "is", "it", "its", "just", "last", "later", "least", "less", "many",
        "may", "me", "more", "most", "much", "must", "my", "neither", "never", "new",
        "next", "no", "nor", "not", "now", "of", "off", "often", "old", "on", "once", "one",
        "only", "or", "other", "our", "out", "over", "own", "same", "she", "should",
        "since", "so", "some", "still", "such", "than", "that", "the", "their", "them",
        "then", "there", "these", "they", "this", "those", "though", "through", "thus",
        "to", "today", "too", "two", "under", "until", "up", "upon", "very", "was", "we",
        "were", "what", "when", "where", "whether", "which", "while", "who", "whom",
        "whose", "why", "will", "with", "within", "without", "would", "yet", "you", "your",
        "age", "air", "album", "art", "band", "body", "book", "boy", "city", "country",
        "day", "death", "earth", "end", "energy", "family", "father", "film", "fire",
        "food", "football", "friends", "game", "girl", "god", "gold", "good", "great",
        "head", "heart", "heaven", "history", "home", "hope", "house", "island", "king",
        "land", "life", "light", "love", "man", "money", "mother", "music", "name",
        "nature", "news", "night", "paradise", "party", "peace", "people", "power", "queen",
        "river", "road", "school", "science", "sea", "song", "sound", "space", "spring",
        "star", "state", "stories", "story", "summer", "sun", "time", "truth",
        "war", "water", "way", "winter", "woman", "women", "word", "work", "world", "year",
        "young",
    }
)  # fmt: skip

_TOKEN = re.compile(r"\w+|[^\w\s]")  # a word, or one character of punctuation
_WORD = re.compile(r"\w")
_LETTER = re.compile(r"[^\W\d_]")
_DISAMBIGUATED = re.compile(r"(.+?) \([^()]+\)")


class SkipReason(StrEnum):
    """Why a document's title links nothing (checked in this order)."""

    SHORT = "short"  # fewer than MIN_TITLE_LENGTH characters
    NO_LETTERS = "no_letters"  # only digits and punctuation: "1999", "5:55"
    COMMON_WORD = "common_word"  # one word, all lower case or in COMMON_WORDS
    AMBIGUOUS = "ambiguous"  # the same text (case-sensitive) is the title of 2+ documents
    UNLINKABLE_ID = "unlinkable_id"  # no href resolves back to the document's id


class Mention(NamedTuple):
    """A title found in a text: ``text[start:end]`` is the title of ``target``."""

    start: int
    end: int
    target: str  # document id


class ChunkSpan(NamedTuple):
    """Where a stored chunk sits in its document's text (the graph's Chunk start and end)."""

    id: str
    start: int
    end: int


@dataclass(frozen=True)
class TitleIndex:
    """The titles that may become links, looked up by their first token.

    Build it with :meth:`build`; ``titles`` maps each linkable title to its document,
    ``skipped`` lists the other documents' titles (one entry per document) by reason.
    """

    titles: Mapping[str, str]  # surface form (or short form) → document id
    skipped: Mapping[SkipReason, tuple[str, ...]]
    # first token → the lengths of the titles starting with it, longest first
    _lengths: Mapping[str, tuple[int, ...]] = field(repr=False)

    @classmethod
    def build(cls, titles: Mapping[str, str]) -> TitleIndex:
        """Index the titles that can link, and record why the others cannot.

        Args:
            titles: Document id → title. Untitled documents (``""``) are left out silently.

        Returns:
            The index; every titled document is either in ``titles`` or in ``skipped``.
        """
        surfaces = {doc_id: surface_form(title) for doc_id, title in titles.items()}
        surfaces = {doc_id: surface for doc_id, surface in surfaces.items() if surface}
        holders = Counter(surfaces.values())
        linkable: dict[str, str] = {}
        skipped: dict[SkipReason, list[str]] = {}
        for doc_id, surface in sorted(surfaces.items()):
            reason = skip_reason(surface) or (
                SkipReason.AMBIGUOUS if holders[surface] > 1 else None
            )
            if reason is None and not href_resolves(doc_id):
                reason = SkipReason.UNLINKABLE_ID
            if reason is None:
                linkable[surface] = doc_id
            else:
                skipped.setdefault(reason, []).append(surface)
        shorts = {doc_id: short_form(surface) for doc_id, surface in surfaces.items()}
        short_holders = Counter(short for short in shorts.values() if short)
        linked_ids = set(linkable.values())
        for doc_id, short in sorted(shorts.items()):
            unique = short_holders[short] == 1 and short not in holders
            if short and unique and doc_id in linked_ids:
                linkable[short] = doc_id
        lengths: dict[str, set[int]] = {}
        for surface in linkable:
            lengths.setdefault(_first_token(surface), set()).add(len(surface))
        return cls(
            titles=MappingProxyType(linkable),
            skipped=MappingProxyType(
                {reason: tuple(skipped[reason]) for reason in SkipReason if reason in skipped}
            ),
            _lengths=MappingProxyType(
                {token: tuple(sorted(ns, reverse=True)) for token, ns in lengths.items()}
            ),
        )

    def mentions(self, text: str) -> Iterator[Mention]:
        """The leftmost-longest, non-overlapping mentions of indexed titles in ``text``.

        At each token, the text is cut at every length of a title starting with that token,
        longest first, and the first cut that is a title ending on a word boundary wins: one
        dict lookup per distinct length instead of a comparison per title.
        """
        resume = 0
        for token in _TOKEN.finditer(text):
            start = token.start()
            if start < resume:
                continue  # inside the previous mention
            for length in self._lengths.get(token.group(), ()):
                end = start + length
                cut = text[start:end]
                target = self.titles.get(cut)
                if target is not None and _ends_on_boundary(text, end, cut):
                    yield Mention(start, end, target)
                    resume = end
                    break


def surface_form(title: str) -> str:
    """The title as a text would write it: HTML references decoded, whitespace normalised."""
    return normalise_text(html.unescape(title))


def short_form(surface: str) -> str:
    """The title without a trailing disambiguator, ``"Kiss and Tell (1945 film)"`` →
    ``"Kiss and Tell"``, when that is two words or more and would not be skipped; else ``""``."""
    match = _DISAMBIGUATED.fullmatch(surface)
    if match is None:
        return ""
    short = match.group(1)
    return short if " " in short and skip_reason(short) is None else ""


def skip_reason(title: str) -> SkipReason | None:
    """Why ``title`` (a surface form) cannot link whatever the other titles are, or None."""
    if len(title) < MIN_TITLE_LENGTH:
        return SkipReason.SHORT
    if not _LETTER.search(title):
        return SkipReason.NO_LETTERS
    if " " not in title and (title.islower() or title.casefold() in COMMON_WORDS):
        return SkipReason.COMMON_WORD
    return None


def title_link_href(document_id: str) -> str:
    """The href of a title link to ``document_id``: rooted, percent-escaped, marked.

    The leading ``/`` makes :func:`~anchorgraph.loaders.links.resolve_href` read the id from the
    ingest root instead of the linking document's folder, the escaping keeps ``#``, ``?``, ``%`` and
    ``:`` in an id from reading as a fragment, query, escape or scheme, and :data:`TITLE_LINK_MARK`
    (a query, which resolution drops) tells title links from written ones.
    """
    return "/" + quote(document_id, safe="/") + TITLE_LINK_MARK


def href_resolves(document_id: str, from_document: str = "") -> bool:
    """Whether the title link href of ``document_id``, found in ``from_document``, leads back to
    it. False for ids that path normalisation changes (``a/../b``, ``./a``, ``a/``) and for
    links out of a document whose id is a web URL (relative hrefs in it are URLs)."""
    return resolve_href(title_link_href(document_id), from_document) == (document_id, "")


def is_title_link(link: RawLink | ChunkLink) -> bool:
    """Whether the link was made by title linking (its href ends with :data:`TITLE_LINK_MARK`)."""
    return link.href.endswith(TITLE_LINK_MARK)


def link_titles(document: SourceDocument, index: TitleIndex) -> SourceDocument:
    """The document with a :class:`RawLink` added for each mention of another document's title.

    ``href`` is :func:`title_link_href` of the target id, ``anchor_text`` the matched text and
    ``start``/``end`` its span in ``document.text``. A mention is dropped when it is of the
    document itself, overlaps a link the document has or a mention of its own title, or names a
    target already linked. Links are appended after the document's own, in text order.

    Args:
        document: Any document; its existing links are kept as they are.
        index: The titles that may link (:meth:`TitleIndex.build`).

    Returns:
        A copy with the new links, or ``document`` itself when there are none.
    """
    # The own title as written too: a text may carry it undecoded ("Catan: Cities &amp; ...").
    own_titles = {document.title, surface_form(document.title)}
    own_titles |= {short_form(surface_form(document.title))} - {""}
    blocked = sorted(
        [(link.start, link.end) for link in document.links]
        + [span for title in own_titles for span in _occurrences(document.text, title)]
    )
    # One link per target, the first mention: expansion integrates each landing chunk once per
    # answer, and a link to a whole document lands on its chunk nearest the context, so later
    # mentions mostly land there again; they would add edges (and context embeddings to compute
    # at ingest) and little else. A document's links to different targets are what expand.
    linked = {document.id} | _targets(document)
    added: list[RawLink] = []
    for mention in index.mentions(document.text):
        if mention.target in linked or _overlaps(mention, blocked):
            continue
        if not href_resolves(mention.target, document.id):
            continue  # a document ingested under its URL: see href_resolves
        linked.add(mention.target)
        anchor = document.text[mention.start : mention.end]
        added.append(RawLink(title_link_href(mention.target), anchor, mention.start, mention.end))
    if not added:
        return document
    return replace(document, links=(*document.links, *added))


@dataclass(frozen=True)
class SkippedTitles:
    """How many documents' titles were skipped for one reason, with a few of them."""

    count: int
    examples: tuple[str, ...]


@dataclass(frozen=True)
class LinkReport:
    """What title linking did to a batch of documents."""

    documents_scanned: int
    titles_indexed: int  # documents whose title could link, the batch's and the extra ones
    links_made: int
    documents_linked: int  # documents that got at least one title link
    skipped: Mapping[SkipReason, SkippedTitles]  # by reason, one count per document
    short_forms: int = 0  # of the titles indexed, how many also link without a disambiguator

    def summary(self) -> str:
        """One line for a command's output."""
        skipped = ", ".join(f"{s.count} {reason}" for reason, s in self.skipped.items())
        return (
            f"title links: {self.links_made} links in {self.documents_linked} of "
            f"{self.documents_scanned} documents; {self.titles_indexed} titles indexed "
            f"({self.short_forms} also without their disambiguator), "
            f"skipped: {skipped or 'none'}"
        )


_NO_TITLES: Mapping[str, str] = MappingProxyType({})


def link_corpus(
    documents: Sequence[SourceDocument], extra_titles: Mapping[str, str] = _NO_TITLES
) -> tuple[list[SourceDocument], LinkReport]:
    """Link every document to the titles of the others.

    Args:
        documents: The batch to link (and whose titles link).
        extra_titles: Document id → title of documents that only receive links: those already
            in the graph, for an incremental ingest. A document in ``documents`` overrides its
            id here (its title may have changed).

    Returns:
        The documents in order, linked, and the report.
    """
    titles = {**extra_titles, **{d.id: d.title for d in documents}}
    index = TitleIndex.build(titles)
    linked = [link_titles(document, index) for document in documents]
    made = [
        len(after.links) - len(before.links)
        for before, after in zip(documents, linked, strict=True)
    ]
    report = LinkReport(
        documents_scanned=len(documents),
        titles_indexed=len(set(index.titles.values())),
        links_made=sum(made),
        documents_linked=sum(1 for n in made if n),
        skipped=MappingProxyType(
            {
                reason: SkippedTitles(len(titles_), tuple(dict.fromkeys(titles_))[:_EXAMPLES])
                for reason, titles_ in index.skipped.items()
            }
        ),
        short_forms=len(index.titles) - len(set(index.titles.values())),
    )
    return linked, report


def place_links(
    document: SourceDocument, links: Sequence[RawLink], chunks: Sequence[ChunkSpan]
) -> list[tuple[str, ChunkLink]]:
    """Put links into already stored chunks, as
    :func:`~anchorgraph.loaders.chunking.chunk_document` would.

    For a pass over an existing graph, which adds title links without chunking and embedding
    again. A link goes to the first chunk that holds it whole, else the first that holds its
    start (chunks overlap); its context is the sentence of ``sentence_spans(document.text)``
    holding its start; links that lead nowhere or lie outside every chunk are dropped.

    Args:
        document: The stored document (id and text as in the graph).
        links: Links located in ``document.text``, e.g. the title links of :func:`link_titles`.
        chunks: The document's chunks, in reading order.

    Returns:
        ``(chunk id, link)`` pairs in the order of ``links``.
    """
    sentences = sentence_spans(document.text)
    sentence_starts = [start for start, _ in sentences]
    placed: list[tuple[str, ChunkLink]] = []
    for link in links:
        target = resolve_href(link.href, document.id)
        holding = [chunk for chunk in chunks if chunk.start <= link.start < chunk.end]
        if target is None or not holding:
            continue
        whole = [chunk for chunk in holding if link.end <= chunk.end]
        sentence = sentences[max(bisect_right(sentence_starts, link.start) - 1, 0)]
        placed.append(
            (
                (whole or holding)[0].id,
                ChunkLink(
                    href=link.href,
                    anchor_text=link.anchor_text,
                    context=document.text[sentence[0] : sentence[1]],
                    target_document=target[0],
                    fragment=target[1],
                ),
            )
        )
    return placed


def _first_token(title: str) -> str:
    match = _TOKEN.search(title)
    return match.group() if match else title


def _ends_on_boundary(text: str, end: int, title: str) -> bool:
    """A title ending in a word character must not run into another one (``Paris``ian)."""
    return not (end < len(text) and _is_word(title[-1]) and _is_word(text[end]))


def _is_word(character: str) -> bool:
    return _WORD.match(character) is not None


def _occurrences(text: str, title: str) -> list[tuple[int, int]]:
    """Every whole-word occurrence of ``title`` in ``text``, left to right, not overlapping."""
    if not title:
        return []
    spans = []
    at = text.find(title)
    while at >= 0:
        end = at + len(title)
        starts_clean = at == 0 or not (_is_word(title[0]) and _is_word(text[at - 1]))
        if starts_clean and _ends_on_boundary(text, end, title):
            spans.append((at, end))
            at = text.find(title, end)
        else:
            at = text.find(title, at + 1)
    return spans


def _targets(document: SourceDocument) -> set[str]:
    """The documents that ``document``'s own links already lead to."""
    resolved = (resolve_href(link.href, document.id) for link in document.links)
    return {target[0] for target in resolved if target is not None}


def _overlaps(mention: Mention, spans: Sequence[tuple[int, int]]) -> bool:
    return any(start < mention.end and mention.start < end for start, end in spans)
