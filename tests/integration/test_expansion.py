"""Hyperlink expansion against the real server and model, on the sample corpus's links: links
land where they should (a fragment on its heading's chunk, a document on its chunk closest to the
anchor context), supporting chunks come with their path, budgets and one registry per answer
hold, the output is deterministic, and the REST API and the CLI take the options."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sample_graph import SampleGraphs

from anchorgraph.app import create_app
from anchorgraph.embedding import Embedder
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.queries import Query
from anchorgraph.retrieval.context import SearchContext
from anchorgraph.retrieval.options import SearchOptions
from anchorgraph.retrieval.pipeline import search
from anchorgraph.retrieval.results import SearchResult
from anchorgraph.settings import Settings

pytestmark = [pytest.mark.integration, pytest.mark.slow]

QUERY = "what happened in the Gallery 3 incident?"


@pytest.fixture(scope="module")
def context(sample_graph: SampleGraphs, embedder: Embedder) -> Iterator[SearchContext]:
    context = SearchContext(sample_graph(embedder), embedder)
    yield context
    context.close()


def expanded(context: SearchContext, **options: object) -> SearchResult:
    """The search with links alone, its supporting chunks under their hits only (the default
    search also bridges and ranks them: test_graph_default.py)."""
    request = {"query": QUERY, "expand": True, "bridge": False, "expand_rank": False}
    return search(context, SearchOptions.model_validate({**request, **options}))


def reach(sources: list[str], depth: int, threshold: float, **changed: Any) -> dict[str, Any]:
    """The expansion read's parameters, links only unless ``changed`` says otherwise."""
    return {
        "sources": sources,
        "hits": sources,
        "depth": depth,
        "threshold": threshold,
        "bridge_threshold": threshold,
        "links": True,
        "entities": False,
        "beside_links": False,
        "max_mentions": 20,
        "fanout": 6,
        "vector": [1.0] + [0.0] * 383,
    } | changed


def links_reached(
    graph: Graph, sources: list[str], depth: int, threshold: float
) -> list[dict[str, Any]]:
    """The expansion's read with links only, one entry per hop (with the chunk it leaves)."""
    (read,) = graph.read(Query.EXPAND_REACHED, reach(sources, depth, threshold))
    return [
        {"source_id": row["source_id"], **hop} for row in read["sources"] for hop in row["hops"]
    ]


def test_every_link_carries_its_context_embedding(context: SearchContext, graph: Graph) -> None:
    records = graph.driver.execute_query(
        "MATCH ()-[l:LINKS_TO]->() RETURN count(l) AS links, "
        "count(l.context_embedding) AS embedded, min(size(l.context_embedding)) AS dimension"
    ).records
    assert records[0]["links"] > 20 and records[0]["embedded"] == records[0]["links"]
    assert records[0]["dimension"] == 384


def test_links_land_on_the_heading_or_the_closest_chunk(
    context: SearchContext, graph: Graph
) -> None:
    rows = links_reached(graph, ["default/timeline.md#0", "default/timeline.md#1"], 1, -1.0)
    by_href = {row["href"]: row for row in rows}
    founding = by_href["people/helena-vasconcelos.md#founding-years"]
    slugs = graph.driver.execute_query(
        "MATCH (c:Chunk {id: $id}) RETURN c.heading_slugs AS slugs", id=founding["landing_id"]
    ).records[0]["slugs"]
    assert "founding-years" in slugs
    # A link to a whole document lands on the chunk the anchor context is closest to.
    for row in rows:
        if "#" in row["href"]:
            continue
        cosines = graph.driver.execute_query(
            "MATCH (s:Chunk {id: $source})-[l:LINKS_TO {href: $href}]->(:Document)"
            "-[:HAS_CHUNK]->(c:Chunk) "
            "RETURN c.id AS id, vector.similarity.cosine(c.embedding, l.context_embedding) AS s",
            source=row["source_id"], href=row["href"],
        ).records  # fmt: skip
        best = max(cosines, key=lambda r: (r["s"], [-ord(ch) for ch in r["id"]]))
        assert row["landing_id"] == best["id"]


@pytest.mark.parametrize("threshold", [-1.0, 0.3])
def test_one_read_follows_the_levels_above_the_threshold(
    context: SearchContext, graph: Graph, threshold: float
) -> None:
    sources = ["default/timeline.md#0", "default/timeline.md#1"]

    def reached(depth: int) -> list[dict[str, Any]]:
        return links_reached(graph, sources, depth, threshold)

    first, both = reached(1), reached(2)
    assert {row["source_id"] for row in first} <= set(sources)
    valid = {row["landing_id"] for row in first if row["validation"] >= threshold} - set(sources)
    second = [row for row in both if row["source_id"] not in sources]
    assert second  # the sample corpus's landings link on
    assert {row["source_id"] for row in second} <= valid
    assert [row for row in both if row["source_id"] in sources] == first
    # A link below the threshold is never followed, so the read leaves it out.
    assert all(row["validation"] >= threshold for row in both)
    # Each reached chunk's links come once, however many links landed on it.
    keys = [(row["source_id"], row["landing_id"], row["href"]) for row in both]
    assert len(keys) == len(set(keys))


def test_the_read_hydrates_the_hits_and_the_landings_as_the_hydration_does(
    context: SearchContext, graph: Graph
) -> None:
    # The expansion's read gives the chunks a search may return, so that the search makes no
    # round trip for the expansion: the hits and every landing, as hydrate_chunks gives them.
    sources = ["default/timeline.md#0", "default/timeline.md#1"]
    hits = [*sources, "default/index.md#0"]
    parameters = reach(sources, 2, 0.0, hits=hits, entities=True, beside_links=True)
    (read,) = graph.read(Query.EXPAND_REACHED, parameters)
    landings = {hop["landing_id"] for row in read["sources"] for hop in row["hops"]}
    assert landings - set(hits), "the sample corpus's hits reach no other chunk"
    hydrated = {chunk["chunk_id"]: chunk for chunk in read["chunks"]}
    assert set(hydrated) == set(hits) | landings
    (row,) = graph.read(Query.HYDRATE_CHUNKS, {"chunk_ids": sorted(hydrated)})
    assert {chunk["chunk_id"]: chunk for chunk in row["chunks"]} == hydrated


def test_supporting_chunks_with_their_paths_and_one_registry(context: SearchContext) -> None:
    result = expanded(context, k=5)
    supporting = [s for hit in result.hits for s in hit.supporting]
    assert supporting, "the sample corpus's links gave no supporting chunk"
    seen = [hit.chunk_id for hit in result.hits] + [s.chunk_id for s in supporting]
    assert len(seen) == len(set(seen))  # every chunk once in the whole answer
    for hit in result.hits:
        assert len(hit.supporting) <= 3
        for s in hit.supporting:
            assert 1 <= s.hop == len(s.path) <= 2
            assert s.path[0].from_chunk_id == hit.chunk_id
            assert all(step.validation >= 0.3 and step.anchor_text for step in s.path)
            assert s.text and s.title
            assert s.document_tokens >= s.n_tokens > 0  # its whole document, from the hydration
            assert s.score < s.parent_score <= hit.score
    tokens = result.tokens
    assert tokens is not None
    assert tokens.without_expansion < tokens.returned < tokens.parent_windows


def test_budgets_threshold_and_determinism(context: SearchContext) -> None:
    first = expanded(context, k=5)
    assert expanded(context, k=5).model_dump(exclude={"timings", "total_ms"}) == first.model_dump(
        exclude={"timings", "total_ms"}
    )
    one = expanded(context, k=5, expand_per_hit=1, expand_depth=1)
    assert all(len(hit.supporting) <= 1 for hit in one.hits)
    assert all(s.hop == 1 for hit in one.hits for s in hit.supporting)
    strict = expanded(context, k=5, expand_threshold=0.99)
    assert not any(hit.supporting for hit in strict.hits)
    small = expanded(context, k=5, expand_tokens=150)
    assert sum(s.n_tokens for hit in small.hits for s in hit.supporting) <= 150


def test_supporting_chunks_can_enter_the_ranking(context: SearchContext) -> None:
    flat = search(context, SearchOptions(query=QUERY, k=5, expand={"links": False}))
    ranked = expanded(context, k=5, expand_rank=True)
    supporting = {s.chunk_id: s.score for hit in ranked.hits for s in hit.supporting}
    ids = [hit.chunk_id for hit in ranked.hits]
    # Still k hits, the best of the hits and the chunks their links reached.
    assert len(ids) == 5 and set(ids) <= {hit.chunk_id for hit in flat.hits} | set(supporting)
    assert set(ids) & set(supporting)
    scores = [hit.score for hit in ranked.hits]
    assert scores == sorted(scores, reverse=True)
    assert all(score <= scores[-1] for chunk, score in supporting.items() if chunk not in ids)
    # A chunk placed by the score it inherited shows that score as its one part.
    flat_ids = {hit.chunk_id for hit in flat.hits}
    placed = [hit for hit in ranked.hits if hit.chunk_id not in flat_ids]
    assert placed and all(hit.priors == {"expansion": hit.score} for hit in placed)
    # Without expand_rank the ranking is the flat one.
    assert [h.chunk_id for h in expanded(context, k=5).hits] == [h.chunk_id for h in flat.hits]


def test_rest_and_cli_expand(
    settings: Settings, context: SearchContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    with TestClient(create_app(settings)) as client:
        response = client.post("/search", json={"query": QUERY, "expand": True, "k": 5})
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["tokens"]["returned"] > body["tokens"]["without_expansion"]
        assert any(hit["supporting"] for hit in body["hits"])
        bad = client.post("/search", json={"query": QUERY, "expand": True, "expand_depth": 9})
        assert bad.status_code == 422

    from typer.testing import CliRunner

    from anchorgraph.cli.main import app
    from anchorgraph.graph.driver import neo4j_auth

    monkeypatch.setenv("ANCHORGRAPH_NEO4J_URI", settings.bolt_uri)
    monkeypatch.setenv("ANCHORGRAPH_NEO4J_PASSWORD", neo4j_auth(settings)[1])
    done = CliRunner().invoke(app, ["search", QUERY, "-k", "5", "--expand", "--json"])
    assert done.exit_code == 0, done.output
    assert any(hit["supporting"] for hit in json.loads(done.output)["hits"])


def test_ingest_links_titles_and_expansion_follows_them(
    context: SearchContext, settings: Settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Runs last: it adds a folder of unlinked documents to the module's graph.
    folder = tmp_path / "atlas"
    folder.mkdir()
    pages = {
        "ostrava.md": ("Ostrava Lighthouse", "The Ostrava Lighthouse was built in 1911 by "
                       "engineers from the Harbour Board of Velna."),
        "board.md": ("Harbour Board of Velna", "The Harbour Board of Velna ran the port from "
                     "1870 to 1960 and employed 400 pilots."),
        "velna.md": ("Velna", "Velna is a port town. Its best-known landmark is the Ostrava "
                     "Lighthouse."),
    }  # fmt: skip
    for name, (title, text) in pages.items():
        (folder / name).write_text(f"---\ntitle: {title}\n---\n\n{text}\n")

    from typer.testing import CliRunner

    from anchorgraph.cli.main import app
    from anchorgraph.graph.driver import neo4j_auth

    monkeypatch.setenv("ANCHORGRAPH_NEO4J_URI", settings.bolt_uri)
    monkeypatch.setenv("ANCHORGRAPH_NEO4J_PASSWORD", neo4j_auth(settings)[1])
    done = CliRunner().invoke(app, ["ingest", str(folder), "--link-titles", "--threads", "1"])
    assert done.exit_code == 0, done.output
    assert "title links: 2 links in 2 of 3 documents" in done.output
    atlas = {"document_ids": list(pages)}  # ids relative to the ingested folder
    # k=1: a hit is never another hit's support, and all three would be hits.
    options = SearchOptions(query="who built the lighthouse?", k=1, expand=True, filters=atlas)
    first = search(context, options).hits[0]
    assert first.document_id == "ostrava.md"
    assert [s.document_id for s in first.supporting] == ["board.md"]
    assert first.supporting[0].path[0].anchor_text == "Harbour Board of Velna"
