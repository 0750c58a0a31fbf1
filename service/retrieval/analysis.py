"""Query analysis in three steps, each adding to the last, so that every path starts as soon as
what it needs is known: ``prepare`` (normalise, Lucene query, TF-IDF terms, candidate entity
ids; no I/O), ``embed`` (the one embedding) and ``analyse`` (the entities the query names, one
round trip). Entities are looked up in the search's collections only."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

from anchorgraph.embedding import Embedder
from anchorgraph.graph.queries import Query
from anchorgraph.retrieval.lucene import fulltext_query, phrase_query
from anchorgraph.retrieval.paths.base import Reader, index_depth
from anchorgraph.retrieval.values import (
    AnalyzedQuery,
    DetectedEntity,
    EmbeddedQuery,
    LexicalQuery,
    Scope,
)
from anchorgraph.scope import scoped, scoped_all
from anchorgraph.text.identifiers import (
    entity_keys,
    find_identifiers,
    identifier_spans,
    normalise_entity_id,
)
from anchorgraph.text.language import Language, detect_language
from anchorgraph.text.normalise import normalise_text
from anchorgraph.text.terms import index_terms

# Words, keeping codes such as "AG-2048" or "S/N" whole.
_TOKEN = re.compile(r"\w[\w\-/.]*\w|\w")
MAX_NGRAM = 4
# Cosine floors for entities found by meaning rather than by name. MiniLM puts a short name and
# a sentence about it at about 0.5–0.7, so a floor much higher would rarely let one through.
MIN_SEMANTIC = 0.6
MIN_TRIPLE = 0.6
K_SEMANTIC = 5
_PRIORITY = {"exact": 0, "triple": 1, "semantic": 2}


def prepare(text: str, language: Language = Language.ENGLISH) -> LexicalQuery:
    """Everything the lexical paths need, without the model or the database, the query being
    in ``language`` (``query_language``). Entity ids are the normalised n-grams, each also
    without accents (``entity_keys``): aliases resolve in the graph (``detect_entities.cypher``)."""
    normalised = normalise_text(text)
    # Identifiers are written in capitals in documents but often typed in lower case.
    surfaces = find_identifiers(normalised) + find_identifiers(normalised.upper())
    identifier_ids = list(dict.fromkeys(normalise_entity_id(s) for s in surfaces))
    return LexicalQuery(
        text=normalised,
        fulltext=_fulltext(normalised, surfaces),
        terms=sorted(index_terms(normalised)),
        identifier_candidates=identifier_ids,
        entity_candidates=list(dict.fromkeys([*identifier_ids, *_ngram_ids(normalised)])),
        language=language,
    )


def query_language(text: str, scope: Scope) -> Language:
    """The language a query is analysed in: English when every document the scope reads is
    (no detection then, and no detector loaded), else the one detected among the scope's
    languages (English when it is none of them)."""
    if scope.languages <= {Language.ENGLISH}:
        return Language.ENGLISH
    found = detect_language(text)
    return found if found in scope.languages else Language.ENGLISH


def embed(query: LexicalQuery, embedder: Embedder) -> EmbeddedQuery:
    """Add the query's one embedding."""
    return EmbeddedQuery(**vars(query), vector=embedder.embed([query.text])[0].tolist())


def analyse(query: EmbeddedQuery, read: Reader, scope: Scope) -> AnalyzedQuery:
    """Add the entities the query names in the scope's collections, and the entities its
    identifiers name (one round trip). Their ids are entity keys (``anchorgraph.scope``)."""
    records = read(
        Query.DETECT_ENTITIES,
        {
            "candidate_ids": scoped_all(scope.collections, query.entity_candidates),
            "vector": query.vector,
            "k_index": index_depth(K_SEMANTIC, replace(scope, documents=None)),
            "k_semantic": K_SEMANTIC,
            "min_semantic": MIN_SEMANTIC,
            "min_triple": MIN_TRIPLE,
            "collections": scope.collection_filter,
        },
    )
    entities = _best_per_entity(
        DetectedEntity(
            id=r["id"],
            collection=r["collection"] or "",
            name=r["name"] or r["id"],
            type=r["type"] or "",
            how=r["how"],
            score=float(r["score"]),
        )
        for r in records
    )
    # An identifier in the query names an entity by its id or by an alias key: keep the entity,
    # and the query's text that named it.
    named_by = {key: r["id"] for r in records if r["how"] == "exact" for key in r["keys"]}
    written = _identifiers_as_written(query.text)
    as_written: dict[str, str] = {}
    for candidate in query.identifier_candidates:
        for collection in scope.collections:
            if scoped(collection, candidate) in named_by:
                entity = named_by[scoped(collection, candidate)]
                as_written.setdefault(entity, written.get(candidate, candidate))
    return AnalyzedQuery(
        **vars(query),
        identifiers=list(as_written),
        entities=entities,
        identifiers_as_written=as_written,
    )


def _identifiers_as_written(text: str) -> dict[str, str]:
    """Each identifier candidate of ``prepare`` → its first occurrence in ``text`` as written: a
    code typed in lower case is found in the text upper-cased, but shown as typed."""
    upper = text.upper()
    # Offsets in the upper-cased text are the text's only when its length is kept ("ß" → "SS").
    spans = identifier_spans(text) + (identifier_spans(upper) if len(upper) == len(text) else [])
    written: dict[str, str] = {}
    for span in spans:
        written.setdefault(normalise_entity_id(span.surface), text[span.start : span.end])
    return written


def _fulltext(text: str, identifier_surfaces: list[str]) -> str | None:
    """The query's terms, plus each identifier as a phrase so that the exact code outranks its
    near namesakes."""
    clauses = [fulltext_query(text), *map(phrase_query, dict.fromkeys(identifier_surfaces))]
    return " ".join(clause for clause in clauses if clause) or None


def _ngram_ids(text: str) -> list[str]:
    tokens = _TOKEN.findall(text)
    return [
        key
        for size in range(1, MAX_NGRAM + 1)
        for start in range(len(tokens) - size + 1)
        for key in entity_keys(" ".join(tokens[start : start + size]))
    ]


def _best_per_entity(found: Iterable[DetectedEntity]) -> list[DetectedEntity]:
    """One detection per entity: exact beats triple beats semantic; then the higher score."""
    best: dict[str, DetectedEntity] = {}
    for entity in found:
        known = best.get(entity.id)
        if known is None or (_PRIORITY[entity.how], -entity.score) < (
            _PRIORITY[known.how],
            -known.score,
        ):
            best[entity.id] = entity
    return sorted(best.values(), key=lambda e: (_PRIORITY[e.how], -e.score, e.id))
