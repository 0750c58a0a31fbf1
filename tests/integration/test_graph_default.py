"""The graph in the default search, with the real server and model: a collection is marked as
holding links and entity mentions by the writes that make them, the default search expands along
what the searched collections hold, and a collection without either pays nothing for the graph
(no expansion stage, no round trip)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sample_graph import SampleGraphs

from anchorgraph.embedding import Embedder
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.schema import upgrade
from anchorgraph.loaders.entities import EntityExtractor
from anchorgraph.loaders.ingest import Ingestor
from anchorgraph.loaders.read import read_bytes
from anchorgraph.retrieval.context import SearchContext
from anchorgraph.retrieval.options import SearchOptions
from anchorgraph.retrieval.pipeline import search
from anchorgraph.retrieval.results import SearchResult

pytestmark = [pytest.mark.integration, pytest.mark.slow]

QUERY = "what happened in the Gallery 3 incident?"
# No link, no identifier, no capitalised name: nothing to follow and nothing to bridge through.
PLAIN = b"the storeroom stays cool and dry through the summer months, and the coats stay there."
MARKS = """
MATCH (c:Collection) WHERE c.name IN ['default', 'plain']
RETURN c.name AS name, c.has_links AS links, c.has_mentions AS mentions ORDER BY name
"""


@pytest.fixture(scope="module")
def written(sample_graph: SampleGraphs, embedder: Embedder) -> Graph:
    graph = sample_graph(embedder, gazetteer=True)  # links, and the gazetteer's entities
    document = read_bytes(PLAIN, doc_id="storeroom.txt", fmt="text", max_bytes=1_000)
    Ingestor(graph, embedder, EntityExtractor(None)).ingest([document], collection="plain")
    return graph


@pytest.fixture(scope="module")
def context(written: Graph, embedder: Embedder) -> Iterator[SearchContext]:
    context = SearchContext(written, embedder)
    yield context
    context.close()


def marks(graph: Graph) -> list[tuple[str, bool | None, bool | None]]:
    records = graph.driver.execute_query(MARKS, database_=graph.database).records
    return [(r["name"], r["links"], r["mentions"]) for r in records]


def searched(context: SearchContext, collection: str, **options: object) -> SearchResult:
    request = {"query": QUERY, "collections": [collection], **options}
    return search(context, SearchOptions.model_validate(request))


def stages(result: SearchResult) -> list[str]:
    return [timing.stage for timing in result.timings]


def test_the_writes_mark_what_a_collection_holds(written: Graph) -> None:
    assert marks(written) == [("default", True, True), ("plain", False, False)]


def test_the_default_search_expands_where_the_collection_has_links_and_entities(
    context: SearchContext,
) -> None:
    result = searched(context, "default")
    assert "expand" in stages(result) and result.tokens is not None
    assert any(hit.supporting for hit in result.hits)
    flat = searched(context, "default", expand={"links": False, "bridges": False})
    # The expansion's read hydrates what the search returns: no round trip more than the flat.
    assert "expand" not in stages(flat) and flat.round_trips == result.round_trips


def test_a_collection_without_links_or_entities_pays_nothing_for_the_graph(
    context: SearchContext,
) -> None:
    result = searched(context, "plain")
    assert result.hits and "expand" not in stages(result) and result.tokens is None
    flat = searched(context, "plain", expand={"links": False, "bridges": False})
    assert result.round_trips == flat.round_trips
    assert [hit.chunk_id for hit in result.hits] == [hit.chunk_id for hit in flat.hits]


def test_filters_and_the_threshold_hold_for_what_the_graph_reached(
    context: SearchContext,
) -> None:
    result = searched(context, "default", k=20)
    reached = {s.document_id for hit in result.hits for s in hit.supporting}
    hits = {hit.document_id for hit in result.hits}
    assert reached and hits
    # Only the documents of the first hits: nothing the graph reached elsewhere comes back.
    first = sorted(hits)[:3]
    narrowed = searched(context, "default", k=20, filters={"document_ids": first})
    returned = {hit.document_id for hit in narrowed.hits}
    returned |= {s.document_id for hit in narrowed.hits for s in hit.supporting}
    assert returned and returned <= set(first)
    cut = result.hits[len(result.hits) // 2].score
    limited = searched(context, "default", k=20, threshold=cut)
    assert limited.hits and all(hit.score >= cut for hit in limited.hits)


def test_the_upgrade_marks_collections_written_before_the_marks(written: Graph) -> None:
    unmark = "MATCH (c:Collection) REMOVE c.has_links, c.has_mentions"
    written.driver.execute_query(unmark, database_=written.database)
    assert marks(written) == [("default", None, None), ("plain", None, None)]
    upgrade(written)
    assert marks(written) == [("default", True, True), ("plain", False, False)]
