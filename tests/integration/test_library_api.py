"""The typed library API against the real server and model: options as an object or as keywords
(validated by the model POST /search uses), ingestion from Python into collections, the sample
written once whichever entry point loads it, the example of docs/library.md run as written, the
notebook table and a neighbourhood as a networkx graph."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import ValidationError

from anchorgraph.embedding import Embedder
from anchorgraph.errors import InvalidInput, NotFound
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.queries import Query, cypher
from anchorgraph.library import Library, open_library
from anchorgraph.retrieval.options import SearchOptions
from anchorgraph.retrieval.results import SearchResult
from anchorgraph.settings import Settings

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
FOUNDING = "people/helena-vasconcelos.md"
QUESTION = "Who asked the Fundação Aurora to give its collection to a new museum?"


def document_count(graph: Graph) -> int:
    return int(
        graph.driver.execute_query("MATCH (d:Document) RETURN count(d) AS n").records[0]["n"]
    )


@pytest.fixture(scope="module")
def library(graph: Graph, settings: Settings, embedder: Embedder) -> Iterator[Library]:
    graph.driver.execute_query(cypher(Query.DELETE_ALL))
    with open_library(settings, embedder_factory=lambda _: embedder) as library:
        stats = library.load_sample()
        assert (stats.collection, stats.documents, stats.written) == ("sample", 12, 12)
        yield library


def test_the_sample_is_written_once_whoever_loads_it(
    library: Library, settings: Settings, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    from anchorgraph.cli.serve import _load_sample  # what `anchorgraph run` (`make run`) does
    from anchorgraph.graph.driver import neo4j_auth

    monkeypatch.setenv("ANCHORGRAPH_NEO4J_URI", settings.bolt_uri)
    monkeypatch.setenv("ANCHORGRAPH_NEO4J_PASSWORD", neo4j_auth(settings)[1])
    _load_sample(Settings(), embedder)
    again = library.load_sample()
    assert (again.written, again.unchanged) == (0, 12)
    archive = library.load_archive()
    assert archive.written == 0 and archive.unchanged == archive.documents >= 20
    assert [c.name for c in library.collections()] == ["arquivo", "sample"]


def test_keywords_and_an_options_object_give_the_same_typed_result(library: Library) -> None:
    by_keywords = library(QUESTION, level="document", k=3, explain=True)
    options = SearchOptions(query=QUESTION, level="document", k=3, explain=True)
    by_object = library(options)
    assert isinstance(by_object, SearchResult)
    assert by_object.hits[0].document_id == FOUNDING
    assert [(h.chunk_id, h.score) for h in by_keywords.hits] == [
        (h.chunk_id, h.score) for h in by_object.hits
    ]
    # The breakdown adds up to the score.
    top = by_object.hits[0]
    assert top.paths and sum(p.contribution for p in top.paths.values()) == pytest.approx(
        top.score - sum(top.priors.values()), abs=1e-6
    )
    # Keywords override an options object, and are validated again.
    assert len(library(options, k=1).hits) == 1
    with pytest.raises(ValidationError):
        library(options, k=0)


@pytest.mark.parametrize(
    "options",
    [
        {"k": 0},
        {"colour": "red"},  # not a field
        {"explain": "yes"},  # strict, as in the REST API
        {"mode": "dense", "fusion": {"pagerank_weight": 1.0}},  # cross-field rule
        {"paths": ["doc_bm25"]},  # a document path at chunk level
    ],
)
def test_bad_options_are_refused_by_the_model(library: Library, options: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        library(QUESTION, **options)


def test_add_text_replace_and_delete(library: Library, graph: Graph) -> None:
    before = document_count(graph)
    text = "# Cloakroom\n\nThe cloakroom by the Mooca entrance keeps coats until 18:30."
    assert library.add_text("notes/cloakroom.md", text, tags=["visits"]).written == 1
    again = library.add_text("notes/cloakroom.md", text, tags=["visits"])
    assert (again.written, again.unchanged) == (0, 1)
    only_it = {"document_ids": ["notes/cloakroom.md"]}
    found = library("until when are coats kept?", filters=only_it)
    assert [hit.document_id for hit in found.hits] == ["notes/cloakroom.md"]
    assert found.hits[0].title == "Cloakroom"
    # A changed text replaces the document whole, once the caller names the version it replaces.
    changed = "# Cloakroom\n\nCoats are kept until 17:00 now."
    assert library.add_text("notes/cloakroom.md", changed).refused
    etag = library.etag("notes/cloakroom.md")
    assert library.add_text("notes/cloakroom.md", changed, if_match=etag).replaced == 1
    assert "17:00" in library("coats", filters=only_it).hits[0].text
    assert document_count(graph) == before + 1
    assert library.delete(["notes/cloakroom.md"]) == 1
    assert library.delete(["notes/cloakroom.md"]) == 0
    assert library("coats", filters=only_it).hits == []
    assert document_count(graph) == before


def test_bad_documents_write_nothing(library: Library, graph: Graph) -> None:
    before = document_count(graph)
    with pytest.raises(InvalidInput):
        library.add_text("notes/empty.md", "   \n\n  ")
    with pytest.raises(InvalidInput):
        library.add_text("notes/odd.md", "some text", format="pdf")
    assert document_count(graph) == before


def test_ingest_reads_a_folder_and_reports_what_it_skipped(
    library: Library, graph: Graph, tmp_path: Path
) -> None:
    (tmp_path / "kiosk.md").write_text("# Kiosk\n\nThe kiosk sells the 2019 biennial catalogue.")
    (tmp_path / "photo.jpeg").write_bytes(b"\xff\xd8\xff")
    stats = library.ingest(tmp_path)
    assert (stats.documents, stats.written) == (1, 1)
    assert any("photo.jpeg" in warning for warning in stats.warnings)
    assert library.delete(["kiosk.md"]) == 1


def test_results_render_as_a_table_in_jupyter(library: Library) -> None:
    result = library(QUESTION, level="document", k=3, explain=True)
    html = result._repr_html_()  # type: ignore[attr-defined]
    assert html.count("<tr>") == 1 + len(result.hits)
    assert "Helena Vasconcelos, founding director" in html
    assert FOUNDING in html and "dense" in html
    # What the user and the graph wrote is escaped.
    marked_up = library("<i>founding</i> director", level="document", k=1)._repr_html_()  # type: ignore[attr-defined]
    assert "&lt;i&gt;founding&lt;/i&gt;" in marked_up and "<i>" not in marked_up


def test_a_neighbourhood_becomes_a_networkx_graph(library: Library) -> None:
    from anchorgraph.adapters.notebook import neighbourhood_graph, neighbourhood_of

    found = neighbourhood_of(library, FOUNDING, collection="sample", depth=1)
    graph = neighbourhood_graph(found)
    assert graph.number_of_nodes() == len(found.nodes)
    assert graph.number_of_edges() == len(found.relationships)
    center = graph.nodes[graph.graph["center"]]
    assert center["labels"] == ["Document"] and center["id"] == f"sample/{FOUNDING}"
    assert center["caption"] == "Helena Vasconcelos, founding director"
    chunks = [
        end
        for start, end, data in graph.edges(data=True)
        if start == found.center and data["type"] == "HAS_CHUNK"
    ]
    assert chunks and all("Chunk" in graph.nodes[chunk]["labels"] for chunk in chunks)
    with pytest.raises(NotFound):
        neighbourhood_of(library, "no/such/document.md", collection="sample")
    with pytest.raises(NotFound):
        neighbourhood_of(library, FOUNDING)  # not in the collection default


def test_the_example_of_docs_library_md_runs(
    library: Library,
    graph: Graph,
    settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from anchorgraph.graph.driver import neo4j_auth

    text = (ROOT / "docs" / "library.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    assert len(blocks) == 1
    before = document_count(graph)
    # As a reader runs it: settings from the environment, the model loaded by open_library.
    monkeypatch.setenv("ANCHORGRAPH_NEO4J_URI", settings.bolt_uri)
    monkeypatch.setenv("ANCHORGRAPH_NEO4J_PASSWORD", neo4j_auth(settings)[1])
    exec(compile(blocks[0], "docs/library.md", "exec"), {"__name__": "__docs__"})
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "12 documents read into 'sample', 0 written"  # as the fixture left it
    assert printed[1].startswith(f"1 {FOUNDING} ")
    # The two documents about the storerooms' climate score within 0.02 of each other, and which
    # comes first moves with the BM25 statistics of the whole full-text index, which the
    # archive the test above loaded (as `make run` does) shares: either is the answer.
    assert re.match(r"top: climate/(incident-2022|ag-2048)\.md supporting: \['\S", printed[4])
    assert printed[5:] == ["found: notes/tour.md", "deleted: 1"]
    assert document_count(graph) == before
