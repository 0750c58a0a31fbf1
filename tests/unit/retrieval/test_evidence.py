"""What speaks for a hit beside its nearness to the query (anchorgraph.retrieval.evidence): the
rule's bars, names found as whole words, and one hit's evidence from what the paths found."""

from __future__ import annotations

import pytest

from anchorgraph.retrieval.analysis import prepare
from anchorgraph.retrieval.defaults import DEFAULT_NO_MATCH_RULE
from anchorgraph.retrieval.evidence import (
    EvidenceKind,
    NoMatchRule,
    evidence_kinds,
    hit_evidence,
    names_in,
)
from anchorgraph.retrieval.expansion import EXPANSION
from anchorgraph.retrieval.options import SearchOptions
from anchorgraph.retrieval.results import Hit, Supporting
from anchorgraph.retrieval.stages import with_evidence
from anchorgraph.retrieval.values import AnalyzedQuery, Candidate, DetectedEntity, Ranked, Ranking

NOISE = DEFAULT_NO_MATCH_RULE.noise_cosine
RULE = NoMatchRule(noise_cosine=0.5, min_term_share=0.5)


def kinds(**given: object) -> list[EvidenceKind]:
    found: dict[str, object] = {
        "query_terms": 4, "matched_terms": 0, "cosine": None, "alias": False, "rule": RULE,
    }  # fmt: skip
    return evidence_kinds(**(found | given))  # type: ignore[arg-type]


def test_a_hit_near_the_query_only_at_the_noise_level_has_no_evidence() -> None:
    assert kinds(cosine=0.49) == []
    assert kinds(cosine=None) == []  # the dense path did not find it either
    assert kinds(cosine=0.5) == [EvidenceKind.DENSE]


def test_enough_of_the_query_s_terms_are_evidence() -> None:
    assert kinds(matched_terms=1) == []  # 1 of 4: below the share of 0.5
    assert kinds(matched_terms=2) == [EvidenceKind.TERMS]
    assert kinds(matched_terms=1, rule=NoMatchRule(0.5, 0.0)) == [EvidenceKind.TERMS]
    assert kinds(query_terms=0, rule=NoMatchRule(0.5, 0.0)) == []  # no term, no term evidence


def test_an_entity_named_by_an_alias_is_evidence_whatever_the_cosine_and_the_terms() -> None:
    assert kinds(alias=True, cosine=0.1) == [EvidenceKind.ENTITY]
    assert kinds(alias=True, matched_terms=4, cosine=0.9) == [
        EvidenceKind.TERMS,
        EvidenceKind.ENTITY,
        EvidenceKind.DENSE,
    ]


@pytest.mark.parametrize(
    ("names", "text", "found"),
    [
        (["AG-2048"], "The ag-2048 sensor drifted.", True),
        (["MAC"], "Machines hum in the machine room.", False),
        (["Museu de Arte Contemporânea"], "the MUSEU DE ARTE CONTEMPORANEA archive", True),
        (["São Paulo"], "Sao  Paulo, 1963", True),
        (["Zanini"], "Zaninis", False),
        ([""], "anything", False),
    ],
)
def test_names_are_found_as_whole_words_in_any_case_and_without_accents(
    names: list[str], text: str, found: bool
) -> None:
    assert names_in(names, text) is found


def query(text: str, **analysed: object) -> AnalyzedQuery:
    prepared = prepare(text)
    fields: dict[str, object] = {"identifiers": [], "entities": []} | analysed
    return AnalyzedQuery(**vars(prepared), vector=[0.0], **fields)  # type: ignore[arg-type]


def found(path: str, key: str, score: float) -> dict[str, dict[str, Candidate]]:
    return {path: {key: Candidate(key, key, score)}}


def test_a_hit_found_by_the_dense_path_alone_at_the_noise_level_is_not_matched() -> None:
    # The case a user found: a name no document holds still brings back the nearest chunk.
    evidence = hit_evidence(
        query("Ottoline Brabazon"),
        "notes/a#0",
        "The storerooms are kept at half the humidity air can hold.",
        found("dense", "notes/a#0", NOISE - 0.2),
        DEFAULT_NO_MATCH_RULE,
    )
    assert not evidence.matched and evidence.kinds == [] and evidence.terms == []
    assert evidence.cosine == pytest.approx(NOISE - 0.2)


def test_a_hit_holding_the_query_s_terms_is_matched() -> None:
    evidence = hit_evidence(
        query("humidity of the storerooms"),
        "notes/a#0",
        "The storerooms are kept at half the humidity air can hold.",
        found("dense", "notes/a#0", NOISE - 0.2),
        DEFAULT_NO_MATCH_RULE,
    )
    assert evidence.matched and evidence.kinds == [EvidenceKind.TERMS]
    assert evidence.terms == ["humidity", "storerooms"]


def test_names_count_as_terms_and_an_alias_counts_alone() -> None:
    mac = DetectedEntity(id="museu de arte contemporânea", name="Museu de Arte Contemporânea",
                         type="ORG", how="exact", score=1.0)  # fmt: skip
    uk = DetectedEntity(id="uk", name="UK", type="GPE", how="exact", score=1.0)
    meant = mac.model_copy(update={"how": "semantic", "name": "Pinacoteca"})
    asked = query("did MAC lend to a gallery in the UK", entities=[mac, uk, meant])
    # "UK" is written as the query writes it: one of its five terms, no evidence on its own.
    assert not hit_evidence(asked, "notes/a#0", "Prices rose in the UK.", {}, RULE).matched
    museum = "The Museu de Arte Contemporanea lent two canvases."  # the alias, unaccented
    evidence = hit_evidence(asked, "notes/b#0", museum, {}, RULE)
    assert evidence.kinds == [EvidenceKind.ENTITY] and evidence.terms == []
    # An entity found by meaning is no evidence: its name is only near the query.
    assert not hit_evidence(
        asked, "notes/c#0", "The Pinacoteca opened.", {}, DEFAULT_NO_MATCH_RULE
    ).matched


def ranked(chunk: str, **given: object) -> Ranked:
    return Ranked(chunk_id=chunk, document_id=chunk.split("#")[0], score=0.5, paths={}, **given)  # type: ignore[arg-type]


def hydrated(chunk: str, text: str) -> Hit:
    return Hit(rank=1, score=0.5, collection="default", document_id=chunk.split("#")[0],
               chunk_id=chunk, title="", text=text, n_tokens=5, paths={})  # fmt: skip


def reaching(chunk: str) -> Supporting:
    return Supporting(chunk_id=chunk, document_id=chunk.split("#")[0], n_tokens=5, hop=1,
                      score=0.4, parent_score=0.5, path=[])  # fmt: skip


@pytest.mark.parametrize(("parent_text", "graph"), [("The harbour cranes rusted.", True),
                                                     ("Prices rose.", False)])  # fmt: skip
def test_a_hit_the_expansion_placed_inherits_its_parent_s_standing(
    parent_text: str, graph: bool
) -> None:
    # The second paragraph of a two-hop question shares no word with it: it is in the answer
    # because a link from a matched hit reached it, and is matched by the graph; from a hit
    # without evidence, or found by the paths on its own, it has only its own evidence.
    hits = [
        ranked("a#0", supporting=[reaching("b#0"), reaching("c#0")]),
        ranked("b#0", signal_contributions={EXPANSION: 0.4}),
        ranked("c#0"),
    ]
    texts = [parent_text, "Built in Glasgow in 1901.", "Built in Leith."]
    hydrated_hits = [hydrated(hit.chunk_id, text) for hit, text in zip(hits, texts, strict=True)]
    ranking = Ranking(query=query("harbour cranes"), found={}, hits=hits)
    placed = with_evidence(hydrated_hits, ranking, SearchOptions(query="harbour cranes"))
    evidence = [hit.evidence for hit in placed]
    assert all(e is not None for e in evidence)
    assert [e.matched for e in evidence if e] == [graph, graph, False]
    assert evidence[1] and evidence[1].kinds == ([EvidenceKind.GRAPH] if graph else [])
    assert evidence[1] and evidence[1].terms == [] and evidence[1].cosine is None
