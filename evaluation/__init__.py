"""Retrieval evaluation on BEIR-format data: ``anchorgraph eval``.

* ``datasets``: read a BEIR folder (corpus, queries, the qrels of one split).
* ``conditions``: one small protocol, ``Condition``, and one thin class per condition: our
  search modes, neo4j-graphrag's retrievers on the same graph, in-memory reference baselines.
* ``metrics``: NDCG@10, Recall@100 and MRR@10 through ir-measures (pytrec_eval), latency
  percentiles, the paired Wilcoxon signed-rank test.
* ``report``: results.json, results.md and chart.png.
* ``run``: the harness: the evaluation Neo4j, ingestion, the loop over queries.
* ``tune``: fusion and weight tuning on cached candidates (train/dev splits only).

Nothing here is imported by the service itself; the heavy packages (ir-measures, scipy,
matplotlib, neo4j-graphrag) are the optional ``eval`` dependencies.
"""
