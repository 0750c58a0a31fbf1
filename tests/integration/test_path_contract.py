"""The contract every candidate path keeps, whatever it looks for: at most k candidates, best
first, finite scores, each chunk (or, for a document path, each document) once, only from the
searched collections, and only from the allowed documents when a filter gives them. Run on the
sample corpus, ingested twice into two collections, with the fake embedder and no spaCy
pipeline (gazetteer and identifier patterns find the entities), so that it is a fast-lane test
of plumbing; the relevance of each path is tested elsewhere."""

from __future__ import annotations

import math

import pytest
from sample_graph import SampleGraphs

from anchorgraph.embedding import Embedder
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.queries import Query
from anchorgraph.retrieval.analysis import analyse, embed, prepare
from anchorgraph.retrieval.paths import DOCUMENT_PATHS, PATHS
from anchorgraph.retrieval.paths.base import PathName
from anchorgraph.retrieval.stage_options import Filters
from anchorgraph.retrieval.values import AnalyzedQuery, Scope
from anchorgraph.scope import split_key

pytestmark = pytest.mark.integration

QUERIES = [
    "AG-2048 battery life",  # an identifier and words
    "MAC founding director",  # a gazetteer alias
    "humidity in the storerooms of the museum",  # words only
    "climate",  # a tag and a folder name
]


@pytest.fixture(scope="module")
def corpus(sample_graph: SampleGraphs, fake_embedder: Embedder) -> Graph:
    return sample_graph(fake_embedder, gazetteer=True, collections=COLLECTIONS)


COLLECTIONS = ("one", "two")


def analysed(graph: Graph, embedder: Embedder, text: str, scope: Scope) -> AnalyzedQuery:
    return analyse(embed(prepare(text), embedder), graph.read, scope)


def scopes(graph: Graph) -> list[Scope]:
    """Both collections without a filter; one of them, alone and under a filter that allows a
    third of its documents; and a filter that allows nothing."""
    documents = [r["id"] for r in graph.read(Query.FILTERED_DOCUMENTS, no_filter())]
    ones = [key for key in documents if split_key(key)[0] == "one"]
    one = Scope(collections=("one",), every=False, chunks=1, total_chunks=2)
    return [
        Scope(collections=COLLECTIONS),
        one,
        Scope(collections=("one",), every=False, documents=frozenset(ones[::3])),
        Scope(collections=COLLECTIONS, documents=frozenset()),
    ]


@pytest.mark.parametrize("path", list(PathName), ids=str)
@pytest.mark.parametrize("k", [1, 4, 100])
def test_every_path_keeps_the_contract(
    corpus: Graph, fake_embedder: Embedder, path: PathName, k: int
) -> None:
    found_any = found_one_alone = False
    for text in QUERIES:
        for scope in scopes(corpus):
            query = analysed(corpus, fake_embedder, text, scope)
            candidates = PATHS[path].retrieve(corpus.read, query, k, scope)
            found_any |= bool(candidates) and scope.every
            found_one_alone |= bool(candidates) and not scope.every
            assert len(candidates) <= k
            scores = [c.score for c in candidates]
            assert all(math.isfinite(s) for s in scores)
            assert scores == sorted(scores, reverse=True)
            keys = [c.document_id if path in DOCUMENT_PATHS else c.chunk_id for c in candidates]
            assert len(keys) == len(set(keys))
            collections = {split_key(c.chunk_id)[0] for c in candidates}
            assert collections <= set(scope.collections)
            assert collections == {split_key(c.document_id)[0] for c in candidates}
            if scope.documents is not None:
                assert {c.document_id for c in candidates} <= scope.documents
    assert found_any, f"{path} found nothing for any query: the contract was not exercised"
    assert found_one_alone, f"{path} found nothing in one collection of two"


def no_filter() -> dict[str, object]:
    """The parameters of filtered_documents.cypher for a search without filters: every one the
    filters have, so that a filter added later is in them too."""
    return {**Filters().parameters(), "collections": None, "document_ids": None}
