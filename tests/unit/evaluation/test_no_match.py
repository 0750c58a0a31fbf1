"""The no-match study's report (anchorgraph.evaluation.no_match) on rows written here: the rows'
labels come from the domains the collection named, a call is an answer with no hit at the bars,
and the bars chosen on the tune part keep the false alarms within the bound asked."""

from __future__ import annotations

import argparse
from typing import Any

import pytest

from anchorgraph.evaluation.metrics import held_aside
from anchorgraph.evaluation.no_match import KINDS, Bars, Study, label_of, report, split_spec

DOMAINS = {"claims": "health", "abstracts": "health", "wiki": "encyclopedia"}


def hit(cosine: float | None, terms: list[str]) -> dict[str, Any]:
    return {"document_id": "d", "cosine": cosine, "terms": terms, "alias": False}


def rows() -> list[dict[str, Any]]:
    """Each split's queries in every collection, each answer one hit holding one of the query's
    four terms: at cosine 0.6 in its own collection, 0.2 elsewhere (wiki's queries among the
    abstracts: near, 0.6, as their own)."""
    found = []
    for queries in DOMAINS:
        for collection in DOMAINS:
            for number in range(40):
                own = queries == collection
                near = own or (queries, collection) == ("wiki", "abstracts")
                hits = [hit(0.6 if near else 0.2, ["a"])]
                found.append({"queries": queries, "collection": collection,
                              "query_id": f"q{number}", "query_terms": 4, "matched": near,
                              "hits": hits})  # fmt: skip
    return found


def study() -> Study:
    splits = {name: {"split": "dev", "domain": domain} for name, domain in DOMAINS.items()}
    cosines = {name: [0.1, 0.2, 0.3] for name in DOMAINS}
    data = {"splits": splits, "document_cosines": cosines, "rows": rows()}
    shares = (0.0, 0.3, 1.0)
    bars = [
        Bars(kind, level, share) for kind in KINDS for level in (0.1, 0.4, 0.7) for share in shares
    ]
    return Study(data, bars)


def test_rows_are_labelled_by_the_domains_the_collection_named() -> None:
    assert label_of("claims", "claims", DOMAINS) == "answerable"
    assert label_of("claims", "abstracts", DOMAINS) == "related"
    assert label_of("claims", "wiki", DOMAINS) == "unanswerable"
    assert split_spec("scifact:train:bio") == ("scifact", ("train", "bio"))
    with pytest.raises(argparse.ArgumentTypeError):
        split_spec("scifact:train")


def test_the_bars_chosen_call_the_foreign_rows_and_keep_the_own_ones() -> None:
    found = study()
    chosen = found.choose(lambda row: not held_aside(row.query_id), 0.0, ("fixed",))
    assert chosen == Bars("fixed", 0.4, 0.3)
    score = found.score(found.called(chosen), lambda _: True)
    # Wiki's queries among the abstracts are near: the one foreign pair no bar calls.
    assert (score.answerable, score.false_alarms) == (120, 0)
    assert (score.unanswerable, score.called) == (160, 120)
    # Bars no row reaches call every row, own ones too.
    lax = found.score(found.called(Bars("fixed", 0.9, 1.0)), lambda _: True)
    assert lax.false_alarms == 120 and lax.precision == pytest.approx(160 / 280)
    text = report(found, 0.0)
    assert "| wiki | fixed |" in text and "| every dataset |" in text
