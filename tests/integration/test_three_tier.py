"""The authored three-tier corpus (tests/fixtures/three_tier: short dense systematic reviews, RCTs,
long sparse general articles, all on exercise and cardiovascular risk) with the real model: the
FD*-optimised condition lifts reviews that cosine's top 5 misses (the expert blindness of
docs/audits.md), FD_raw correlates with length and FD* does not, FD* tells the tiers apart, and the
coverage check covers the claims the reviews make and none from elsewhere."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from anchorgraph.audit import (
    Condition,
    blindness_audit,
    coverage_audit,
    length_audit,
    read_nodes,
    tier_audit,
)
from anchorgraph.embedding import Embedder
from anchorgraph.factual_density import FdLevel
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.queries import Query, cypher
from anchorgraph.loaders.entities import EntityExtractor
from anchorgraph.loaders.ingest import Ingestor
from anchorgraph.loaders.model import SourceDocument
from anchorgraph.loaders.read import read_bytes
from anchorgraph.retrieval.context import SearchContext
from anchorgraph.retrieval.options import Mode, SearchOptions
from anchorgraph.retrieval.pipeline import search
from anchorgraph.retrieval.results import Hit
from anchorgraph.settings import Settings

pytestmark = [pytest.mark.integration, pytest.mark.slow]

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "three_tier"
TIERS = {"reviews": "systematic_review", "trials": "rct", "articles": "other"}
QUERY = "exercise and cardiovascular risk"  # the blindness audit's one query


def corpus() -> list[SourceDocument]:
    return [
        read_bytes(
            path.read_bytes(),
            doc_id=f"{folder}/{path.name}",
            fmt="markdown",
            max_bytes=10**6,
            source_type=source_type,
        )
        for folder, source_type in TIERS.items()
        for path in sorted((FIXTURES / folder).glob("*.md"))
    ]


@pytest.fixture(scope="module")
def context(graph: Graph, embedder: Embedder) -> Iterator[SearchContext]:
    graph.driver.execute_query(cypher(Query.DELETE_ALL))
    stats = Ingestor(graph, embedder, EntityExtractor(None)).ingest(corpus())
    assert stats.written == 18 and stats.refitted
    context = SearchContext(graph, embedder)
    yield context
    context.close()


def reviews(hits: list[Hit]) -> set[str]:
    return {
        hit.document_id
        for hit in hits
        if hit.fd is not None and hit.fd.source_type == "systematic_review"
    }


# The even blend the FD* study ran (docs/audits.md, Expert blindness): λ = 0.5, every a_source 1 (no
# tier is favoured, so only density can lift the reviews). The default λ, 0.1, was chosen with
# fitted authorities on SciFact and NFCorpus, where a_source carries the tiers (docs/benchmarks.md).
EVEN_LAMBDA = 0.5


def test_fd_optimised_lifts_dense_reviews_that_cosine_misses(context: SearchContext) -> None:
    options = {"query": QUERY, "mode": Mode.DENSE, "level": "document", "k": 5}
    cosine = search(context, SearchOptions.model_validate(options))
    even_blend = {**options, "fd_rerank": True, "fd_lambda": EVEN_LAMBDA}
    optimised = search(context, SearchOptions.model_validate(even_blend))
    assert len(reviews(optimised.hits)) > len(reviews(cosine.hits))
    lifted = reviews(optimised.hits) - reviews(cosine.hits)
    assert lifted, "no review the FD*-optimised top 5 has is missing from cosine's"

    audit = blindness_audit(context, QUERY, "default", fd_lambda=EVEN_LAMBDA)
    tops = {top.condition: top for top in audit.conditions}
    assert tops[Condition.COSINE].composition.get("systematic_review", 0) == len(
        reviews(cosine.hits)
    )
    optimised_top = tops[Condition.FD_OPTIMISED]
    assert [hit.document_id for hit in optimised_top.hits] == [
        hit.document_id for hit in optimised.hits
    ]
    assert lifted <= set(audit.fd_only)
    for hit in optimised_top.hits:
        if hit.document_id in lifted:
            # Below cosine's top 5 (or its pool), and denser than its bin's mean.
            assert hit.cosine_rank is None or hit.cosine_rank > 5
            assert hit.fd_star is not None and hit.fd_star > 0


def test_fd_raw_correlates_with_length_and_fd_star_does_not(
    context: SearchContext, graph: Graph
) -> None:
    audit = length_audit(read_nodes(graph, "default"))
    by_level = {level.level: level for level in audit.levels}
    document = by_level[FdLevel.DOCUMENT]
    assert document.n == 18 and document.unbinned == 0
    assert document.raw is not None and document.star is not None
    assert document.raw.r < 0 and document.raw.p < 0.05  # shorter texts denser
    assert document.star.p > 0.05
    chunk = by_level[FdLevel.CHUNK]
    assert chunk.raw is not None and chunk.raw.p < 0.05
    assert chunk.star is not None and chunk.star.p > 0.05


def test_fd_star_tells_the_tiers_apart(context: SearchContext, graph: Graph) -> None:
    audit = tier_audit(read_nodes(graph, "default"))
    document = next(level for level in audit.levels if level.level is FdLevel.DOCUMENT)
    means = {row.source_type: row.mean for row in document.tiers}
    assert set(means) == set(TIERS.values())
    assert max(means, key=lambda name: means[name]) == "systematic_review"
    assert min(means, key=lambda name: means[name]) == "other"
    assert not document.flagged


# Claims the reviews make, in other words, and three HealthFC claims on other topics.
ON_TOPIC = {
    "Aerobic exercise lowers the risk of cardiovascular death.": "reviews/aerobic-mortality",
    "Resistance training lowers systolic blood pressure.": "reviews/resistance-blood-pressure",
    "Exercise-based cardiac rehabilitation reduces cardiovascular mortality after myocardial "
    "infarction.": "reviews/cardiac-rehabilitation",
    "Leisure-time physical activity lowers the risk of stroke.": "reviews/leisure-activity-stroke",
}
OFF_TOPIC = [
    "Can masks reduce corona infections when worn by a large proportion of the population?",
    "Does vitamin D protect against depression?",
    "Is homeopathy effective against hay fever?",
]


def test_coverage_covers_the_reviews_claims_and_nothing_else(
    context: SearchContext, graph: Graph, embedder: Embedder
) -> None:
    claims = [*ON_TOPIC, *OFF_TOPIC]
    audit = coverage_audit(graph, embedder, claims, "default", sample_size=12, seed=0)
    for row in audit.claims:
        if row.claim in ON_TOPIC:
            assert row.covered and row.chunk_id is not None, row
            assert row.chunk_id.startswith(ON_TOPIC[row.claim])
            assert row.cosine is not None and row.cosine >= 0.75 and len(row.shared) >= 2
        else:
            assert not row.covered and not row.sample_covered, row
    assert audit.full.covered == len(ON_TOPIC)
    chunks = graph.driver.execute_query("MATCH (c:Chunk) RETURN count(c) AS n").records[0]["n"]
    assert audit.full.chunks == chunks > 12
    assert audit.sample.chunks == 12
    assert audit.sample.covered <= audit.full.covered  # fewer chunks cover no more claims


def test_cli_coverage_and_blindness(
    context: SearchContext, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from anchorgraph.cli.main import app
    from anchorgraph.graph.driver import neo4j_auth

    monkeypatch.setenv("ANCHORGRAPH_NEO4J_URI", settings.bolt_uri)
    monkeypatch.setenv("ANCHORGRAPH_NEO4J_PASSWORD", neo4j_auth(settings)[1])
    queries = tmp_path / "queries.jsonl"
    queries.write_text(
        "\n".join(json.dumps({"_id": str(i), "text": claim}) for i, claim in enumerate(ON_TOPIC)),
        encoding="utf-8",
    )
    out = tmp_path / "audit"
    runner = CliRunner()

    done = runner.invoke(app, ["audit", "coverage", str(queries), "--json", "--out", str(out)])
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["full"]["covered"] == len(ON_TOPIC)
    assert (out / "coverage.png").read_bytes().startswith(b"\x89PNG")

    done = runner.invoke(app, ["audit", "blindness", QUERY, "--out", str(out)])
    assert done.exit_code == 0, done.output
    assert "fd_optimised" in done.output and "composition: " in done.output
    assert (out / "blindness.png").read_bytes().startswith(b"\x89PNG")

    missing = runner.invoke(app, ["audit", "coverage", str(queries), "--column", "title"])
    assert missing.exit_code == 1 and "no text field 'title'" in missing.output
