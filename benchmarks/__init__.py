"""Benchmarks run by hand, not timed tests (see README.md here): ``python -m benchmarks.ingest``,
``python -m benchmarks.search_latency`` and ``python -m benchmarks.write_floor`` from the
repository root.

Beside the three scripts: ``server`` (the throwaway Neo4j they run against), ``synthetic`` (a
generated corpus for latency at scale), ``bulk_import`` (neo4j-admin CSV from ingestion's own
rows) and ``processes`` (CPU time and peak memory of a process, from /proc).
"""
