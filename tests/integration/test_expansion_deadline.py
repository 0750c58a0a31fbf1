"""The expansion never pushes a search past the request's deadline, with the real server: a search
whose expansion's read would take far longer than ``ANCHORGRAPH_REQUEST_DEADLINE_S`` answers by it
with its hits unexpanded and says so (``cut_short``), the read left to end on the server.

The slow read is made of real links: a hit's chunk with ten thousand links to a whole document
of four thousand chunks, each link choosing its landing chunk by a cosine with every one of them
(``cypher/expand/reached.cypher``), tens of millions of similarities in one statement. A server
of this module's own holds them, so that no other module's searches meet its chunks.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from clients import api_client, app_seconds
from fastapi.testclient import TestClient

from anchorgraph.embedding import Embedder
from anchorgraph.graph.local_server import LocalNeo4j, throwaway_settings
from anchorgraph.loaders.read import read_bytes
from anchorgraph.retrieval.expansion import EXPANSION_SHARE
from anchorgraph.runtime import open_runtime
from anchorgraph.settings import Settings

pytestmark = [pytest.mark.integration, pytest.mark.slow]

# The request deadline of the API in this module (ANCHORGRAPH_REQUEST_DEADLINE_S): the
# setting's default, long enough for the flat search on a busy two-core machine.
DEADLINE_S = 10.0
COLLECTION = "slowlinks"
LINKS, FAR_CHUNKS = 10_000, 4_000
QUERY = "the pump that feeds the cooling valve"
NOTE = b"# Pump\n\nThe pump P-100 feeds the cooling valve of the north hall."
# Links from the note's chunk to a document of FAR_CHUNKS chunks, none of which any search path
# finds (no collection, no shard label, no text): only the expansion reads them. The collection
# is marked as holding links, as create_links.cypher marks it.
FAR_LINKS = """
MATCH (s:Chunk {collection: $collection})
CREATE (far:Document {id: 'elsewhere/far'})
WITH s, far
UNWIND range(1, $chunks) AS i
CREATE (far)-[:HAS_CHUNK]->(:Chunk {
  id: 'elsewhere/far#' + i, document_id: far.id, n_tokens: 10, text: 'far',
  embedding: [j IN range(1, 384) | rand() - 0.5]})
WITH DISTINCT s, far
UNWIND range(1, $links) AS i
CREATE (s)-[:LINKS_TO {href: 'far', anchor_text: 'far', context: 'far', fragment: '',
  context_embedding: [j IN range(1, 384) | rand() - 0.5]}]->(far)
WITH DISTINCT s
MATCH (c:Collection {name: $collection})
SET c.has_links = true
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    settings = throwaway_settings(
        Path(tmp_path_factory.mktemp("deadline")), heap="512m", pagecache="128m"
    )
    local = LocalNeo4j(settings)
    local.start()
    try:
        yield settings
    finally:
        local.stop()


@pytest.fixture(scope="module")
def client(server: Settings, embedder: Embedder) -> Iterator[TestClient]:
    without_spacy = server.model_copy(update={"spacy_model": ""})
    with (
        open_runtime(without_spacy, schema="apply", embedder_factory=lambda _: embedder) as runtime,
        api_client(server, embedder, request_deadline_s=DEADLINE_S) as client,
    ):
        # The API's warm-up searches first (they have no deadline), on the graph still empty.
        assert client.app.state.warm_start.ready.wait(120)
        # Written through the runtime: a write's waits on a loaded machine may take longer than
        # this module's short deadline, which is for the searches.
        note = read_bytes(NOTE, doc_id="notes/pump.md", fmt="markdown", max_bytes=1_000)
        runtime.ingestor.ingest([note], collection=COLLECTION)
        runtime.graph.driver.execute_query(
            FAR_LINKS,
            {"collection": COLLECTION, "chunks": FAR_CHUNKS, "links": LINKS},
            database_=runtime.graph.database,
        )
        yield client


def test_a_search_whose_expansion_would_overrun_the_deadline_answers_by_it_unexpanded(
    client: TestClient,
) -> None:
    request = {"query": QUERY, "collections": [COLLECTION]}
    flat_request = {**request, "expand": {"links": False, "bridges": False}}
    client.post("/search", json=flat_request)  # untimed: the server plans the statements
    flat = client.post("/search", json=flat_request)
    assert flat.status_code == 200, flat.text
    assert flat.json()["cut_short"] == []
    # The default search expands along the links; their read is waited for no longer than its
    # share of the time left, and the answer comes by the deadline with the flat search's hits.
    answer = client.post("/search", json=request)
    assert answer.status_code == 200, answer.text
    took = app_seconds(answer.headers)
    assert took is not None and EXPANSION_SHARE * DEADLINE_S < took < DEADLINE_S
    result = answer.json()
    assert result["cut_short"] == ["expand"]
    assert [hit["chunk_id"] for hit in result["hits"]] == [
        hit["chunk_id"] for hit in flat.json()["hits"]
    ]
    assert all(hit["supporting"] == [] for hit in result["hits"])
    print(f"answered in {took:.2f} s, the expansion cut at {EXPANSION_SHARE:g} of the time left")
