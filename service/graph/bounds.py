"""Bounds the graph is built under, which a request is checked against without opening Neo4j
(``anchorgraph search --api`` validates its options without importing the driver)."""

# The graph keeps the entity bridges of entities at most this many chunks mention
# (``anchorgraph.graph.bridges``), so a search may ask for bridges of entities up to this many
# mentions (``expand.bridge_max_mentions``; the default, 12, and every bound the study tried, 5 to
# 20, docs/benchmarks.md "Entity bridges"). An entity m chunks mention joins up to m·(m − 1)
# ordered pairs of them: over MuSiQue dev's 3,328 chunks, 26,002 bridges at 12 and 44,896 at 20.
BRIDGED_MENTIONS = 20
