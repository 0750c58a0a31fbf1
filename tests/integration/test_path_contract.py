"""The contract every candidate path keeps, whatever it looks for: at most k candidates, best
first, finite scores, each chunk (or, for a document path, each document) once, and only from
the allowed documents when a filter gives them. Run on the sample corpus with the fake embedder
and no spaCy pipeline (gazetteer and identifier patterns find the entities), so that it is a
fast-lane test of plumbing; the relevance of each path is tested elsewhere."""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest

from loaders.entities import EntityExtractor, load_gazetteer
from loaders.ingest import Ingestor
from service.embedding import Embedder
from service.graph.gateway import Graph
from service.graph.queries import Query, cypher
from service.ingestion import read_all, sample_corpus, sample_gazetteer
from service.retrieval.analysis import analyse, embed, prepare
from service.retrieval.paths import PATHS
from service.retrieval.types import DOCUMENT_PATHS, AnalyzedQuery, PathName
from service.settings import Settings

pytestmark = pytest.mark.integration

QUERIES = [
    "AG-2048 battery life",  # an identifier and words
    "MAC founding director",  # a gazetteer alias
    "humidity in the storerooms of the museum",  # words only
    "climate",  # a tag and a folder name
]


@pytest.fixture(scope="module")
def corpus(graph: Graph, settings: Settings, fake_embedder: Embedder) -> Iterator[Graph]:
    graph.driver.execute_query(cypher(Query.DELETE_ALL))
    documents, _ = read_all(settings, sample_corpus())
    extractor = EntityExtractor(None, gazetteer=load_gazetteer(sample_gazetteer()))
    Ingestor(graph, fake_embedder, extractor).ingest(documents)
    yield graph


def analysed(graph: Graph, embedder: Embedder, text: str) -> AnalyzedQuery:
    return analyse(embed(prepare(text), embedder), graph.read)


@pytest.mark.parametrize("path", list(PathName), ids=str)
@pytest.mark.parametrize("k", [1, 4, 100])
def test_every_path_keeps_the_contract(
    corpus: Graph, fake_embedder: Embedder, path: PathName, k: int
) -> None:
    all_documents = [r["id"] for r in corpus.read(Query.FILTERED_DOCUMENTS, no_filter())]
    allowed_sets = [None, all_documents[::3], []]
    found_any = False
    for text in QUERIES:
        query = analysed(corpus, fake_embedder, text)
        for allowed in allowed_sets:
            candidates = PATHS[path].retrieve(corpus.read, query, k, allowed)
            found_any |= bool(candidates) and allowed is None
            assert len(candidates) <= k
            scores = [c.score for c in candidates]
            assert all(math.isfinite(s) for s in scores)
            assert scores == sorted(scores, reverse=True)
            keys = [c.document_id if path in DOCUMENT_PATHS else c.chunk_id for c in candidates]
            assert len(keys) == len(set(keys))
            if allowed is not None:
                assert {c.document_id for c in candidates} <= set(allowed)
    assert found_any, f"{path} found nothing for any query: the contract was not exercised"


def no_filter() -> dict[str, None]:
    return dict.fromkeys(("sources", "source_types", "folders", "tags", "document_ids"))
