"""Which vector indexes a dense path asks, and for how many hits: the graph-wide index or the
searched collections' shards (service/graph/shards.py), whichever asks for fewer hits."""

from __future__ import annotations

import pytest

from anchorgraph.graph.schema import expected_indexes
from anchorgraph.graph.shards import CHUNKS, DOCUMENTS, SHARDS
from anchorgraph.retrieval.collections import search_scope
from anchorgraph.retrieval.paths.base import vector_index_plan
from anchorgraph.retrieval.values import CollectionSize
from anchorgraph.scope import FULL_ACCESS

K = 100


def ten_collections(shard_of: dict[str, int | None] | None = None) -> dict[str, CollectionSize]:
    """Ten collections of 10,000 chunks, each in a shard of its own unless ``shard_of`` says."""
    names = [f"c{i}" for i in range(10)]
    shards = shard_of or {}
    return {name: CollectionSize(10_000, shards.get(name, i)) for i, name in enumerate(names)}


def test_a_search_in_every_collection_asks_the_graph_wide_index_for_k() -> None:
    plan = vector_index_plan(K, search_scope(ten_collections(), None, FULL_ACCESS), CHUNKS)
    assert plan.indexes == ("chunk_embedding",)
    assert plan.depth == K


def test_a_collection_alone_in_its_shard_asks_its_shard_index_for_k() -> None:
    scope = search_scope(ten_collections(), ["c3"], FULL_ACCESS)
    assert vector_index_plan(K, scope, CHUNKS).indexes == ("chunk_embedding_03",)
    assert vector_index_plan(K, scope, CHUNKS).depth == K
    assert vector_index_plan(K, scope, DOCUMENTS).indexes == ("document_embedding_03",)


def test_a_shared_shard_is_asked_for_more_by_the_collection_s_share_of_it() -> None:
    sizes = ten_collections({"c1": 0})  # c0 and c1 share shard 0, half of it each
    plan = vector_index_plan(K, search_scope(sizes, ["c0"], FULL_ACCESS), CHUNKS)
    assert plan.indexes == ("chunk_embedding_00",)
    assert plan.depth == 4 * K  # margin 2 / share 0.5; the graph-wide index would need 20 × k


def test_many_shards_for_most_of_the_graph_go_to_the_graph_wide_index() -> None:
    names = [f"c{i}" for i in range(9)]
    scope = search_scope(ten_collections(), names, FULL_ACCESS)
    plan = vector_index_plan(K, scope, CHUNKS)
    assert plan.indexes == ("chunk_embedding",)
    assert plan.depth == pytest.approx(K * 2 / 0.9, abs=1)


def test_a_collection_without_a_shard_yet_is_searched_through_the_graph_wide_index() -> None:
    sizes = ten_collections({"c0": None})
    plan = vector_index_plan(K, search_scope(sizes, ["c0"], FULL_ACCESS), CHUNKS)
    assert plan.indexes == ("chunk_embedding",)
    assert plan.depth == 20 * K


def test_the_schema_declares_every_shard_index_the_paths_may_ask() -> None:
    for family in (CHUNKS, DOCUMENTS):
        for shard in range(SHARDS):
            assert family.shard_index(shard) in expected_indexes()
    assert f"chunk_embedding_{SHARDS:02d}" not in expected_indexes()
