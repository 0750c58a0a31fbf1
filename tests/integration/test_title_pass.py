"""The title-link pass over an existing graph (``anchorgraph graph link-titles``), against the real
server and model: it makes the links ``ingest --link-titles`` makes, keeps written links (and
their anchors) winning, replaces its own links when run again, and ``--remove`` takes them out."""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_graph import SampleGraphs

from anchorgraph.embedding import Embedder
from anchorgraph.graph.gateway import Graph
from anchorgraph.ingestion import read_all
from anchorgraph.loaders.model import SourceDocument
from anchorgraph.loaders.title_links import TITLE_LINK_MARK
from anchorgraph.loaders.title_pass import link_titles_in_graph
from anchorgraph.settings import Settings

pytestmark = [pytest.mark.integration, pytest.mark.slow]

PAGES = {
    "ostrava.md": (
        "Ostrava Lighthouse",
        "The Ostrava Lighthouse was built in 1911 by engineers from the Harbour Board of Velna.",
    ),
    "board.md": (
        "Harbour Board of Velna",
        "The Harbour Board of Velna ran the port from 1870 to 1960 and employed 400 pilots.",
    ),
    # A written link whose anchor is a title: the title linker must leave it alone, and link
    # the other title mentioned.
    "velna.md": (
        "Velna",
        "Velna is a port town run by the [Harbour Board of Velna](board.md). Its best-known "
        "landmark is the Ostrava Lighthouse.",
    ),
}

Link = tuple[str, str, str, str, str, str, bool]


def links(graph: Graph) -> set[Link]:
    """Every link out of a chunk: chunk, href, anchor, context, fragment, target, embedded (ids
    within their collection)."""
    records = graph.driver.execute_query(
        "MATCH (c:Chunk)-[l:LINKS_TO]->(t) WITH c, l, t, size(c.collection) + 1 AS cut "
        "RETURN substring(c.id, cut) AS chunk, l.href AS href, l.anchor_text AS anchor, "
        "l.context AS context, l.fragment AS fragment, "
        "substring(coalesce(t.id, t.key), cut) AS target, "
        "l.context_embedding IS NOT NULL AS embedded"
    ).records
    return {tuple(record.values()) for record in records}  # type: ignore[misc]


def title_links(graph: Graph) -> set[Link]:
    return {link for link in links(graph) if link[1].endswith(TITLE_LINK_MARK)}


@pytest.fixture(scope="module")
def atlas(settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> list[SourceDocument]:
    """The pages above, ingested after the sample corpus's (they mention each other's titles)."""
    folder: Path = tmp_path_factory.mktemp("atlas")
    for name, (title, text) in PAGES.items():
        (folder / name).write_text(f"---\ntitle: {title}\n---\n\n{text}\n")
    documents, _ = read_all(settings, folder)
    return documents


@pytest.fixture(scope="module")
def at_ingest(
    sample_graph: SampleGraphs, embedder: Embedder, atlas: list[SourceDocument]
) -> set[Link]:
    """The links of the corpus ingested with title linking (``ingest --link-titles``)."""
    return links(sample_graph(embedder, extra=atlas, link_titles=True))


def test_the_pass_makes_the_links_ingest_makes(
    sample_graph: SampleGraphs,
    embedder: Embedder,
    atlas: list[SourceDocument],
    at_ingest: set[Link],
) -> None:
    graph = sample_graph(embedder, extra=atlas)  # the same corpus, without title links
    written = links(graph)
    assert not title_links(graph)
    report = link_titles_in_graph(graph, embedder, "default")
    made = title_links(graph)
    assert links(graph) == at_ingest
    assert links(graph) - made == written  # written links untouched
    assert report.linking.links_made == report.links_written == len(made) > 0
    assert report.links_removed == 0
    assert all(link[6] for link in made)  # every context embedded, for validation


def test_written_links_win_over_title_mentions(graph: Graph, at_ingest: set[Link]) -> None:
    from_velna = {(link[2], link[5], link[1].endswith(TITLE_LINK_MARK)) for link in at_ingest}
    assert ("Harbour Board of Velna", "board.md", False) in from_velna  # the written one
    assert ("Ostrava Lighthouse", "ostrava.md", True) in from_velna
    # The written link's target is linked once: no title link to it from velna.md.
    velna = {link for link in title_links(graph) if link[0].startswith("velna.md")}
    assert {link[5] for link in velna} == {"ostrava.md"}


def test_run_again_replaces_and_remove_takes_out(graph: Graph, embedder: Embedder) -> None:
    before = links(graph)
    made = title_links(graph)
    again = link_titles_in_graph(graph, embedder, "default")
    assert links(graph) == before
    assert again.links_removed == again.links_written == len(made)

    removed = link_titles_in_graph(graph, embedder, "default", remove_only=True)
    assert removed.links_removed == len(made) and removed.links_written == 0
    assert links(graph) == before - made


def test_cli_link_titles(
    graph: Graph, settings: Settings, monkeypatch: pytest.MonkeyPatch, at_ingest: set[Link]
) -> None:
    from typer.testing import CliRunner

    from anchorgraph.cli.main import app
    from anchorgraph.graph.driver import neo4j_auth

    monkeypatch.setenv("ANCHORGRAPH_NEO4J_URI", settings.bolt_uri)
    monkeypatch.setenv("ANCHORGRAPH_NEO4J_PASSWORD", neo4j_auth(settings)[1])
    done = CliRunner().invoke(app, ["graph", "link-titles"])
    assert done.exit_code == 0, done.output
    made = len(title_links(graph))
    assert f"title links: {made} links in" in done.output
    assert links(graph) == at_ingest
