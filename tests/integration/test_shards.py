"""Shards: each collection's chunks and documents carry its shard's labels, a search in some
collections reads their shards' vector indexes, and a graph written before shards gets them in
place (service/graph/shards.py)."""

from __future__ import annotations

from typing import Any

import pytest

from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.schema import upgrade
from anchorgraph.graph.shards import CHUNKS, DOCUMENTS, SHARDS
from anchorgraph.library import Library
from anchorgraph.runtime import Runtime

pytestmark = pytest.mark.integration

NOTES = {
    "wiki": "# Pump\n\nThe aurora pump P-7 feeds the valve of the north storeroom.",
    "drive": "# Pump\n\nThe borealis pump P-7 feeds the valve of the south storeroom.",
    "archive": "# Pump\n\nThe tundra pump P-7 feeds the valve of the east storeroom.",
}


@pytest.fixture
def library(runtime: Runtime, clean_graph: Graph) -> Library:
    """The library over the session's runtime (the fake embedder, no spaCy), on an empty graph,
    with the same note in three collections, each of two chunks' length."""
    library = Library(runtime)
    for collection, text in NOTES.items():
        for number in range(2):
            body = f"{text}\n\n## Part {number}\n\nStoreroom {number} keeps the spare seals."
            library.add_text(f"note-{number}.md", body, collection=collection)
    return library


def run(graph: Graph, statement: str, **parameters: Any) -> list[dict[str, Any]]:
    return [r.data() for r in graph.driver.execute_query(statement, parameters).records]


def shards(graph: Graph) -> dict[str, int | None]:
    rows = run(graph, "MATCH (c:Collection) RETURN c.name AS name, c.shard AS shard")
    return {row["name"]: row["shard"] for row in rows}


def labelled(graph: Graph, collection: str, shard: int) -> tuple[int, int, int, int]:
    """(chunks, of them with the shard's label, documents, of them with the shard's label)."""
    row = run(
        graph,
        "MATCH (d:Document {collection: $c}) "
        "WITH count(d) AS documents, count(CASE WHEN $dl IN labels(d) THEN 1 END) AS d_labelled "
        "MATCH (c:Chunk {collection: $c}) "
        "RETURN count(c) AS chunks, count(CASE WHEN $cl IN labels(c) THEN 1 END) AS c_labelled, "
        "documents, d_labelled",
        c=collection,
        cl=CHUNKS.shard_label(shard),
        dl=DOCUMENTS.shard_label(shard),
    )[0]
    return row["chunks"], row["c_labelled"], row["documents"], row["d_labelled"]


def hits(library: Library, collections: list[str] | None, **options: Any) -> list[str]:
    result = library("pump valve storeroom", mode="dense", collections=collections, **options)
    return [f"{hit.collection}/{hit.chunk_id}" for hit in result.hits]


def test_each_collection_gets_a_shard_of_its_own_and_its_nodes_its_labels(
    library: Library,
) -> None:
    graph = library.graph
    assigned = shards(graph)
    assert sorted(assigned.values()) == [0, 1, 2]  # in the order they were created
    for collection, shard in assigned.items():
        assert shard is not None
        chunks, chunks_labelled, documents, documents_labelled = labelled(graph, collection, shard)
        assert chunks >= 2 and chunks_labelled == chunks
        assert documents == 2 and documents_labelled == documents
        # The shard's own index holds this collection's chunks and nothing else.
        found = run(
            graph,
            "MATCH (c:Chunk {collection: $c}) WITH c LIMIT 1 "
            "CALL db.index.vector.queryNodes($index, 50, c.embedding) YIELD node "
            "RETURN collect(DISTINCT node.collection) AS collections, count(node) AS n",
            c=collection,
            index=CHUNKS.shard_index(shard),
        )[0]
        assert found == {"collections": [collection], "n": chunks}


def test_a_search_in_one_collection_reads_its_shard_and_ranks_as_exact_scoring(
    library: Library,
) -> None:
    every_document = {"document_ids": ["note-0.md", "note-1.md"]}  # exact cosine under a filter
    through_shard = hits(library, ["drive"])
    assert through_shard and {hit.split("/")[0] for hit in through_shard} == {"drive"}
    assert through_shard == hits(library, ["drive"], filters=every_document)
    # Without its labels the collection is invisible to a search in it alone (so that search
    # reads the shard's index), and still found by a search in every collection.
    run(library.graph, "MATCH (c:Chunk {collection: 'drive'}) REMOVE c:$($l)",
        l=CHUNKS.shard_label(shards(library.graph)["drive"]))  # fmt: skip
    assert hits(library, ["drive"]) == []
    assert any(hit.startswith("drive/") for hit in hits(library, None))


def test_a_collection_written_before_shards_gets_one_in_place(library: Library) -> None:
    graph = library.graph
    old = shards(graph)["archive"]
    assert old is not None
    run(graph, "MATCH (c:Collection {name: 'archive'}) REMOVE c.shard")
    labels = {"c": CHUNKS.shard_label(old), "d": DOCUMENTS.shard_label(old)}
    run(graph, "MATCH (n {collection: 'archive'}) WHERE n:Chunk OR n:Document "
        "REMOVE n:$($c), n:$($d)", **labels)  # fmt: skip
    library.context.sizes.forget()
    # Meanwhile a search in it goes through the graph-wide index and still finds it.
    before = hits(library, ["archive"])
    assert before and {hit.split("/")[0] for hit in before} == {"archive"}
    assert upgrade(graph) is True
    assert shards(graph)["archive"] == old  # the shard it left was the free one
    chunks, chunks_labelled, documents, documents_labelled = labelled(graph, "archive", old)
    assert (chunks_labelled, documents_labelled) == (chunks, documents)
    library.context.sizes.forget()
    assert hits(library, ["archive"]) == before
    assert upgrade(graph) is False  # nothing left to do


def test_collections_beyond_the_pool_share_shards_and_stay_apart(library: Library) -> None:
    for number in range(SHARDS):  # 3 already exist: the last 3 new ones share
        library.add_text("extra.md", f"# Extra\n\nThe pump of site {number}.",
                         collection=f"site-{number}")  # fmt: skip
    assigned = shards(library.graph)
    used = sorted(shard for shard in assigned.values() if shard is not None)
    assert len(assigned) == SHARDS + 3 and set(used) == set(range(SHARDS))
    assert max(used.count(shard) for shard in range(SHARDS)) == 2  # least used first
    sharing = assigned["site-15"]
    neighbour = next(n for n, s in assigned.items() if s == sharing and n != "site-15")
    library.context.sizes.forget()
    assert {hit.split("/")[0] for hit in hits(library, ["site-15"])} == {"site-15"}
    assert {hit.split("/")[0] for hit in hits(library, [neighbour])} == {neighbour}
