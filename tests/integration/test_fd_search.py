"""FD* in real searches (real server and model): every hit carries its FD*, the FD*-optimised
rerank answers the sample corpus's museum question with the founding director's biography, the
FD* signal's share adds up in fusion and multi-signal scoring, and the REST API takes the
options."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sample_graph import SampleGraphs

from anchorgraph.app import create_app
from anchorgraph.embedding import Embedder
from anchorgraph.factual_density import FdLevel, LengthBin, length_bin
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.queries import Query
from anchorgraph.loaders.fd_stats import bin_stats
from anchorgraph.retrieval.context import SearchContext
from anchorgraph.retrieval.fd_read import fd_of
from anchorgraph.retrieval.options import Mode, SearchOptions
from anchorgraph.retrieval.pipeline import search
from anchorgraph.scope import DEFAULT_COLLECTION
from anchorgraph.settings import Settings

pytestmark = [pytest.mark.integration, pytest.mark.slow]

MUSEUM = "who directed the museum in the 1970s?"
FOUNDER = "people/helena-vasconcelos.md"
# The fusion's tests search without the graph: a hit the expansion places has no paths or
# signals of its own, only its inherited score (test_graph_default.py tests that part).
FLAT = {"expand": False, "bridge": False}


@pytest.fixture(scope="module")
def context(sample_graph: SampleGraphs, embedder: Embedder) -> Iterator[SearchContext]:
    context = SearchContext(sample_graph(embedder, gazetteer=True), embedder)
    yield context
    context.close()


def test_the_museum_question_is_answered_by_the_dense_biography(context: SearchContext) -> None:
    # The default (hybrid) search ranks the long, sparse text about today's director first.
    plain = search(context, SearchOptions(query=MUSEUM, level="document", k=5))
    assert plain.hits[0].document_id == "people/beatriz-amaral.md"
    assert plain.hits[1].document_id == FOUNDER
    # The specification's condition: cosine with the FD* rerank answers with the founder.
    reranked = search(
        context, SearchOptions(query=MUSEUM, mode=Mode.DENSE, level="document", k=5, fd_rerank=True)
    )
    first = reranked.hits[0]
    assert first.document_id == FOUNDER
    assert first.fd is not None and first.fd.reranked_from is not None
    lam = SearchOptions(query=MUSEUM).fd.weight
    assert first.score == pytest.approx((1 - lam) * first.fd.reranked_from + first.fd.contribution)
    # The founder's biography is denser than its bin's mean; today's director's is not.
    assert first.fd.z is not None and first.fd.z > 0
    amaral = plain.hits[0].fd
    assert amaral is not None and amaral.z is not None and amaral.z < 0
    # The hybrid default leans lexical on the sample corpus (its cosines are low: the lexical
    # paths weigh more, query_weights.lexical_scale), where the long text matches the words;
    # the rerank still adds more to the founder's biography than to it.
    hybrid = search(context, SearchOptions(query=MUSEUM, level="document", k=5, fd_rerank=True))
    assert hybrid.lexical_scale > 1.0
    added = {hit.document_id: hit.fd.contribution for hit in hybrid.hits if hit.fd is not None}
    assert added[FOUNDER] > added["people/beatriz-amaral.md"]


def test_every_hit_shows_its_fd_star(context: SearchContext, graph: Graph) -> None:
    fitted = {(row.level, row.bin): row for row in bin_stats(graph, DEFAULT_COLLECTION)}
    for level in ("chunk", "document"):
        result = search(context, SearchOptions(query="humidity in the storerooms", level=level))
        assert result.hits
        for hit in result.hits:
            assert hit.fd is not None and hit.fd.level == level
            assert hit.fd.length_bin is not None and hit.fd.z is not None
            # The bin its length falls in under its level's bounds, and that bin's μ.
            short = fitted[(FdLevel(level), LengthBin.SHORT)]
            assert hit.fd.length_bin == length_bin(hit.fd.n_tokens, (short.lower, short.upper))
            mean = fitted[(FdLevel(level), hit.fd.length_bin)].stats.mean
            assert hit.fd.bin_mean == pytest.approx(mean, abs=1e-4)
            assert 0.0 <= hit.fd.rescaled <= 1.0
            assert hit.fd.contribution == 0.0  # nothing asked FD* to rank


def test_fd_as_a_fused_signal_adds_up_and_moves_dense_texts(context: SearchContext) -> None:
    options = {"query": MUSEUM, "level": "document", "k": 10, "explain": True, **FLAT}
    plain = search(context, SearchOptions(**options))
    fused = search(context, SearchOptions(**options, fd_weight=0.5))
    for hit in fused.hits:
        assert hit.fd is not None
        parts = sum(p.contribution for p in hit.paths.values()) + hit.fd.contribution
        assert parts == pytest.approx(hit.score)
    rank = {h.document_id: h.rank for h in fused.hits}
    before = {h.document_id: h.rank for h in plain.hits}
    assert rank[FOUNDER] < before[FOUNDER]


def test_fd_in_multisignal_scoring(context: SearchContext) -> None:
    weights = {"doc": 0.25, "segment": 0.3, "entity": 0.2, "triple": 0.15, "text": 0.1, "fd": 0.2}
    result = search(
        context,
        SearchOptions(query=MUSEUM, mode=Mode.MULTISIGNAL, signal_weights=weights, **FLAT),
    )
    for hit in result.hits:
        assert hit.signals is not None and hit.fd is not None
        assert hit.signals.s_fd == pytest.approx(hit.fd.rescaled)
        assert hit.signals.contributions["fd"] == pytest.approx(0.2 * hit.fd.rescaled)
        assert sum(hit.signals.contributions.values()) == pytest.approx(hit.score)


def test_rest_search_takes_the_fd_options(settings: Settings, context: SearchContext) -> None:
    with TestClient(create_app(settings)) as client:
        body = {"query": MUSEUM, "mode": "dense", "level": "document", "fd_rerank": True}
        response = client.post("/search", json=body)
        assert response.status_code == 200, response.text
        first = response.json()["hits"][0]
        assert first["document_id"] == FOUNDER
        assert first["fd"]["reranked_from"] is not None and first["fd"]["length_bin"]
        bad = client.post("/search", json={**body, "fd_lambda": 2})
        assert bad.status_code == 422
        wrong_mode = client.post("/search", json={"query": "q", "mode": "dense", "fd_weight": 1})
        assert wrong_mode.status_code == 422


def test_a_pagerank_prior_is_fused_and_explained(context: SearchContext, graph: Graph) -> None:
    # As `anchorgraph graph pagerank` would leave it: here, the founder's biography on top.
    graph.driver.execute_query(
        "MATCH (d:Document) SET d.pagerank = CASE d.id WHEN $founder THEN 0.5 ELSE 0.01 END",
        founder=f"default/{FOUNDER}",
    )
    try:
        options = {"query": MUSEUM, "level": "document", "k": 10, "explain": True, **FLAT}
        plain = search(context, SearchOptions(**options))
        prior = search(context, SearchOptions(**options, pagerank_weight=1.0))
        for hit in prior.hits:
            parts = sum(p.contribution for p in hit.paths.values()) + sum(hit.priors.values())
            assert parts == pytest.approx(hit.score) and "pagerank" in hit.priors
        assert prior.hits[0].document_id == FOUNDER != plain.hits[0].document_id
        assert not any(hit.priors for hit in plain.hits)
    finally:
        graph.driver.execute_query("MATCH (d:Document) REMOVE d.pagerank")


def test_hydration_reads_fd_star_as_the_fd_statement_does(
    context: SearchContext, graph: Graph
) -> None:
    """hydrate_chunks.cypher repeats fd_inputs.cypher's FD* block (a .cypher file cannot share
    one): every chunk of the sample gives the same FD*, at both levels, from both statements,
    with a source authority above 1 so that a_source and a_max count too."""
    database = graph.database
    ids = [
        record["id"]
        for record in graph.driver.execute_query(
            "MATCH (c:Chunk) RETURN c.id AS id ORDER BY id", database_=database
        ).records
    ]
    (source_type,) = graph.driver.execute_query(
        "MATCH (d:Document) WHERE d.source_type <> '' "
        "RETURN d.source_type AS type ORDER BY type LIMIT 1",
        database_=database,
    ).records[0]
    authority = "CREATE (a:SourceAuthority {source_type: $type, a_source: 1.5})"
    graph.driver.execute_query(authority, {"type": source_type}, database_=database)  # unique
    try:
        (row,) = graph.read(Query.HYDRATE_CHUNKS, {"chunk_ids": ids})
        hydrated = {chunk["chunk_id"]: chunk for chunk in row["chunks"]}
        inputs = {r["chunk_id"]: r for r in graph.read(Query.FD_INPUTS, {"chunk_ids": ids})}
    finally:
        graph.driver.execute_query(
            "MATCH (a:SourceAuthority {source_type: $type}) DELETE a",
            {"type": source_type},
            database_=database,
        )
    assert len(ids) > 20 and hydrated.keys() == inputs.keys() == set(ids)
    assert any(fd_of(r, "chunk").a_source == 1.5 for r in inputs.values())
    for level in ("chunk", "document"):
        for chunk_id in ids:
            assert fd_of(hydrated[chunk_id], level) == fd_of(inputs[chunk_id], level), chunk_id
