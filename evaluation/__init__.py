"""Retrieval evaluation on BEIR-format data: ``anchorgraph eval`` and ``python -m
anchorgraph.evaluation.tune``.

* ``datasets``: read a BEIR folder (corpus, queries, the qrels of one split).
* ``conditions``: one small protocol, ``Condition``, and one thin class per condition: our
  search modes, neo4j-graphrag's retrievers on the same graph, in-memory reference baselines.
* ``metrics``: NDCG@10, Recall@100 and MRR@10 through ir-measures (pytrec_eval), latency
  percentiles, the paired Wilcoxon signed-rank test.
* ``report``: results.json, results.md and chart.png.
* ``run``: the harness: the evaluation Neo4j, ingestion, the loop over queries.
* ``tune``: fusion and weight tuning on cached candidates (train/dev splits only).

A subpackage that is a client of the library: it imports the public library API (``from
anchorgraph import ...``) and, for the stages it replays offline, ``anchorgraph.engine``, nothing
else (pyproject's import contracts), so what it measures is what a user of the library gets, and
the service never imports it. The heavy packages (ir-measures,
neo4j-graphrag) are the optional ``eval`` dependencies; scipy and matplotlib are main ones (the
audits need them too).
"""
