"""The classic TF-IDF path against a reference computed here from the chunks' own text (lexical
only: the fake embedder serves, so this runs in the fast lane). A decoy collection beside the
one searched, full of the query's words, must change nothing: each collection's N and document
frequencies are its own."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from typing import Any

import neo4j
import pytest

from anchorgraph.embedding import Embedder
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.queries import Query, cypher
from anchorgraph.loaders.entities import EntityExtractor
from anchorgraph.loaders.ingest import Ingestor
from anchorgraph.loaders.read import read_bytes
from anchorgraph.retrieval.analysis import prepare
from anchorgraph.retrieval.paths.tfidf import TfidfPath
from anchorgraph.retrieval.values import Candidate, Scope
from anchorgraph.scope import local_id
from anchorgraph.text.terms import index_terms

pytestmark = [pytest.mark.integration]

# One chunk each. "relay" is in 6 of 10 chunks (common at a 0.3 cut-off), "zebra" in 2.
TEXTS = {
    "t/a.md": "Relay relay relay zebra stripes.",
    "t/b.md": "Zebra crossing near the old mill.",
    "t/c.md": "Relay contacts wear out.",
    "t/d.md": "Relay coils hum.",
    "t/e.md": "A relay clicks twice.",
    "t/f.md": "Relay racks and relay panels.",
    "t/g.md": "Relay boards rust.",
    "t/h.md": "Mill stones grind grain.",
    "t/i.md": "Grain silos stand tall.",
    "t/j.md": "Stripes of paint on the wall.",
}
# In another collection: "relay" and "zebra" everywhere, and many more chunks.
DECOYS = {f"d/{i}.md": f"Relay zebra relay {i} zebra panels." for i in range(30)}
SEARCHED = Scope(collections=("default",), every=False, chunks=10, total_chunks=40)


@pytest.fixture(scope="module")
def read(graph: Graph, fake_embedder: Embedder) -> Iterator[Any]:
    graph.driver.execute_query(cypher(Query.DELETE_ALL))
    documents = [
        read_bytes(text.encode(), doc_id=doc_id, fmt="markdown", max_bytes=10_000)
        for doc_id, text in TEXTS.items()
    ]
    decoys = [
        read_bytes(text.encode(), doc_id=doc_id, fmt="markdown", max_bytes=10_000)
        for doc_id, text in DECOYS.items()
    ]
    ingestor = Ingestor(graph, fake_embedder, EntityExtractor(None))
    ingestor.ingest(documents)
    ingestor.ingest(decoys, collection="decoys")
    yield graph.read


def reference(driver: neo4j.Driver, terms: list[str]) -> dict[str, float]:
    """score(c) = Σ_t (1 + ln tf) · (ln((1 + N) / (1 + df)) + 1), over every chunk's text in
    the searched collection."""
    chunks = {r["id"]: index_terms(r["text"]) for r in driver.execute_query(
        "MATCH (c:Chunk {collection: 'default'}) RETURN c.id AS id, c.text AS text").records
    }  # fmt: skip
    df = Counter(term for counts in chunks.values() for term in counts)
    n = len(chunks)
    scores: dict[str, float] = {}
    for chunk_id, counts in chunks.items():
        matched = [t for t in terms if counts[t]]
        if matched:
            scores[chunk_id] = sum(
                (1 + math.log(counts[t])) * (math.log((1 + n) / (1 + df[t])) + 1) for t in matched
            )
    return scores


def retrieve(
    read: Any, text: str, common_fraction: float, max_postings: int = 10_000
) -> list[Candidate]:
    path = TfidfPath(common_fraction, max_postings)
    return path.retrieve(read, prepare(text), 100, SEARCHED)


def by_document(candidates: list[Candidate]) -> dict[str, float]:
    return {local_id(c.document_id): c.score for c in candidates}


def document_of(driver: neo4j.Driver) -> dict[str, str]:
    records = driver.execute_query(
        "MATCH (c:Chunk {collection: 'default'}) RETURN c.id AS id, c.document_id AS doc"
    )
    return {r["id"]: local_id(r["doc"]) for r in records.records}


def test_each_collection_scores_with_its_own_statistics(read: Any, driver: neo4j.Driver) -> None:
    both = Scope(collections=("default", "decoys"), every=True)
    found = TfidfPath(1.0, 10_000).retrieve(read, prepare("relay zebra"), 100, both)
    alone = {c.chunk_id: c.score for c in retrieve(read, "relay zebra", common_fraction=1.0)}
    mixed = {c.chunk_id: c.score for c in found if c.chunk_id.startswith("default/")}
    assert mixed == pytest.approx(alone, rel=1e-12)  # the decoys moved no score of ours
    assert any(c.chunk_id.startswith("decoys/") for c in found)


def test_without_common_terms_it_is_exact_tfidf(read: Any, driver: neo4j.Driver) -> None:
    found = by_document(retrieve(read, "relay zebra", common_fraction=1.0))
    chunk_doc = document_of(driver)
    expected = {chunk_doc[c]: s for c, s in reference(driver, ["relay", "zebra"]).items()}
    assert found.keys() == expected.keys() == {"t/a.md", "t/b.md", "t/c.md", "t/d.md", "t/e.md",
                                               "t/f.md", "t/g.md"}  # fmt: skip
    for document_id, score in expected.items():
        assert found[document_id] == pytest.approx(score, rel=1e-9)
    # Sublinear tf: three "relay" beat one, but by less than three times.
    assert found["t/c.md"] < found["t/f.md"] < 3 * found["t/c.md"]


def test_common_terms_only_add_to_chunks_a_rare_term_found(read: Any, driver: neo4j.Driver) -> None:
    found = by_document(retrieve(read, "relay zebra", common_fraction=0.3))
    chunk_doc = document_of(driver)
    exact = {chunk_doc[c]: s for c, s in reference(driver, ["relay", "zebra"]).items()}
    # Only the two "zebra" chunks are found; the one with "relay" too keeps its full score.
    assert found.keys() == {"t/a.md", "t/b.md"}
    assert found["t/a.md"] == pytest.approx(exact["t/a.md"], rel=1e-9)
    assert found["t/b.md"] == pytest.approx(exact["t/b.md"], rel=1e-9)


def test_a_query_of_common_terms_only_still_finds(read: Any, driver: neo4j.Driver) -> None:
    found = by_document(retrieve(read, "relay", common_fraction=0.3))
    assert len(found) == 6
    assert max(found, key=lambda d: found[d]) == "t/a.md"  # tf 3 beats tf 1 and 2


def test_a_posting_budget_lets_only_the_rarest_terms_walk(read: Any, driver: neo4j.Driver) -> None:
    chunk_doc = document_of(driver)
    exact = {chunk_doc[c]: s for c, s in reference(driver, ["relay", "zebra"]).items()}
    # "zebra" (df 2) fits a budget of 2 postings, "relay" (df 6) would make 8: it only boosts.
    found = by_document(retrieve(read, "relay zebra", common_fraction=1.0, max_postings=2))
    assert found.keys() == {"t/a.md", "t/b.md"}
    assert found == pytest.approx({d: exact[d] for d in found}, rel=1e-9)
    # A budget of 8 lets both walk: exact TF-IDF over every matching chunk.
    assert by_document(retrieve(read, "relay zebra", 1.0, max_postings=8)) == pytest.approx(exact)
    # The rarest term keeps to the budget too: "relay" alone walks its 6 postings within a budget
    # of 6, and past it the path finds nothing (the work stays bounded whatever the corpus).
    assert by_document(retrieve(read, "relay", 1.0, max_postings=6)).keys() == {
        chunk_doc[c] for c in reference(driver, ["relay"])
    }
    assert retrieve(read, "relay", 1.0, max_postings=5) == []
    assert retrieve(read, "relay zebra", 1.0, max_postings=1) == []


def test_postings_carry_tf_only_above_one(read: Any, driver: neo4j.Driver) -> None:
    records = driver.execute_query(
        "MATCH (c:Chunk {document_id: 'default/t/a.md'})-[h:HAS_TERM]->(t:Term) "
        "RETURN t.text AS term, h.tf AS tf"
    ).records
    counts = index_terms(TEXTS["t/a.md"])
    assert {r["term"]: r["tf"] for r in records} == {
        term: tf if tf > 1 else None for term, tf in counts.items()
    }
    assert 3 in counts.values()  # "Relay relay relay": the stored tf is read (test above)
