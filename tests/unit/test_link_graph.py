"""The link graph and PageRank on graphs small enough to work out by hand (service/link_graph),
and what the neighbourhood endpoint lets out of a node's properties (service/api/graph)."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import pytest

from anchorgraph.api.graph import TEXT_CHARS, bounded, caption, visible_properties
from anchorgraph.errors import InvalidInput
from anchorgraph.link_graph import (
    build_digraph,
    export_graphml,
    iterations_bound,
    pagerank,
    ranked,
    summarise,
)


def digraph(edges: dict[tuple[str, str], int], isolated: tuple[str, ...] = ()) -> nx.DiGraph:
    graph = nx.DiGraph()
    graph.add_nodes_from(isolated)
    for (source, target), weight in edges.items():
        graph.add_edge(source, target, weight=weight)
    for node in graph:
        graph.nodes[node]["title"] = node.upper()
    return graph


# --- PageRank -------------------------------------------------------------------------------
def test_scores_sum_to_one() -> None:
    graph = digraph({("a", "b"): 1, ("b", "c"): 2, ("c", "a"): 1, ("a", "c"): 1}, ("d",))
    scores = pagerank(graph)
    assert set(scores) == {"a", "b", "c", "d"}
    assert sum(scores.values()) == pytest.approx(1.0, abs=1e-9)


def test_a_page_more_pages_link_to_ranks_higher() -> None:
    # c is linked from a, b and d; b from a only.
    graph = digraph({("a", "b"): 1, ("a", "c"): 1, ("b", "c"): 1, ("d", "c"): 1})
    scores = pagerank(graph)
    assert scores["c"] > scores["b"] > scores["a"] == pytest.approx(scores["d"])
    assert ranked(scores)[0][:2] == (1, "c")


def test_weights_are_links() -> None:
    # From a: three links to b, one to c; nothing else tells b and c apart.
    scores = pagerank(digraph({("a", "b"): 3, ("a", "c"): 1}))
    assert scores["b"] > scores["c"]


def test_a_dangling_page_spreads_its_score_over_all() -> None:
    # a → b, b has no links out: b acts as linking to a and b alike. With d = 0.85,
    #   PR(a) = 0.15/2 + 0.85 · PR(b)/2,  PR(b) = 0.15/2 + 0.85 · (PR(a) + PR(b)/2),
    # so with PR(a) + PR(b) = 1: PR(b) = 0.925 / 1.425 and PR(a) = 0.5 / 1.425.
    scores = pagerank(digraph({("a", "b"): 1}))
    assert scores["b"] == pytest.approx(0.925 / 1.425, abs=1e-6)
    assert scores["a"] == pytest.approx(0.5 / 1.425, abs=1e-6)
    # Only isolated documents: every one dangling, all equal.
    alone = pagerank(digraph({}, ("x", "y", "z", "w")))
    assert alone == pytest.approx(dict.fromkeys("xyzw", 0.25))


def test_damping_near_one_still_converges_and_outside_is_refused() -> None:
    for damping in (0.5, 0.85, 0.99, 0.999):
        k = iterations_bound(damping)
        assert 2 * damping ** (k - 1) < 1e-6 <= 2 * damping ** (k - 2)
    assert iterations_bound(0.85) == 91
    # A long chain converges slowly; the bound still suffices (no PowerIterationFailedConvergence).
    chain = digraph({(f"n{i:03}", f"n{i + 1:03}"): 1 for i in range(300)})
    assert sum(pagerank(chain, damping=0.99).values()) == pytest.approx(1.0, abs=1e-6)
    for damping in (0.0, 1.0, -0.1, 1.5):
        with pytest.raises(InvalidInput):
            pagerank(chain, damping=damping)
    assert pagerank(nx.DiGraph()) == {}


def test_ranks_break_ties_by_id() -> None:
    assert ranked({"b": 0.25, "a": 0.25, "c": 0.5}) == [
        (1, "c", 0.5),
        (2, "a", 0.25),
        (3, "b", 0.25),
    ]


def test_summary_counts_links_pairs_and_dangling_documents() -> None:
    graph = digraph({("a", "c"): 2, ("b", "c"): 1, ("c", "a"): 1}, ("d",))
    summary = summarise(graph, pagerank(graph), 0.85, written=4, top=2)
    assert (summary.documents, summary.links, summary.edges, summary.dangling) == (4, 4, 3, 1)
    assert summary.written == 4 and summary.max_iterations == 91
    assert [(row.rank, row.id, row.title, row.in_links) for row in summary.top] == [
        (1, "c", "C", 3),
        (2, "a", "A", 1),
    ]


# --- the graph as read, and as GraphML -----------------------------------------------------------
def test_rows_become_documents_and_weighted_edges() -> None:
    rows = [
        {"id": "a.md", "title": "A", "links": [{"target": "b.md", "links": 2}]},
        {"id": "b.md", "title": "B", "links": []},
        {"id": "lonely.md", "title": "", "links": []},
    ]
    graph = build_digraph(rows)
    assert sorted(graph.nodes(data="title")) == [("a.md", "A"), ("b.md", "B"), ("lonely.md", "")]
    assert list(graph.edges(data="weight")) == [("a.md", "b.md", 2)]


def test_graphml_round_trip(tmp_path: Path) -> None:
    graph = digraph({("notes/a.md", "b.md#0"): 3, ("b.md#0", "notes/a.md"): 1}, ("c & d.md",))
    graph.nodes["notes/a.md"]["title"] = "Ünïcode <a> & \x01bell"
    path = export_graphml(graph, tmp_path / "links.graphml")
    back = nx.read_graphml(path)
    assert back.is_directed()
    assert set(back.nodes) == {"notes/a.md", "b.md#0", "c & d.md"}
    assert dict(back.nodes(data="title")) == {
        "notes/a.md": "Ünïcode <a> & bell",  # the control character XML cannot carry is gone
        "b.md#0": "B.MD#0",
        "c & d.md": "C & D.MD",
    }
    assert sorted(back.edges(data="weight")) == [
        ("b.md#0", "notes/a.md", 1),
        ("notes/a.md", "b.md#0", 3),
    ]


# --- what the neighbourhood lets out -----------------------------------------------------------
def test_properties_shown_have_no_embeddings_and_bounded_texts() -> None:
    properties = {
        "id": "a.md#0",
        "text": "x" * 1000,
        "embedding": [0.1] * 384,
        "context_embedding": [0.2] * 384,
        "heading_slugs": [f"h{i}" for i in range(80)],
        "n_tokens": 120,
        "fd_raw": 0.5,
        "missing": None,
    }
    shown = visible_properties(properties)
    assert list(shown) == ["fd_raw", "heading_slugs", "id", "n_tokens", "text"]
    assert shown["text"] == "x" * TEXT_CHARS and len(shown["heading_slugs"]) == 50
    assert bounded(["y" * 400]) == ["y" * TEXT_CHARS]
    assert bounded(7) == 7


def test_captions_name_nodes_by_label() -> None:
    assert caption(["Document"], {"id": "a.md", "title": "Alpha"}) == "Alpha"
    assert caption(["Document"], {"id": "a.md", "title": ""}) == "a.md"
    assert caption(["Chunk"], {"id": "a.md#0", "text": "Some text"}) == "a.md#0"
    assert caption(["Entity"], {"id": "q1", "name": "Lisbon"}) == "Lisbon"
    assert caption(["Claim"], {"id": "c", "text": "z" * 200}) == "z" * 80
    assert caption(["Unresolved"], {"key": "missing.md"}) == "missing.md"
    assert caption(["Folder"], {"path": "", "name": ""}) == "Folder"
    assert caption(["Other"], {"name": "thing"}) == "thing"
