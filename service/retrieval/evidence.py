"""Whether a hit has real evidence for the query, and whether an answer has any.

The dense path answers every query with the chunks nearest to it, whatever the query: a question
nothing in a collection answers still gets its ten hits, at a cosine that only says the texts are
of a kind. So each hit says what speaks for it beside that nearness (``Evidence.kinds``):

- ``terms``: enough of the query's terms (``anchorgraph.text.terms.index_terms``: no stop words;
  codes and names are words of it too) in the hit's text: a share of them
  (``NoMatchRule.min_term_share``);
- ``entity``: an entity the query names exactly by another name (an alias: "MAC" for the Museu
  de Arte Contemporânea), its own name in the hit's text, which shares no word with the query;
- ``dense``: a cosine with the query above the noise level (``NoMatchRule.noise_cosine``): the
  cosine the best chunk of a collection reaches for questions it cannot answer;
- ``graph``: placed in the answer by the expansion (``expand.rank``), along a link or an entity
  bridge from a hit with evidence of its own. Such a hit is there for what its parent holds, not
  for its nearness: the second paragraph of a two-hop question need share no word with it. It
  inherits the parent's standing, not its terms or cosine (those stay its own), and passes it on
  no further: a parent is always a hit the paths found.

A hit with none of them is there only because something had to be: ``matched`` false. An answer
none of whose hits is matched says so (``SearchResult.matched``). The bars were chosen on
queries that have no answer in a collection (queries of the dev splits searched among another
domain's documents) against the splits' own judged queries, one whole dataset left out at a time
(``python -m anchorgraph.evaluation.no_match``; docs/benchmarks.md, "The no-match bars").
An identifier or an entity named as the hit writes it counts among the terms, not on its own:
on those splits a hit sharing a single named thing with a long question ("UK") was no evidence
that it answers it, and counting such names alone took the calls' recall from 0.88 to 0.75 at
the same false alarms.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from anchorgraph.text.identifiers import normalise_entity_id, without_accents
from anchorgraph.text.terms import index_terms

if TYPE_CHECKING:  # they hold the hits' Evidence: imported for the annotations only
    from anchorgraph.retrieval.values import AnalyzedQuery, Candidate


class EvidenceKind(StrEnum):
    """What, besides being near the query, speaks for a hit."""

    TERMS = "terms"
    ENTITY = "entity"
    DENSE = "dense"
    GRAPH = "graph"


@dataclass(frozen=True)
class NoMatchRule:
    """The bars a hit's evidence is held to: a share of the query's terms in its text, and a
    cosine above the noise level."""

    noise_cosine: float
    min_term_share: float


class Evidence(BaseModel):
    """What speaks for a hit beside its nearness to the query, and whether that is enough."""

    model_config = ConfigDict(frozen=True)

    matched: bool = Field(
        description="Whether anything speaks for the hit (`kinds` is not empty); false: it is "
        "only among the texts nearest the query, at the noise level."
    )
    kinds: list[EvidenceKind] = Field(
        description="terms (enough of the query's terms in its text), entity (an entity the "
        "query names by an alias, its name in the text), dense (its cosine above the noise "
        "level), graph (placed by the expansion from a hit with evidence of its own)."
    )
    terms: list[str] = Field(
        description="The query's terms (no stop words) that the hit's text holds."
    )
    cosine: float | None = Field(
        description="Its cosine with the query (at document level its document's best chunk); "
        "None: the dense path did not find it among its candidates."
    )

    def reached(self) -> Evidence:
        """This evidence of a hit the expansion placed from a matched hit: ``graph`` added."""
        kinds = [*self.kinds, EvidenceKind.GRAPH]
        return self.model_copy(update={"matched": True, "kinds": kinds})

    def described(self) -> str:
        """The evidence in a few words: "evidence: terms, dense (cosine 0.741; terms covid,
        vitamin)", or "no evidence (cosine 0.127; none of the query's terms)"."""
        cosine = "no cosine" if self.cosine is None else f"cosine {self.cosine:.3f}"
        terms = f"terms {', '.join(self.terms)}" if self.terms else "none of the query's terms"
        if not self.matched:
            return f"no evidence ({cosine}; {terms})"
        return f"evidence: {', '.join(self.kinds)} ({cosine}; {terms})"


# What an answer without a matched hit means, in the words the CLI and the page show.
NO_MATCH = (
    "nothing here matches the query: no hit holds enough of its terms or an entity it names, "
    "and none is nearer to it than unrelated texts are; the hits are only the nearest texts "
    "there are."
)


def evidence_kinds(
    *,
    query_terms: int,
    matched_terms: int,
    cosine: float | None,
    alias: bool,
    rule: NoMatchRule,
) -> list[EvidenceKind]:
    """The kinds of evidence a hit has, under ``rule``:

    terms   ⇔ matched_terms ≥ 1 ∧ matched_terms ≥ min_term_share · query_terms
    entity  ⇔ ``alias`` (an entity the query names by an alias is in the hit's text)
    dense   ⇔ cosine ≥ noise_cosine (a hit the dense path did not find has none)

    The hit is matched when the list is not empty."""
    present = (
        (
            EvidenceKind.TERMS,
            matched_terms > 0 and matched_terms >= rule.min_term_share * query_terms,
        ),
        (EvidenceKind.ENTITY, alias),
        (EvidenceKind.DENSE, cosine is not None and cosine >= rule.noise_cosine),
    )
    return [kind for kind, found in present if found]


def names_in(names: Iterable[str], text: str) -> bool:
    """Whether ``text`` holds any of ``names`` as whole words, compared as entity ids are
    (``normalise_entity_id``) and also without accents: "ag-2048" is in "the AG-2048 sensor",
    "mac" is not in "machine"."""
    folded = normalise_entity_id(text)
    plain = without_accents(folded)
    for name in names:
        key = normalise_entity_id(name)
        if key and (
            _word_pattern(key).search(folded) or _word_pattern(without_accents(key)).search(plain)
        ):
            return True
    return False


@cache
def _word_pattern(key: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(key)}(?!\w)")


def aliases_named(query: AnalyzedQuery) -> list[str]:
    """The names of the entities the query names exactly by another name: whose own name has a
    term the query does not ("MAC" names the Museu de Arte Contemporânea)."""
    terms = set(query.terms)
    return [
        entity.name
        for entity in query.entities
        if entity.how == "exact" and not index_terms(entity.name).keys() <= terms
    ]


def hit_evidence(
    query: AnalyzedQuery,
    key: str,
    text: str,
    found: Mapping[str, Mapping[str, Candidate]],
    rule: NoMatchRule,
) -> Evidence:
    """The evidence of the hit ``key`` (a chunk's, or at document level a document's) with the
    hydrated ``text``, from the query and the dense path's candidates (``found["dense"]``: key →
    its best candidate, as the ranking keys them), held to ``rule``'s bars (the search's:
    ``defaults.DEFAULT_NO_MATCH_RULE``)."""
    dense = found.get("dense", {}).get(key)
    terms = sorted(set(query.terms) & index_terms(text).keys())
    kinds = evidence_kinds(
        query_terms=len(query.terms),
        matched_terms=len(terms),
        cosine=None if dense is None else dense.score,
        alias=names_in(aliases_named(query), text),
        rule=rule,
    )
    return Evidence(
        matched=bool(kinds),
        kinds=kinds,
        terms=terms,
        cosine=None if dense is None else round(dense.score, 6),
    )
