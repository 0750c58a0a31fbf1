"""A small evaluation on a slice of SciFact, end to end: ingest, conditions (ours, the
neo4j-graphrag peer, the in-memory plain hybrid), metrics, outputs. Floors a broken pipeline
would miss; the full runs are benchmarks (docs/benchmarks.md), not tests. The slice is the
BEIR folder the repository carries (tests/fixtures/scifact/README.md), read as any dataset
folder a user downloads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anchorgraph import Settings, open_runtime
from anchorgraph.embedding import Embedder
from anchorgraph.evaluation import conditions as conds
from anchorgraph.evaluation.datasets import load_split, source_documents
from anchorgraph.evaluation.metrics import NDCG10, RECALL100
from anchorgraph.evaluation.report import write_all
from anchorgraph.evaluation.run import (
    EVAL_COLLECTION,
    EvalConfig,
    build_report,
    evaluate,
    graph_facts,
    prepare_graph,
)
from anchorgraph.graph.queries import Query
from anchorgraph.graph.schema import SchemaMode

pytestmark = [pytest.mark.integration, pytest.mark.slow]

SCIFACT = Path(__file__).resolve().parents[1] / "fixtures" / "scifact" / "train_slice"
QUERIES = 8  # evaluated
POOL_QUERIES = 40  # whose relevant documents are in the corpus, as near misses
OTHERS = 80  # documents relevant to none of those
CONDITIONS = [
    conds.ConditionName.COSINE,
    conds.ConditionName.BM25,
    conds.ConditionName.HYBRID,
    conds.ConditionName.MULTISIGNAL,
    conds.ConditionName.PLAIN_HYBRID,
    conds.ConditionName.GRAPHRAG_VECTOR,
]
# Measured on this slice: 0.75-0.95 NDCG@10. A pipeline that ranks at random scores ~0.05, one
# that loses titles or chunks scores far lower than these floors.
NDCG_FLOOR = 0.5
RECALL_FLOOR = 0.8


@pytest.mark.usefixtures("clean_graph")
def test_a_small_scifact_evaluation(settings: Settings, embedder: Embedder, tmp_path: Path) -> None:
    split = load_split(SCIFACT, "train")
    pool = split.queries[:POOL_QUERIES]
    relevant = {doc for query in pool for doc in split.qrels[query.id]}
    others = [doc for doc in split.corpus if doc not in relevant][:OTHERS]
    small = split.subset([q.id for q in split.queries[:QUERIES]], [*relevant, *others])
    assert len(small.queries) == QUERIES and len(small.corpus) > OTHERS + 30

    # As `anchorgraph eval --no-entities` opens it: the real model, no spaCy pipeline.
    quiet = EvalConfig(dataset=SCIFACT, split="train", entities=False).runtime_settings(settings)
    with open_runtime(
        quiet, schema=SchemaMode.APPLY, embedder_factory=lambda _: embedder
    ) as runtime:
        documents = source_documents(small, title_in_text=True)

        # Documents of another dataset: removed one by one when few, the graph wiped when most
        # (on a few documents first, so that the model embeds each document about once).
        head, tail = documents[:8], documents[-2:]
        assert prepare_graph(runtime, head, may_wipe=True).written == len(head)
        assert prepare_graph(runtime, head[:5], may_wipe=True).unchanged == 5
        assert len(runtime.graph.read(Query.DOCUMENT_IDS, EVAL_COLLECTION)) == 5
        assert prepare_graph(runtime, tail, may_wipe=True).written == len(tail)
        assert len(runtime.graph.read(Query.DOCUMENT_IDS, EVAL_COLLECTION)) == len(tail)

        stats = prepare_graph(runtime, documents, may_wipe=True)
        assert (stats.written, stats.unchanged) == (len(small.corpus) - len(tail), len(tail))
        print(f"ingest {stats.seconds:.1f} s (embed {stats.embed_s:.1f} s)")
        facts = graph_facts(runtime)
        assert facts["graph"]["documents"] == len(small.corpus)
        assert facts["graph"]["chunks"] >= len(small.corpus)

        resources = conds.Resources(small, runtime, cache_dir=None)
        built = [conds.build(name, resources) for name in CONDITIONS]
        results = evaluate(built, small)

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
