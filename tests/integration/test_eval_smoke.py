"""A small evaluation on a slice of SciFact, end to end: ingest, conditions (ours, the
neo4j-graphrag peer, the in-memory plain hybrid), metrics, outputs. Floors a broken pipeline
would miss; the full runs are benchmarks (docs/benchmarks.md), not tests."""

from __future__ import annotations

import json
from pathlib import Path

import neo4j
import pytest

from loaders.entities import EntityExtractor
from loaders.ingest import Ingestor
from service.embedding import Embedder
from service.evaluation import conditions as conds
from service.evaluation.datasets import load_split, source_documents
from service.evaluation.metrics import NDCG10, RECALL100
from service.evaluation.report import write_all
from service.evaluation.run import build_report, evaluate, prepare_graph
from service.retrieval.pipeline import SearchContext
from service.settings import Settings

pytestmark = [pytest.mark.integration, pytest.mark.slow]

SCIFACT = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "scifact"
QUERIES = 8  # evaluated
POOL_QUERIES = 40  # whose relevant documents are in the corpus, as near misses
OTHERS = 80  # documents relevant to none of those
CONDITIONS = ["cosine", "bm25", "hybrid", "multisignal", "plain-hybrid", "graphrag-vector"]
# Measured on this slice: 0.75-0.95 NDCG@10. A pipeline that ranks at random scores ~0.05, one
# that loses titles or chunks scores far lower than these floors.
NDCG_FLOOR = 0.5
RECALL_FLOOR = 0.8


@pytest.mark.skipif(not SCIFACT.exists(), reason="../shared/datasets/scifact is not here")
def test_a_small_scifact_evaluation(
    clean_graph: neo4j.Driver, settings: Settings, embedder: Embedder, tmp_path: Path
) -> None:
    split = load_split(SCIFACT, "train")
    pool = split.queries[:POOL_QUERIES]
    relevant = {doc for query in pool for doc in split.qrels[query.id]}
    others = [doc for doc in split.corpus if doc not in relevant][:OTHERS]
    small = split.subset([q.id for q in split.queries[:QUERIES]], [*relevant, *others])
    assert len(small.queries) == QUERIES and len(small.corpus) > OTHERS + 30

    ingestor = Ingestor(
        clean_graph, embedder, EntityExtractor(None), database=settings.neo4j_database
    )
    documents = source_documents(small, title_in_text=True)
    stats = prepare_graph(clean_graph, settings.neo4j_database, ingestor, documents, may_wipe=True)
    assert stats.written == len(small.corpus)
    print(f"ingest {stats.seconds:.1f} s (embed {stats.embed_s:.1f} s)")

    context = SearchContext(clean_graph, embedder, EntityExtractor(None), settings.neo4j_database)
    try:
        resources = conds.Resources(small, context, embedder, cache_dir=None)
        built = [conds.build(name, resources) for name in CONDITIONS]
        results = evaluate(built, small)
    finally:
        context.close()

    by_name = {result.name: result for result in results}
    for name, result in by_name.items():
        assert result.failures == 0, (name, result.notes)
        assert result.metrics[NDCG10] > NDCG_FLOOR, (name, result.metrics)
        assert result.metrics[RECALL100] > RECALL_FLOOR, (name, result.metrics)
        assert result.latency_ms["p50"] > 0
        assert result.tokens_top10 > 0
    # Our hybrid fuses two paths that each already clear the floor.
    assert by_name["hybrid"].metrics[NDCG10] >= 0.9 * min(
        by_name["cosine"].metrics[NDCG10], by_name["bm25"].metrics[NDCG10]
    )

    report = build_report(small, results, {"model": embedder.name})
    assert report.references == {"plain_hybrid": "plain-hybrid", "best_peer": "graphrag-vector"}
    paths = write_all(report, tmp_path / "out")
    data = json.loads(paths["json"].read_text())
    assert [c["name"] for c in data["conditions"]] == CONDITIONS
    assert len(data["conditions"][0]["per_query_ndcg@10"]) == QUERIES
    assert len(data["significance"]) == 2 * (len(CONDITIONS) - 1)
    table = paths["markdown"].read_text()
    assert all(f"`{name}`" in table for name in CONDITIONS)
    assert paths["chart"].stat().st_size > 1000
