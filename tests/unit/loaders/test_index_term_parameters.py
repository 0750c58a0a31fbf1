"""How ingestion sends a batch's index terms to create_chunks.cypher."""

from __future__ import annotations

from collections import Counter

from anchorgraph.loaders.graph_writer import index_term_parameters


def test_each_term_travels_once_and_chunks_point_at_it() -> None:
    chunk_terms = [Counter(relay=2, pump=1), Counter(pump=3, valve=1), Counter()]
    terms, postings = index_term_parameters(chunk_terms)
    assert sorted(terms) == ["pump", "relay", "valve"]
    assert len(terms) == len(set(terms))
    # Every (chunk, term, tf) comes back out of the positions, and nothing else does.
    rebuilt = [
        {terms[at]: 1 for at in chunk["single_terms"]}
        | {terms[at]: tf for at, tf in chunk["repeated_terms"]}
        for chunk in postings
    ]
    assert rebuilt == [dict(c) for c in chunk_terms]
    # tf travels (and is stored) only where it is above 1.
    assert all(tf > 1 for chunk in postings for _, tf in chunk["repeated_terms"])
    assert postings[2] == {"single_terms": [], "repeated_terms": []}


def test_no_terms_no_postings() -> None:
    assert index_term_parameters([]) == ([], [])
