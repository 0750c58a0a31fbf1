"""Hybrid retrieval against the real server and model, on the sample corpus plus a few
documents written here to make each path's strength observable."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sample_graph import SampleGraphs

from anchorgraph.app import create_app
from anchorgraph.embedding import Embedder
from anchorgraph.graph.queries import Query
from anchorgraph.ingestion import sample_gazetteer
from anchorgraph.loaders.entities import GazetteerEntry
from anchorgraph.loaders.read import read_bytes
from anchorgraph.retrieval.context import SearchContext
from anchorgraph.retrieval.options import Mode, SearchOptions
from anchorgraph.retrieval.paths.base import PathName
from anchorgraph.retrieval.pipeline import search
from anchorgraph.retrieval.results import SearchResult
from anchorgraph.retrieval.stage_options import Filters
from anchorgraph.scope import DEFAULT_COLLECTION, local_id, scoped
from anchorgraph.settings import Settings

pytestmark = [pytest.mark.integration, pytest.mark.slow]

# Near-identical codes: a dense model sees them as the same thing, exact paths do not.
LAB = {
    "lab/spares.md": "# Spares\n\nSpare parts list. The ZQ-4471-B relay is kept in drawer three.",
    "lab/cabinets.md": "# Cabinets\n\nRelay ZQ-4417-B and relay QZ-4471-D are the standard relays "
    "in every ZQ-4471 series gateway cabinet; they are inspected each spring.",
    "lab/series.md": "# Series\n\nThe ZQ-4471-C relay series replaced the ZQ-4470-B relays.",
    "lab/pumps.md": "# Pumps\n\nRelays ZQ-4471-A and ZQ-4472-B switch the pumps.",
    # Shares no word with the paraphrase query below.
    "lab/canvases.md": "# Old canvases\n\nOld canvases suffer when air holds too much water: keep "
    "storerooms near half of what air could carry, and watch for damp.",
    "lab/scales.md": "# Scales\n\nOrvalho Labs calibrated the drawer scales in 2019.",
}
ORVALHO = GazetteerEntry("Orvalho Labs", "ORG", ("Orvalho",))


@pytest.fixture(scope="module")
def context(sample_graph: SampleGraphs, embedder: Embedder) -> Iterator[SearchContext]:
    lab = [
        read_bytes(text.encode(), doc_id=doc_id, fmt="markdown", folder="lab", max_bytes=10_000)
        for doc_id, text in LAB.items()
    ]
    graph = sample_graph(embedder, spacy=True, gazetteer=True, extra_entities=[ORVALHO], extra=lab)
    # The search side loads no gazetteer: aliases resolve through the graph's (:Alias) keys.
    context = SearchContext(graph, embedder)
    yield context
    context.close()


def run(context: SearchContext, query: str, **options: object) -> SearchResult:
    """The search without the graph's expansion unless asked: these are tests of the paths and
    the fusion (the expansion's are test_expansion.py, test_bridges.py, test_graph_default.py)."""
    flat = {"expand": False, "bridge": False}
    return search(context, SearchOptions(query=query, **{**flat, **options}))  # type: ignore[arg-type]


def documents(result: SearchResult) -> list[str]:
    return [hit.document_id for hit in result.hits]


def test_an_identifier_only_exact_paths_pin_down(context: SearchContext) -> None:
    dense = run(context, "ZQ-4471-B", mode=Mode.DENSE, level="document", k=3)
    bm25 = run(context, "ZQ-4471-B", mode=Mode.BM25, level="document", k=3)
    metadata = run(context, "ZQ-4471-B", paths=[PathName.METADATA], level="document")
    assert documents(bm25)[0] == "lab/spares.md"
    # The exact code first; the rest of its folder follows (same-folder clustering), lower.
    assert documents(metadata)[0] == "lab/spares.md"
    assert all(d.startswith("lab/") for d in documents(metadata))
    assert all(hit.score < metadata.hits[0].score for hit in metadata.hits[1:])
    assert documents(dense)[0] != "lab/spares.md"
    # Lower case, as people type it, still finds the identifier.
    assert run(context, "zq-4471-b").identifiers == ["zq-4471-b"]
    hybrid = run(context, "ZQ-4471-B", level="document", k=3)
    assert documents(hybrid)[0] == "lab/spares.md"


def metadata_scores(context: SearchContext, **bounds: object) -> dict[str, float]:
    """The metadata statement's candidates (document → score) for ``bounds`` and the
    parameters they leave out: no identifier, no term, every bound at 100."""
    parameters = {
        "identifier_ids": [],
        "terms": [],
        "max_cluster_mentions": 100,
        "max_folder_entries": 100,
        "max_tagged_documents": 100,
        "k": 100,
        "collections": None,
        "allowed": None,
    }
    records = context.graph.read(Query.METADATA_CHUNKS, parameters | bounds)
    return {local_id(c["document_id"]): c["score"] for c in records[0]["candidates"]}


# An identifier mentioned in one chunk, of lab/spares.md.
SPARES = [scoped(DEFAULT_COLLECTION, "zq-4471-b")]


def test_only_identifiers_in_few_chunks_cluster_their_folder(context: SearchContext) -> None:
    clustered = metadata_scores(context, identifier_ids=SPARES, max_cluster_mentions=1)
    assert clustered["lab/spares.md"] == pytest.approx(1.25)  # identified, and in the folder
    assert set(clustered) == set(LAB)
    assert {score for doc, score in clustered.items() if doc != "lab/spares.md"} == {0.25}
    alone = {"lab/spares.md": pytest.approx(1.0)}
    assert metadata_scores(context, identifier_ids=SPARES, max_cluster_mentions=0) == alone


def test_only_folders_and_tags_of_few_documents_lift_them(context: SearchContext) -> None:
    # A folder or tag of more documents than the path keeps would tie them all at one score.
    lab = metadata_scores(context, identifier_ids=SPARES, max_folder_entries=len(LAB))
    assert set(lab) == set(LAB)  # lab/ holds the six documents and no subfolder
    alone = {"lab/spares.md": pytest.approx(1.0)}
    assert metadata_scores(context, identifier_ids=SPARES, max_folder_entries=len(LAB) - 1) == alone

    tagged = metadata_scores(context, terms=["sensors"])
    assert len(tagged) >= 2 and set(tagged.values()) == {0.5}
    assert metadata_scores(context, terms=["sensors"], max_tagged_documents=len(tagged)) == tagged
    assert metadata_scores(context, terms=["sensors"], max_tagged_documents=len(tagged) - 1) == {}


def test_a_paraphrase_only_dense_search_finds(context: SearchContext) -> None:
    query = "protecting paintings from humidity"
    dense = run(context, query, mode=Mode.DENSE, level="document", k=3)
    bm25 = run(context, query, mode=Mode.BM25, level="document", k=50)
    assert documents(dense)[0] in {"lab/canvases.md", "moisture-care.md"}
    assert "lab/canvases.md" in documents(dense)
    assert "lab/canvases.md" not in documents(bm25)
    # In hybrid search the dense paths (chunks and whole documents) carry it in on their own.
    hybrid = run(context, query, level="document", k=100, explain=True)
    canvases = next(hit for hit in hybrid.hits if hit.document_id == "lab/canvases.md")
    assert set(canvases.paths) == {"dense", "doc_dense"}


@pytest.mark.parametrize("level", ["chunk", "document"])
def test_the_vector_index_scores_a_hit_by_its_exact_cosine(
    context: SearchContext, level: str
) -> None:
    """A dense search through the HNSW index (cypher/schema/vector_indexes.cypher) scores each
    hit as the exact path does, which a filter on a few documents makes compute every cosine
    itself: so a ranking does not depend on how the index's segments were built. A quantized
    index scores by bytes: a thousandth off, enough to reorder near ties."""
    query = "protecting paintings from humidity"
    indexed = run(context, query, mode=Mode.DENSE, level=level, k=10)
    found = documents(indexed)
    exact = run(
        context, query, mode=Mode.DENSE, level=level, k=50, filters=Filters(document_ids=found)
    )
    exact_scores = {(hit.document_id, hit.chunk_id): hit.score for hit in exact.hits}
    assert len(indexed.hits) == 10
    for hit in indexed.hits:
        assert hit.score == pytest.approx(exact_scores[hit.document_id, hit.chunk_id], abs=1e-6)


def test_entity_boosting_reaches_beyond_the_dense_pool(context: SearchContext) -> None:
    query = "relay maintenance schedule by Orvalho Labs"
    dense = run(context, query, mode=Mode.DENSE, level="document", k=2, k_over=2)
    boosted = run(context, query, paths=[PathName.DENSE, PathName.ENTITY], k=2, k_over=2,
                  level="document", weights={PathName.ENTITY: 1.0})  # fmt: skip
    assert "lab/scales.md" not in documents(dense)
    assert "orvalho labs" in {e.id for e in boosted.entities if e.how == "exact"}
    assert "lab/scales.md" in documents(boosted)
    multisignal = run(context, query, mode=Mode.MULTISIGNAL, k=20, k_over=20)
    scales = next(h for h in multisignal.hits if h.document_id == "lab/scales.md")
    assert scales.signals is not None and scales.signals.s_entity == 1.0


def test_rrf_ranks_agreement_first(context: SearchContext) -> None:
    result = run(context, "firmware release of the AG-2048 sensor", fusion="rrf",
                 paths=[PathName.DENSE, PathName.BM25], explain=True, k=20)  # fmt: skip
    both = [h for h in result.hits if set(h.paths) == {"dense", "bm25"}]
    one = [h for h in result.hits if len(h.paths) == 1]
    assert both and one
    assert both[0].rank < one[0].rank


@pytest.mark.parametrize("fusion", ["weighted_sum", "floor_sum", "max", "mean", "rrf"])
@pytest.mark.parametrize("normalisation", ["min_max", "l2", "z_score"])
def test_hybrid_breakdown_adds_up(context: SearchContext, fusion: str, normalisation: str) -> None:
    result = run(context, "Helena Vasconcelos biennial 2019", fusion=fusion,
                 normalisation=normalisation, explain=True)  # fmt: skip
    assert result.hits
    for hit in result.hits:
        contributions = [path.contribution for path in hit.paths.values()]
        assert math.isclose(math.fsum(contributions), hit.score, abs_tol=1e-9)
    scores = [hit.score for hit in result.hits]
    assert scores == sorted(scores, reverse=True)


def test_multisignal_breakdown_adds_up_and_uses_default_weights(context: SearchContext) -> None:
    result = run(context, "Who directed the MAC in the 1970s?", mode=Mode.MULTISIGNAL, k=5)
    assert result.level == "document" and result.hits
    for hit in result.hits:
        assert hit.signals is not None
        assert math.isclose(math.fsum(hit.signals.contributions.values()), hit.score)
        assert math.isclose(hit.signals.contributions["segment"], 0.30 * hit.signals.s_segment)
    assert "museu de arte contemporânea" in {e.id for e in result.entities}


@pytest.mark.parametrize("mode", list(Mode))
def test_filters_hold_in_every_mode(context: SearchContext, mode: Mode) -> None:
    filters = Filters(folders=["people"])
    result = run(context, "museum director exhibitions", mode=mode, filters=filters, k=20)
    assert result.hits
    assert all(hit.document_id.startswith("people/") for hit in result.hits)
    tagged = run(context, "sensor battery", mode=mode, filters=Filters(tags=["firmware"]), k=20)
    allowed = {"climate/firmware-releases.md"}
    assert tagged.hits and {hit.document_id for hit in tagged.hits} <= allowed


@pytest.mark.parametrize("fusion", ["weighted_sum", "rrf"])
def test_document_level_fuses_documents_with_the_document_paths(
    context: SearchContext, fusion: str
) -> None:
    query = "calibration of the drawer scales"
    chunks = run(context, query, explain=True, k=20, fusion=fusion)
    assert all(not set(hit.paths) & {"doc_dense", "doc_bm25"} for hit in chunks.hits)
    result = run(context, query, level="document", explain=True, k=20, fusion=fusion)
    assert result.level == "document"
    found = [hit.document_id for hit in result.hits]
    assert len(found) == len(set(found))  # one hit per document
    assert found[0] == "lab/scales.md"
    assert {"doc_dense", "doc_bm25"} <= set(result.hits[0].paths)
    for hit in result.hits:
        assert hit.chunk_id.startswith(hit.document_id)  # a chunk of that document is shown
        assert math.isclose(math.fsum(p.contribution for p in hit.paths.values()), hit.score)
    document_filter = Filters(folders=["lab"])
    filtered = run(context, query, level="document", filters=document_filter, k=20)
    assert filtered.hits and all(h.document_id.startswith("lab/") for h in filtered.hits)


def test_feedback_moves_the_dense_query_towards_the_first_ranking(context: SearchContext) -> None:
    query = "calibration of the drawer scales"
    plain = run(context, query, level="document", feedback=0, explain=True, k=10)
    assert plain.feedback_documents == [] and "feedback" not in {t.stage for t in plain.timings}
    fed = run(context, query, level="document", feedback=3, explain=True, k=10)
    assert fed.feedback_documents == documents(plain)[:3]
    assert "feedback" in {t.stage for t in fed.timings}
    assert fed.round_trips <= plain.round_trips + 3  # the vectors, then dense and doc_dense
    top = documents(plain)[0]
    before = next(hit.paths for hit in plain.hits if hit.document_id == top)
    after = next(hit.paths for hit in fed.hits if hit.document_id == top)
    assert after["doc_bm25"].raw == before["doc_bm25"].raw  # lexical paths ran once
    assert after["doc_dense"].raw != pytest.approx(before["doc_dense"].raw)  # moved vector
    # No move (weight 0) ranks exactly as no feedback.
    still = run(context, query, level="document", feedback=3, feedback_weight=0, explain=True,
                k=10)  # fmt: skip
    assert [(h.document_id, h.score) for h in still.hits] == [
        (h.document_id, h.score) for h in plain.hits
    ]


def test_cli_search(
    context: SearchContext, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from anchorgraph.cli.main import app
    from anchorgraph.graph.driver import neo4j_auth

    monkeypatch.setenv("ANCHORGRAPH_NEO4J_URI", settings.bolt_uri)
    monkeypatch.setenv("ANCHORGRAPH_NEO4J_PASSWORD", neo4j_auth(settings)[1])
    runner = CliRunner()
    done = runner.invoke(app, ["search", "ZQ-4471-B", "--json", "-k", "3", "--folder", "lab"])
    assert done.exit_code == 0, done.output
    body = json.loads(done.output)
    assert body["hits"][0]["document_id"] == "lab/spares.md"
    assert all(hit["document_id"].startswith("lab/") for hit in body["hits"])
    assert "bm25" in body["hits"][0]["paths"]  # --json explains
    shown = runner.invoke(
        app, ["search", "drawer scales", "--level", "document", "--feedback", "3", "--explain"]
    )
    assert shown.exit_code == 0, shown.output
    assert "lab/scales.md" in shown.output and "feedback from:" in shown.output
    assert "round trips" in shown.output
    refused = runner.invoke(app, ["search", "x", "--mode", "magic", "-k", "0"])
    assert refused.exit_code == 2
    assert "mode" in refused.output and "k" in refused.output


def test_aliases_stored_at_ingest_resolve_without_a_gazetteer(context: SearchContext) -> None:
    # The fixture ingested with the sample gazetteer ("MAC" → the museum); the search side has
    # none loaded, and still finds the entity exactly through the graph's alias keys, and lists
    # the acronym as an identifier of that entity.
    result = run(context, "when did the MAC open its new wing")
    exact = [e.id for e in result.entities if e.how == "exact"]
    assert "museu de arte contemporânea" in exact
    assert result.identifiers == ["museu de arte contemporânea"]


def test_threshold_and_k(context: SearchContext) -> None:
    unrestricted = run(context, "AG-2048 battery life", k=8)
    assert len(unrestricted.hits) == 8
    cut = unrestricted.hits[3].score
    limited = run(context, "AG-2048 battery life", k=8, threshold=cut)
    assert limited.hits and all(hit.score >= cut for hit in limited.hits)
    assert len(limited.hits) < 8


@pytest.mark.parametrize(
    "query",
    ['"unbalanced (quote AND title:foo~ OR bar* \\', "NOT AND OR", "+-&&||!(){}[]^\"~*?:\\/",
     "sensor~2 OR firmware^10", "AG-2048:battery"],
)  # fmt: skip
def test_lucene_syntax_in_user_text_does_not_break_a_search(
    context: SearchContext, query: str
) -> None:
    # Unescaped, each of these fails to parse (or parses into operators); escaped, the lexical
    # paths run and the hybrid fuses them with the dense path as for any text.
    result = run(context, query, mode=Mode.HYBRID, explain=True)
    assert result.candidates["dense"] > 0
    assert all(math.isfinite(hit.score) for hit in result.hits)


@pytest.mark.parametrize(
    ("query", "finds"),
    [("-humidity", True),  # a prohibited clause alone would match nothing
     ("NOT humidity", True),  # so would NOT
     ("*", False),  # a wildcard would match every chunk; as text it is no word at all
     ("humidit?", False)],  # a one-letter wildcard would find "humidity"
)  # fmt: skip
def test_lucene_operators_in_user_text_are_just_text(
    context: SearchContext, query: str, finds: bool
) -> None:
    hits = run(context, query, mode=Mode.BM25, k=20).hits
    assert bool(hits) is finds
    assert all("humidity" in hit.text.lower() for hit in hits)


def test_timings_and_round_trips_are_reported(context: SearchContext) -> None:
    result = run(context, "AG-2048", mode=Mode.MULTISIGNAL)
    stages = {timing.stage for timing in result.timings}
    assert {"analyse", "paths", "fuse", "multisignal", "hydrate"} <= stages
    # at most: detect entities, seven paths (five over chunks, two over documents), signals,
    # the expansion's read (the sample corpus holds links), hydrate and the hits' FD* (a path
    # with nothing to look for makes no round trip)
    assert result.round_trips <= 12
    assert result.total_ms > 0


def test_rest_search_and_entities(
    context: SearchContext, settings: Settings, embedder: Embedder
) -> None:
    with_gazetteer = settings.model_copy(update={"gazetteer": sample_gazetteer()})
    app = create_app(with_gazetteer, embedder_factory=lambda _: embedder)
    with TestClient(app) as client:
        response = client.post("/search", json={"query": "ZQ-4471-B", "explain": True, "k": 3})
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["hits"][0]["document_id"] == "lab/spares.md"
        assert "bm25" in body["hits"][0]["paths"]
        # k_over is at least k: a smaller one (the default 100 too) is raised to k.
        many = client.post("/search", json={"query": "relay", "k": 50, "k_over": 10})
        assert many.status_code == 200 and len(many.json()["hits"]) > 10
        assert client.post("/search", json={"query": "x", "k": True}).status_code == 422
        assert client.post("/search", json={"query": ""}).status_code == 422
        assert client.post("/search", json={"query": "x", "mode": "magic"}).status_code == 422
        wrong_level = {"query": "x", "paths": ["doc_bm25"], "level": "chunk"}
        assert client.post("/search", json=wrong_level).status_code == 422
        no_dense = {"query": "x", "mode": "bm25", "feedback": {"documents": 2}}
        response = client.post("/search", json=no_dense)
        assert response.status_code == 422 and "dense" in response.text
        plain = client.post("/search", json={"query": "ZQ-4471-B", "level": "document"})
        assert plain.json()["feedback_documents"] == []  # off by default
        assert "Deprecation" not in plain.headers
        fed = {"query": "ZQ-4471-B", "level": "document", "feedback": {"documents": 3}}
        grouped = client.post("/search", json=fed)
        assert len(grouped.json()["feedback_documents"]) == 3
        assert "Deprecation" not in grouped.headers
        # The flat request of API 0.1: the same search, said to be deprecated (RFC 9745).
        flat = client.post("/search", json={**fed, "feedback": 3, "feedback_weight": 0.3})
        assert flat.status_code == 200 and flat.headers["Deprecation"] == "@1796342400"
        assert [hit["document_id"] for hit in flat.json()["hits"]] == [
            hit["document_id"] for hit in grouped.json()["hits"]
        ]
        mixed = client.post("/search", json={**fed, "feedback_weight": 0.4})  # both shapes
        assert len(mixed.json()["feedback_documents"]) == 3 and "Deprecation" in mixed.headers
        entities = client.get("/entities", params={"q": "MAC"}).json()
        assert entities[0]["id"] == "museu de arte contemporânea" and entities[0]["exact"]
        assert entities[0]["documents"] >= 3
        assert client.get("/entities", params={"q": "(("}).json() == []
