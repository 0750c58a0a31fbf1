"""The bulk importer (benchmarks/bulk_import.py) builds the graph ingestion builds.

A small corpus is ingested through ``Ingestor`` into one collection of the session's server, in
several batches (the rule claim extractor giving its chunks atomic claims), while every batch's
rows are recorded; the same rows go through the importer into a second, throwaway server. Both
graphs must agree node for node and relationship for relationship, properties (embeddings and
FD_raw included, bit for bit; the collection on every node and relationship that has one) and
endpoints alike, the (:Collection) node with its counts too. Only its creation time differs (each
graph was made at its own time): it must be a time with a zone in both, and the imported one the
time the importer was given.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import neo4j.time
import pytest

from anchorgraph.embedding import HashEmbedder, Vectors
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.local_server import LocalNeo4j, throwaway_settings
from anchorgraph.ingestion import read_all, sample_corpus, sample_gazetteer
from anchorgraph.loaders import graph_writer
from anchorgraph.loaders.entities import EntityExtractor, load_gazetteer
from anchorgraph.loaders.graph_writer import EmbeddedDocument, EntityRecord, GraphRows, graph_rows
from anchorgraph.loaders.ingest import Ingestor
from anchorgraph.loaders.model import Chunk, EntityMention, SourceDocument, Triple
from anchorgraph.loaders.read import read_bytes
from anchorgraph.runtime import open_runtime
from anchorgraph.settings import Settings
from benchmarks.bulk_import import CsvGraph, finish_import, import_into

pytestmark = pytest.mark.integration

# Not the default collection: the importer must write the collection it is given.
COLLECTION = "bulk-test"
# The (:Collection)'s creation time the importer is given.
CREATED = datetime(2024, 5, 1, 12, 30, 15, 123456, tzinfo=UTC)


def node_key(node: str) -> str:
    """Cypher for a key of every node: its collection (none for the (:Collection) itself) and
    its label's unique property within it (schema/constraints.cypher)."""
    return (
        f"[coalesce({node}.collection, ''), "
        f"coalesce({node}.id, {node}.path, {node}.key, {node}.text, {node}.name)]"
    )


class PairingExtractor(EntityExtractor):
    """Gazetteer entities and identifiers as usual (no spaCy pipeline: fast), plus a triple from
    the first to the second entity of every chunk that has two, so that RELATES is written too
    (spaCy's parser would find them otherwise)."""

    def extract(self, chunks: Sequence[Chunk]) -> tuple[list[EntityMention], list[Triple]]:
        mentions, triples = super().extract(chunks)
        by_chunk: dict[str, list[EntityMention]] = defaultdict(list)
        for mention in mentions:
            by_chunk[mention.chunk_id].append(mention)
        for chunk_id, found in by_chunk.items():
            if len(found) >= 2:
                a, b = found[0], found[1]
                triples.append(
                    Triple(
                        a.entity_id,
                        "relate to",
                        b.entity_id,
                        f"{a.name} relate to {b.name}",
                        chunk_id,
                    )
                )
        return mentions, triples


def corpus(settings: Settings) -> list[SourceDocument]:
    """The sample corpus (folders, tags, links between documents and to headings, an outside
    URL, gazetteer entities), and two documents for what it lacks: caller metadata, a link to a
    document that does not exist, a ';' in a tag and a folder two levels down."""
    documents, skipped = read_all(settings, sample_corpus())
    assert not skipped
    extra = {
        "notes/2024/loans.md": "---\ntitle: Loans\nauthor: R. Okabe\n---\n# Loans\n\n"
        "Rafael Okabe lent works to the Museu de Arte Contemporânea in 2024; see "
        "[the missing register](missing-register.md) and the [sensor](../../climate/ag-2048.md"
        "#specifications).\n\nA second paragraph names AG-2048 again.",
        "notes/2024/empty-ish.md": "# Short\n\nNothing to link here.",
    }
    for doc_id, text in extra.items():
        documents.append(
            read_bytes(
                text.encode(),
                doc_id=doc_id,
                fmt="markdown",
                folder=doc_id.rpartition("/")[0],
                tags=("a;b", "notes"),
                source="sample",
                max_bytes=1_000_000,
            )
        )
    return documents


@dataclass(frozen=True)
class Fingerprint:
    counts: dict[str, int]  # per node label and relationship type
    items: list[str]  # every node and relationship, canonical JSON, sorted
    digest: str


def fingerprint(graph: Graph) -> tuple[Fingerprint, list[neo4j.time.DateTime]]:
    """The graph's fingerprint, and the creation times of its collections (which the
    fingerprint has as their type and zone offset only)."""

    def records(statement: str) -> list[Any]:
        return list(graph.driver.execute_query(statement, database_=graph.database).records)

    nodes = records("MATCH (n) RETURN labels(n) AS labels, properties(n) AS properties")
    relationships = records(
        f"MATCH (a)-[r]->(b) RETURN type(r) AS type, labels(a) AS start_labels, "
        f"{node_key('a')} AS start, labels(b) AS end_labels, {node_key('b')} AS end, "
        "properties(r) AS properties"
    )
    counts: Counter[str] = Counter()
    items = []
    created: list[neo4j.time.DateTime] = []
    for node in nodes:
        counts.update(node["labels"])  # a chunk counts as a Chunk and as one of its shard
        properties = dict(node["properties"])
        if "FdStats" in node["labels"]:
            # Sums over the same values in another order: equal to the last bits only.
            properties |= {k: round(properties[k], 12) for k in ("total", "total_sq")}
        if "Collection" in node["labels"] and "created" in properties:
            # Each graph's own time: compared by its type and zone offset here.
            when = properties["created"]
            created.append(when)
            properties["created"] = f"{type(when).__name__} {when.utcoffset()}"
        items.append(_canonical({"labels": sorted(node["labels"]), **properties}))
    for rel in relationships:
        counts[rel["type"]] += 1
        items.append(_canonical(dict(rel)))
    items.sort()
    digest = hashlib.sha256("\n".join(items).encode()).hexdigest()
    return Fingerprint(dict(counts), items, digest), created


def _canonical(value: dict[str, Any]) -> str:
    # Temporal values as ISO text; floats by repr, so vectors compare exactly.
    return json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)


def test_bulk_import_builds_the_graph_ingestion_builds(
    clean_graph: Graph,
    settings: Settings,
    fake_embedder: HashEmbedder,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    batches: list[GraphRows] = []
    write = graph_writer.write_documents

    def recording(
        graph: Graph,
        collection: str,
        documents: Sequence[EmbeddedDocument],
        entities: Sequence[EntityRecord],
        entity_vectors: Vectors,
        embedded_entities: Sequence[EntityRecord] = (),
        **checks: Any,
    ) -> list[str]:
        assert collection == COLLECTION
        batches.append(
            graph_rows(collection, documents, entities, entity_vectors, embedded_entities)
        )
        return write(
            graph, collection, documents, entities, entity_vectors, embedded_entities, **checks
        )

    # The ingestor writes through its module's name for it.
    monkeypatch.setattr("anchorgraph.loaders.ingest.write_documents", recording)
    extractor = PairingExtractor(None, gazetteer=load_gazetteer(sample_gazetteer()))
    # Small chunks and batches: documents of several chunks, entities met again in later
    # batches (written then without an embedding), links to documents of other batches.
    ingestor = Ingestor(
        clean_graph, fake_embedder, extractor, chunk_tokens=48, chunk_overlap=0.2, batch_size=4
    )
    stats = ingestor.ingest(corpus(settings), collection=COLLECTION)
    assert stats.written == stats.documents and len(batches) >= 3
    ingested, (ingested_created,) = fingerprint(clean_graph)
    # What the comparison covers: every label and relationship type ingestion writes.
    assert {"Collection", "Document", "Chunk", "Term", "Entity", "Alias", "Folder", "Tag",
            "Unresolved", "Claim", "FdStats"} <= set(ingested.counts)  # fmt: skip
    assert {"HAS_CHUNK", "NEXT", "HAS_TERM", "MENTIONS", "RELATES", "LINKS_TO", "CONTAINS",
            "TAGGED", "ALIAS_OF", "ASSERTS"} <= set(ingested.counts)  # fmt: skip
    assert ingested.counts["Claim"] == ingested.counts["ASSERTS"] == stats.claims
    assert ingested_created.utcoffset() == timedelta(0)
    # The collection's counts, the root of its folder tree, and its name on everything that
    # carries one, as the comparison will find them in the imported graph too.
    (record,) = clean_graph.driver.execute_query(
        "MATCH (c:Collection) RETURN c.name AS name, c.documents = COUNT { (:Document) } AND "
        "c.chunks = COUNT { (:Chunk) } AS counted, COUNT { (c)-[:CONTAINS]->(:Folder) } AS "
        "folders, COUNT { (c)-[:CONTAINS]->(:Document) } AS documents, "
        "COUNT { (n) WHERE NOT n:Collection AND n.collection IS NULL } AS unscoped, "
        "COUNT { ()-[r:RELATES]->() WHERE r.collection IS NULL } AS unscoped_relations",
        database_=clean_graph.database,
    ).records
    assert record["name"] == COLLECTION and record["counted"]
    assert record["folders"] and record["documents"]
    assert record["unscoped"] == record["unscoped_relations"] == 0
    # Every chunk and document carries its claim count and FD_raw, some of them above zero.
    for label in ("Chunk", "Document"):
        (record,) = clean_graph.driver.execute_query(
            f"MATCH (n:{label}) RETURN count(n.fd_raw) = count(n) AND count(n.n_claims) = "
            "count(n) AS complete, max(n.fd_raw) AS highest",
            database_=clean_graph.database,
        ).records
        assert record["complete"] and record["highest"] > 0, label

    csv = CsvGraph(tmp_path / "csv", COLLECTION, created=CREATED, model=fake_embedder.name)
    for rows in batches:
        csv.add(rows)
    files = csv.close()
    assert files.collection == COLLECTION
    assert files.multiline and files.empty_lists  # paragraphs; chunks without identifiers
    local = LocalNeo4j(throwaway_settings(tmp_path / "neo4j", heap="512m", pagecache="128m"))
    try:
        import_into(local, files, heap="512m", max_off_heap_memory="256m", threads=1)
        with open_runtime(
            local.settings, schema="apply", embedder_factory=lambda _: fake_embedder
        ) as bulk:
            finish_import(bulk.graph, files)
            imported, (imported_created,) = fingerprint(bulk.graph)
    finally:
        local.stop()

    assert imported_created.to_native() == CREATED
    assert imported.counts == ingested.counts
    only_ingested = sorted(set(ingested.items) - set(imported.items))
    only_imported = sorted(set(imported.items) - set(ingested.items))
    assert imported.digest == ingested.digest, (
        f"only after ingestion: {[item[:300] for item in only_ingested[:3]]}\n"
        f"only after import: {[item[:300] for item in only_imported[:3]]}"
    )
