"""The document link graph against a real graph with the fake embedder (docs/link_graph.md):
what the graph holds becomes the right documents and weighted edges, PageRank is written back
as the documents' prior, the ``anchorgraph graph`` commands export and rank, and
``GET /graph/neighbourhood`` answers a bounded neighbourhood without embeddings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import networkx as nx
import pytest
from fastapi.testclient import TestClient

from anchorgraph.api.graph import TEXT_CHARS, neighbourhood
from anchorgraph.app import create_app
from anchorgraph.embedding import HashEmbedder
from anchorgraph.graph.gateway import Graph
from anchorgraph.link_graph import pagerank, read_link_graph, run_pagerank
from anchorgraph.loaders.entities import EntityExtractor
from anchorgraph.loaders.ingest import Ingestor
from anchorgraph.loaders.model import SourceDocument
from anchorgraph.loaders.read import read_bytes
from anchorgraph.settings import Settings

pytestmark = pytest.mark.integration

# Gamma is linked from Alpha (twice: the document and a section), Beta and Delta; Alpha from
# Gamma; Beta from Alpha. Alpha's own section, a missing page and a web page are not documents
# of the link graph; notes/epsilon.md links nowhere and nothing links to it.
CORPUS = {
    "a.md": "# Alpha\n\nAlpha cites [Beta](b.md), [Gamma](c.md) and [its details](c.md#details)."
    " See [more](#more), [nothing](missing.md) and [the web](https://example.org/x).\n\n"
    "## More\n\nMore about Alpha.\n",
    "b.md": "# Beta\n\nBeta builds on [Gamma](c.md).\n",
    "c.md": "# Gamma\n\nGamma answers [Alpha](a.md).\n\n## Details\n\nThe details of Gamma.\n",
    "d.md": "# Delta\n\nDelta points at [Gamma's details](c.md#details).\n",
    "notes/epsilon.md": "# Epsilon\n\nEpsilon stands alone, " + "long words " * 200 + "\n",
}
EDGES = {
    ("a.md", "b.md"): 1,
    ("a.md", "c.md"): 2,
    ("b.md", "c.md"): 1,
    ("c.md", "a.md"): 1,
    ("d.md", "c.md"): 1,
}


def corpus() -> list[SourceDocument]:
    return [
        read_bytes(text.encode(), doc_id=doc_id, fmt="markdown", max_bytes=10**6)
        for doc_id, text in CORPUS.items()
    ]


@pytest.fixture
def linked(clean_graph: Graph, fake_embedder: HashEmbedder) -> Graph:
    Ingestor(clean_graph, fake_embedder, EntityExtractor(None)).ingest(corpus())
    return clean_graph


def stored_priors(graph: Graph) -> dict[str, tuple[float | None, int | None]]:
    records = graph.driver.execute_query(
        "MATCH (d:Document) RETURN substring(d.id, size(d.collection) + 1) AS id, "
        "d.pagerank AS score, d.pagerank_rank AS rank"
    ).records
    return {record["id"]: (record["score"], record["rank"]) for record in records}


def test_the_link_graph_has_every_document_and_the_resolved_links(linked: Graph) -> None:
    digraph = read_link_graph(linked, "default")
    assert set(digraph.nodes) == set(CORPUS)
    assert digraph.nodes["a.md"]["title"] == "Alpha"
    assert digraph.nodes["notes/epsilon.md"]["title"] == "Epsilon"
    assert {(u, v): w for u, v, w in digraph.edges(data="weight")} == EDGES
    assert digraph.degree("notes/epsilon.md") == 0


def test_pagerank_is_written_back_as_the_prior(linked: Graph) -> None:
    summary = run_pagerank(linked, "default")
    priors = stored_priors(linked)
    assert summary.written == summary.documents == len(CORPUS) == len(priors)
    assert summary.links == sum(EDGES.values()) and summary.edges == len(EDGES)
    assert summary.dangling == 1  # epsilon
    # Gamma, linked from three documents, is first, and the ranks follow the stored scores.
    assert priors["c.md"][1] == 1 and summary.top[0].id == "c.md"
    assert summary.top[0].title == "Gamma" and summary.top[0].in_links == 4
    by_rank = sorted(priors.items(), key=lambda item: item[1][1] or 0)
    assert [rank for _, (_, rank) in by_rank] == [1, 2, 3, 4, 5]
    scores = [score or 0.0 for _, (score, _) in by_rank]
    assert scores == sorted(scores, reverse=True)
    assert sum(scores) == pytest.approx(1.0, abs=1e-6)
    assert {row.id: row.score for row in summary.top} == pytest.approx(
        pagerank(read_link_graph(linked, "default"))
    )
    # What fusion reads (search/document_priors.cypher) is the stored score.
    from anchorgraph.graph.queries import Query

    keys = ["default/c.md", "default/missing.md"]
    rows = linked.read(Query.DOCUMENT_PRIORS, {"document_ids": keys})
    assert [(row["document_id"], row["pagerank"]) for row in rows] == [
        ("default/c.md", priors["c.md"][0])
    ]

    again = run_pagerank(linked, "default", 0.5, write=False)
    assert again.written == 0 and stored_priors(linked) == priors  # --no-write leaves them


def test_cli_export_and_pagerank(
    linked: Graph, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from anchorgraph.cli.main import app
    from anchorgraph.graph.driver import neo4j_auth

    monkeypatch.setenv("ANCHORGRAPH_NEO4J_URI", settings.bolt_uri)
    monkeypatch.setenv("ANCHORGRAPH_NEO4J_PASSWORD", neo4j_auth(settings)[1])
    runner = CliRunner()

    out = tmp_path / "out" / "links.graphml"
    done = runner.invoke(app, ["graph", "export", str(out)])
    assert done.exit_code == 0, done.output
    assert "5 documents, 5 linked pairs (6 links)" in done.output
    exported = nx.read_graphml(out)
    assert set(exported.nodes) == set(CORPUS)
    assert {(u, v): w for u, v, w in exported.edges(data="weight")} == EDGES
    assert exported.nodes["c.md"]["title"] == "Gamma"
    nowhere = tmp_path / "nowhere.graphml"
    missing = runner.invoke(app, ["graph", "export", str(nowhere), "-c", "nowhere"])
    assert missing.exit_code == 1 and "No collection named 'nowhere'" in missing.output
    assert not nowhere.exists()

    dry = runner.invoke(app, ["graph", "pagerank", "--no-write"], terminal_width=200)
    assert dry.exit_code == 0, dry.output
    assert "PageRank" in dry.output and "Gamma" in dry.output and "nothing stored" in dry.output
    assert all(score is None for score, _ in stored_priors(linked).values())

    done = runner.invoke(app, ["graph", "pagerank", "--damping", "0.9"], terminal_width=200)
    assert done.exit_code == 0, done.output
    assert "prior stored on 5 documents" in done.output
    assert stored_priors(linked)["c.md"][1] == 1

    refused = runner.invoke(app, ["graph", "pagerank", "--damping", "1"])
    assert refused.exit_code == 2 and "damping" in refused.output


def every_key(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {key for item in value.values() for key in every_key(item)}
    if isinstance(value, list):
        return {key for item in value for key in every_key(item)}
    return set()


def test_the_neighbourhood_of_a_document(linked: Graph) -> None:
    near = neighbourhood(linked, "default", "c.md")
    assert near is not None and not near.truncated
    by_id = {node.id: node for node in near.nodes}
    center = by_id[near.center]
    # Properties as the graph stores them: ids are keys, collection first.
    assert center.labels == ["Document"] and center.properties["id"] == "default/c.md"
    assert center.caption == "Gamma"
    keys = {node.properties.get("id") for node in near.nodes}
    # Its chunks, the chunks linking to the document itself, and the collection it sits in.
    assert {"default/c.md#0", "default/a.md#0", "default/b.md#0"} <= keys
    assert "default/d.md#0" not in keys
    assert "Collection" in {label for node in near.nodes for label in node.labels}
    assert all(r.start in by_id and r.end in by_id for r in near.relationships)
    types = {r.type for r in near.relationships}
    assert {"HAS_CHUNK", "LINKS_TO", "CONTAINS"} <= types
    assert "HAS_TERM" not in types and "Term" not in {
        label for n in near.nodes for label in n.labels
    }

    far = neighbourhood(linked, "default", "c.md", depth=2)
    assert far is not None
    far_keys = {node.properties.get("id") for node in far.nodes}
    # Through c's chunk, and a link.
    assert keys < far_keys and {"default/a.md", "default/d.md#0"} <= far_keys
    assert len(far.nodes) <= 100

    cut = neighbourhood(linked, "default", "c.md", depth=2, limit=3)
    assert cut is not None and cut.truncated and len(cut.nodes) == 3
    assert cut.nodes[0].id == cut.center  # nearest first
    assert neighbourhood(linked, "default", "missing.md") is None  # a placeholder is no document
    assert neighbourhood(linked, "other", "c.md") is None  # nor another collection's


def test_rest_neighbourhood(linked: Graph, settings: Settings, fake_embedder: HashEmbedder) -> None:
    app = create_app(settings, embedder_factory=lambda _: fake_embedder)
    with TestClient(app) as client:
        answer = client.get("/graph/neighbourhood/a.md#0".replace("#", "%23"))
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert set(body) == {"center", "nodes", "relationships", "truncated"}
        nodes = {node["id"]: node for node in body["nodes"]}
        assert nodes[body["center"]]["labels"] == ["Chunk"]
        assert nodes[body["center"]]["properties"]["id"] == "default/a.md#0"
        assert {"Document", "Chunk", "Unresolved"} <= {
            label for node in body["nodes"] for label in node["labels"]
        }
        assert {"LINKS_TO", "HAS_CHUNK"} <= {r["type"] for r in body["relationships"]}
        for relationship in body["relationships"]:
            assert {"id", "type", "start", "end", "properties"} == set(relationship)
            assert relationship["start"] in nodes and relationship["end"] in nodes
        links = [r for r in body["relationships"] if r["type"] == "LINKS_TO"]
        assert {"href", "anchor_text"} <= set(links[0]["properties"])

        # An id with a slash, at depth 2: long texts are cut, and no embedding anywhere.
        deep = client.get("/graph/neighbourhood/notes/epsilon.md", params={"depth": 2})
        assert deep.status_code == 200, deep.text
        texts = [
            node["properties"]["text"] for node in deep.json()["nodes"] if "Chunk" in node["labels"]
        ]
        assert texts and max(len(text) for text in texts) <= TEXT_CHARS
        for response in (answer, deep):
            keys = every_key(response.json())
            assert not {key for key in keys if key.endswith("embedding")}, keys

        small = client.get("/graph/neighbourhood/c.md", params={"limit": 2})
        assert small.status_code == 200 and small.json()["truncated"]
        assert len(small.json()["nodes"]) == 2

        unknown = client.get("/graph/neighbourhood/no/such.md")
        assert unknown.status_code == 404
        elsewhere = client.get("/graph/neighbourhood/c.md", params={"collection": "other"})
        assert elsewhere.status_code == 404
        assert unknown.headers["content-type"] == "application/problem+json"
        assert unknown.json()["type"] == "urn:anchorgraph:problem:not-found"
        for bad in ({"depth": 3}, {"depth": 0}, {"limit": 0}, {"limit": 501}):
            assert client.get("/graph/neighbourhood/c.md", params=bad).status_code == 422, bad
