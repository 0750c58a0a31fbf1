"""The FD* audits over a real graph with the fake embedder (no meaning, so no relevance claims:
tokens are words and a text's vector is a hash of it): the audits read the FD* searches use,
the tier audit flags tiers that are the length bins, the coverage check finds exactly the
claims that are chunks of the corpus, the blindness audit's cosine is what cosine ranks by, and
the REST endpoints and CLI commands answer (docs/audits.md)."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient

from anchorgraph.app import create_app
from anchorgraph.audit import (
    Condition,
    blindness_audit,
    coverage_audit,
    length_audit,
    pearson,
    read_nodes,
    tier_audit,
)
from anchorgraph.embedding import HashEmbedder
from anchorgraph.factual_density import FdLevel
from anchorgraph.graph.gateway import Graph
from anchorgraph.loaders.entities import EntityExtractor
from anchorgraph.loaders.fd_stats import SourceAuthority, set_authorities
from anchorgraph.loaders.ingest import Ingestor
from anchorgraph.loaders.model import SourceDocument
from anchorgraph.loaders.read import read_bytes
from anchorgraph.retrieval.context import SearchContext
from anchorgraph.retrieval.fd_read import fd_scores
from anchorgraph.scope import local_id, scoped
from anchorgraph.settings import Settings

pytestmark = pytest.mark.integration

DENSE = "In 1974 the museum opened 3 galleries with 120 works. "
SPARSE = "The museum is a place that many people think about in many ways. "


def document(doc_id: str, dense: int, sparse: int, source_type: str) -> SourceDocument:
    body = DENSE * dense + SPARSE * sparse
    return read_bytes(
        f"# {doc_id}\n\n{body}\n".encode(),
        doc_id=doc_id,
        fmt="markdown",
        max_bytes=10**6,
        source_type=source_type,
    )


# (dense sentences, sparse sentences) of three documents per length: 1-2 sentences, 4, 8.
SHORT, MEDIUM, LONG = [(1, 0), (0, 1), (1, 1)], [(3, 1), (1, 3), (2, 2)], [(6, 2), (2, 6), (4, 4)]


def tiered(by_length: bool) -> list[SourceDocument]:
    """Nine documents over three lengths. ``by_length``: each length is one source type (the
    tiers are the length bins); else each document's type says whether it is mostly dense."""
    documents = []
    for tier, shapes in (("short", SHORT), ("medium", MEDIUM), ("long", LONG)):
        for i, (dense, sparse) in enumerate(shapes):
            kind = tier if by_length else ("dense" if dense >= sparse else "sparse")
            documents.append(document(f"{tier}-{i}.md", dense, sparse, kind))
    return documents


@pytest.fixture
def ingestor(clean_graph: Graph, fake_embedder: HashEmbedder) -> Ingestor:
    return Ingestor(clean_graph, fake_embedder, EntityExtractor(None), chunk_tokens=40)


def test_the_audits_read_the_fd_star_searches_use(ingestor: Ingestor) -> None:
    ingestor.ingest(tiered(by_length=False))
    set_authorities(ingestor.graph, [SourceAuthority(source_type="dense", a_source=2.0)])
    nodes = read_nodes(ingestor.graph, "default")
    chunks = [node for node in nodes if node.level is FdLevel.CHUNK]
    documents = {node.id: node for node in nodes if node.level is FdLevel.DOCUMENT}
    assert len(documents) == 9 and len(chunks) >= 9

    keys = [scoped("default", node.id) for node in chunks]
    of_chunks = fd_scores(ingestor.graph.read, keys, "chunk")
    of_documents = fd_scores(ingestor.graph.read, keys, "document")
    for chunk, key in zip(chunks, keys, strict=True):
        parent = documents[chunk.id.split("#")[0]]  # chunk ids are <document id>#<ordinal>
        assert of_chunks[key].fd_star == pytest.approx(chunk.fd_star)
        assert of_documents[key].fd_star == pytest.approx(parent.fd_star)
        assert of_chunks[key].a_source == chunk.a_source == parent.a_source
    assert {node.a_source for node in documents.values() if node.source_type == "dense"} == {2.0}

    audit = length_audit(nodes)
    by_level = {level.level: level for level in audit.levels}
    assert by_level[FdLevel.DOCUMENT].n == 9 and by_level[FdLevel.CHUNK].n == len(chunks)
    assert by_level[FdLevel.DOCUMENT].unbinned == 0
    docs = list(documents.values())
    assert by_level[FdLevel.DOCUMENT].raw == pearson(
        [n.fd_raw for n in docs], [n.n_tokens for n in docs]
    )


def test_tiers_that_are_the_length_bins_are_flagged(ingestor: Ingestor) -> None:
    # z-scores within bins: each bin, and so each tier that is exactly one bin, has mean FD* 0.
    ingestor.ingest(tiered(by_length=True))
    audit = tier_audit(read_nodes(ingestor.graph, "default"))
    document = next(level for level in audit.levels if level.level is FdLevel.DOCUMENT)
    assert [row.source_type for row in document.tiers] == ["long", "medium", "short"]
    assert all(row.mean == pytest.approx(0.0, abs=1e-9) for row in document.tiers)
    assert document.sd_between == pytest.approx(0.0, abs=1e-9)
    assert document.flagged


def test_tiers_that_cut_across_the_bins_are_told_apart(ingestor: Ingestor) -> None:
    ingestor.ingest(tiered(by_length=False))
    audit = tier_audit(read_nodes(ingestor.graph, "default"))
    document = next(level for level in audit.levels if level.level is FdLevel.DOCUMENT)
    means = {row.source_type: row.mean for row in document.tiers}
    assert means["dense"] > 0 > means["sparse"]
    assert document.sd_between >= 0.10 and not document.flagged
    assert sum(row.n for row in document.tiers) == document.n == 9


def chunk_texts(graph: Graph) -> dict[str, str]:
    records = graph.driver.execute_query("MATCH (c:Chunk) RETURN c.id AS id, c.text AS text")
    return {local_id(record["id"]): record["text"] for record in records.records}


def test_coverage_finds_the_claims_that_are_chunks(
    ingestor: Ingestor, fake_embedder: HashEmbedder
) -> None:
    tiny = read_bytes(b"# Museum\n\nMuseum.\n", doc_id="tiny.md", fmt="markdown", max_bytes=99)
    ingestor.ingest([*tiered(by_length=False), tiny])
    texts = chunk_texts(ingestor.graph)
    # Same text, same vector: a chunk's own text has cosine 1 to it. The short documents have
    # one chunk each, told apart by their titles; tiny.md's one keyword is "museum".
    first, second = "short-0.md#0", "short-1.md#0"
    claims = [texts[first], texts[second], texts["tiny.md#0"], "volcanoes erupt under glaciers"]
    audit = coverage_audit(ingestor.graph, fake_embedder, claims, "default", sample_size=len(texts))

    assert [row.covered for row in audit.claims] == [True, True, False, False]
    assert [row.chunk_id for row in audit.claims[:2]] == [first, second]
    # The vector index quantises what it stores: its cosines are good to about 1e-3.
    assert audit.claims[0].cosine == pytest.approx(1.0, abs=2e-3)
    assert audit.claims[2].best_cosine == pytest.approx(1.0, abs=2e-3)  # near, but 1 keyword
    assert audit.claims[0].sample_best_cosine == pytest.approx(1.0, abs=1e-6)  # stored vectors
    assert audit.claims[3].best_cosine is not None and audit.claims[3].best_cosine < 0.75
    assert (audit.full.covered, audit.full.claims, audit.full.chunks) == (2, 4, len(texts))
    assert audit.full.share == 0.5
    assert audit.full.aligned_chunks == 2
    assert audit.full.aligned_share == pytest.approx(2 / len(texts))
    # A sample of every chunk is the full corpus again.
    assert sorted(audit.sample_ids) == sorted(texts)
    assert audit.sample.covered == 2 and [r.sample_covered for r in audit.claims][:2] == [True] * 2

    loose = coverage_audit(
        ingestor.graph, fake_embedder, claims, "default", min_shared=1, sample_size=1
    )
    assert loose.full.covered == 3
    # A one-chunk sample covers at most the claim that is that chunk's text.
    (sampled,) = loose.sample_ids
    expected = sum(1 for claim in claims[:3] if claim == texts[sampled])
    assert loose.sample.covered == expected and loose.sample.chunks == 1
    again = coverage_audit(
        ingestor.graph, fake_embedder, claims, "default", min_shared=1, sample_size=1
    )
    assert again.sample_ids == loose.sample_ids  # seeded


def test_blindness_shows_every_hit_with_the_cosine_cosine_ranks_by(
    ingestor: Ingestor, fake_embedder: HashEmbedder
) -> None:
    ingestor.ingest(tiered(by_length=False))
    context = SearchContext(ingestor.graph, fake_embedder)
    try:
        audit = blindness_audit(context, "museum galleries works", "default", k=3, fd_pool=9)
    finally:
        context.close()
    assert [top.condition for top in audit.conditions] == list(Condition)
    for top in audit.conditions:
        assert len(top.hits) == 3 and sum(top.composition.values()) == 3
        assert set(top.composition) <= {"dense", "sparse"}
        assert all(hit.cosine is not None and hit.fd_star is not None for hit in top.hits)
    # Each hit's cosine is its document's best chunk's, from the stored vectors.
    query = fake_embedder.embed(["museum galleries works"])[0]
    for hit in (hit for top in audit.conditions for hit in top.hits):
        records = ingestor.graph.driver.execute_query(
            "MATCH (:Document {id: $id})-[:HAS_CHUNK]->(c) RETURN c.embedding AS e",
            id=scoped("default", hit.document_id),
        ).records
        best = max(float(np.dot(query, record["e"])) for record in records)
        assert hit.cosine == pytest.approx(best, abs=1e-5)
    cosine, _, fd = audit.conditions
    # Cosine ranks by the vector index's scores, which are quantised (about 1e-3 near 1 and
    # more for the near-orthogonal hash vectors): the exact cosines follow its order closely.
    cosines = [hit.cosine or 0.0 for hit in cosine.hits]
    assert all(later <= earlier + 0.02 for earlier, later in pairwise(cosines))
    assert [hit.cosine_rank for hit in cosine.hits] == [1, 2, 3]
    # The pool is the whole corpus: every FD*-optimised hit has a cosine rank.
    assert all(hit.cosine_rank is not None for hit in fd.hits)
    shown = {hit.document_id for hit in cosine.hits}
    assert audit.fd_only == [hit.document_id for hit in fd.hits if hit.document_id not in shown]


def test_rest_audits(ingestor: Ingestor, settings: Settings, fake_embedder: HashEmbedder) -> None:
    ingestor.ingest(tiered(by_length=False))
    app = create_app(settings, embedder_factory=lambda _: fake_embedder)
    with TestClient(app) as client:
        length = client.get("/audit/length")
        assert length.status_code == 200, length.text
        levels = {level["level"]: level for level in length.json()["levels"]}
        assert levels["document"]["n"] == 9 and levels["document"]["raw"] is not None
        assert client.get("/audit/length", params={"alpha": 1}).status_code == 422

        tiers = client.get("/audit/tiers", params={"threshold": 5})
        assert tiers.status_code == 200
        assert all(level["flagged"] for level in tiers.json()["levels"])
        assert client.get("/audit/tiers", params={"threshold": -1}).status_code == 422

        body = {"claims": ["museum galleries", "volcanoes"], "sample_size": 3, "seed": 7}
        coverage = client.post("/audit/coverage", json=body)
        assert coverage.status_code == 200, coverage.text
        assert coverage.json()["sample"]["chunks"] == 3 and len(coverage.json()["claims"]) == 2
        for bad in ({"claims": []}, {"claims": ["  "]}, {"claims": ["x"], "min_cosine": 2},
                    {"claims": ["x"], "k": 0}, {"claims": ["x"], "unknown": 1}):  # fmt: skip
            assert client.post("/audit/coverage", json=bad).status_code == 422, bad

        blind = client.get("/audit/blindness", params={"query": "museum", "k": 2})
        assert blind.status_code == 200, blind.text
        assert [top["condition"] for top in blind.json()["conditions"]] == [
            "cosine", "bm25", "fd_optimised",
        ]  # fmt: skip
        assert client.get("/audit/blindness").status_code == 422
        assert client.get("/audit/blindness", params={"query": ""}).status_code == 422
        refused = client.get("/audit/blindness", params={"query": "museum", "fd_lambda": 2})
        assert refused.status_code == 422


def test_cli_length_and_tiers_print_tables_and_write_plots(
    ingestor: Ingestor, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from anchorgraph.cli.main import app
    from anchorgraph.graph.driver import neo4j_auth

    ingestor.ingest(tiered(by_length=True))
    monkeypatch.setenv("ANCHORGRAPH_NEO4J_URI", settings.bolt_uri)
    monkeypatch.setenv("ANCHORGRAPH_NEO4J_PASSWORD", neo4j_auth(settings)[1])
    runner = CliRunner()
    out = tmp_path / "audit"

    done = runner.invoke(app, ["audit", "length", "--out", str(out)])
    assert done.exit_code == 0, done.output
    assert "Length confound" in done.output and "document" in done.output
    assert (out / "length.png").read_bytes().startswith(b"\x89PNG")

    done = runner.invoke(app, ["audit", "tiers", "--out", str(out)])
    assert done.exit_code == 0, done.output
    assert "FLAGGED" in done.output  # the tiers are the length bins
    assert (out / "tiers.png").read_bytes().startswith(b"\x89PNG")

    as_json = runner.invoke(app, ["audit", "tiers", "--json", "--out", str(out)])
    assert as_json.exit_code == 0, as_json.output
    assert {level["level"] for level in json.loads(as_json.output)["levels"]} == {
        "chunk", "document",
    }  # fmt: skip
    refused = runner.invoke(app, ["audit", "length", "--alpha", "2", "--out", str(out)])
    assert refused.exit_code == 2 and "alpha" in refused.output
