"""A graph written before collections upgrades in place: the sample corpus as the code of
commit 2b7a574 wrote it (tests/fixtures/before_collections, with the script that made it) is
loaded, schema and all, into a Neo4j of its own; a reader refuses it until a writer applies the
schema, which moves everything into the collection ``default`` and gives it a shard, without
embedding anything again; and then every search ranks exactly as on the same corpus ingested
today."""

from __future__ import annotations

import gzip
import json
import re
import shutil
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from anchorgraph.embedding import HashEmbedder
from anchorgraph.errors import SchemaMissing
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.local_server import LocalNeo4j, throwaway_settings
from anchorgraph.graph.queries import Query, cypher
from anchorgraph.graph.schema import apply_schema, verify_schema
from anchorgraph.ingestion import read_all, sample_corpus, sample_gazetteer
from anchorgraph.loaders.entities import EntityExtractor, load_gazetteer
from anchorgraph.loaders.ingest import Ingestor, document_vector
from anchorgraph.retrieval.context import SearchContext
from anchorgraph.retrieval.options import SearchOptions
from anchorgraph.retrieval.pipeline import search
from anchorgraph.runtime import open_graph, open_runtime
from anchorgraph.settings import Settings

pytestmark = pytest.mark.integration

DUMP = Path(__file__).resolve().parents[1] / "fixtures" / "before_collections" / "graph.json.gz"
QUERIES = [
    "what happened in the Gallery 3 incident?",
    "AG-2048 battery life",
    "who founded the MAC?",
    "humidity in the storerooms",
]
# Under a filter every path scores exactly (the dense paths take every allowed chunk's cosine
# instead of the vector index's quantised scores, which two graphs built apart round
# differently), so two graphs holding the same corpus rank alike to the last digits.
EVERY_DOCUMENT = {
    "document_ids": [
        path.relative_to(sample_corpus()).as_posix() for path in sample_corpus().rglob("*.md")
    ]
}
SEARCHES: list[dict[str, Any]] = [
    {"mode": "dense", "filters": EVERY_DOCUMENT},
    {"mode": "bm25"},
    {"mode": "tfidf"},
    {"filters": EVERY_DOCUMENT},
    {"level": "document", "expand": True, "filters": EVERY_DOCUMENT},
    {"mode": "multisignal", "filters": EVERY_DOCUMENT},
    {"filters": {"folders": ["climate"]}},
]


def native(value: Any) -> Any:
    if isinstance(value, dict) and "$datetime" in value:
        return datetime.fromisoformat(value["$datetime"])
    if isinstance(value, list):
        return [native(item) for item in value]
    return value


def load(graph: Graph, dump: dict[str, Any], embedder: HashEmbedder) -> None:
    """The dump into an empty database: its own schema first, then its nodes and relationships,
    then every vector the old code stored, computed again as it computed them."""
    for statement in dump["schema"]:
        graph.run(statement, {"dimensions": embedder.dimension})
    graph.run("CREATE INDEX dumped IF NOT EXISTS FOR (n:Dumped) ON (n.dumped)")
    graph.run("CALL db.awaitIndexes(300)")
    nodes = [
        {
            "id": node["id"],
            "labels": node["labels"],
            "properties": {k: native(v) for k, v in node["properties"].items()},
        }
        for node in dump["nodes"]
    ]
    write = graph.driver.execute_query
    write(
        "UNWIND $nodes AS row CREATE (n:$(row.labels + ['Dumped'])) "
        "SET n = row.properties, n.dumped = row.id",
        nodes=nodes,
    )
    write(
        "UNWIND $relationships AS row "
        "MATCH (a:Dumped {dumped: row.start}), (b:Dumped {dumped: row.end}) "
        "CREATE (a)-[r:$(row.type)]->(b) SET r = row.properties",
        relationships=dump["relationships"],
    )
    write("MATCH (n:Dumped) REMOVE n:Dumped, n.dumped")
    graph.run("DROP INDEX dumped")
    chunks = write(
        "MATCH (d:Document)-[:HAS_CHUNK]->(c:Chunk) WITH d, c ORDER BY c.ordinal "
        "RETURN d.id AS document, collect(c.id) AS ids, collect(c.text) AS texts"
    ).records
    for record in chunks:
        vectors = embedder.embed(record["texts"])
        write(
            "UNWIND $rows AS row MATCH (c:Chunk {id: row.id}) "
            "CALL db.create.setNodeVectorProperty(c, 'embedding', row.vector)",
            rows=[
                {"id": i, "vector": v.tolist()} for i, v in zip(record["ids"], vectors, strict=True)
            ],
        )
        write(
            "MATCH (d:Document {id: $id}) "
            "CALL db.create.setNodeVectorProperty(d, 'embedding', $vector)",
            id=record["document"],
            vector=document_vector(vectors).tolist(),
        )
    names = write("MATCH (e:Entity) RETURN e.id AS id, e.name AS name").records
    vectors = embedder.embed([r["name"] for r in names])
    write(
        "UNWIND $rows AS row MATCH (e:Entity {id: row.id}) "
        "CALL db.create.setNodeVectorProperty(e, 'embedding', row.vector)",
        rows=[{"id": r["id"], "vector": v.tolist()} for r, v in zip(names, vectors, strict=True)],
    )
    for kind, text, name in (
        ("RELATES", "r.text", "embedding"),
        ("LINKS_TO", "coalesce(r.context, r.anchor_text)", "context_embedding"),
    ):
        edges = write(f"MATCH ()-[r:{kind}]->() RETURN elementId(r) AS id, {text} AS text").records
        vectors = embedder.embed([r["text"] for r in edges]) if edges else []
        write(
            f"UNWIND $rows AS row MATCH ()-[r:{kind}]->() WHERE elementId(r) = row.id "
            f"CALL db.create.setRelationshipVectorProperty(r, '{name}', row.vector)",
            rows=[
                {"id": r["id"], "vector": v.tolist()} for r, v in zip(edges, vectors, strict=True)
            ],
        )


@pytest.fixture(scope="module")
def dump() -> dict[str, Any]:
    with gzip.open(DUMP, "rt", encoding="utf-8") as file:
        loaded: dict[str, Any] = json.load(file)
    return loaded


@pytest.fixture(scope="module")
def old(
    tmp_path_factory: pytest.TempPathFactory, dump: dict[str, Any], fake_embedder: HashEmbedder
) -> Iterator[Settings]:
    """A Neo4j of its own holding the graph as the old code left it."""
    local = throwaway_settings(tmp_path_factory.mktemp("old-neo4j"), heap="1g", pagecache="256m")
    server = LocalNeo4j(local)
    server.start()
    try:
        with open_runtime(local, schema="apply", embedder_factory=lambda _: fake_embedder) as rt:
            rt.graph.driver.execute_query(cypher(Query.DELETE_ALL))
            for name in [r["name"] for r in rt.graph.driver.execute_query(
                    "SHOW CONSTRAINTS YIELD name").records]:  # fmt: skip
                rt.graph.run(f"DROP CONSTRAINT {name}")
            for name in [r["name"] for r in rt.graph.driver.execute_query(
                    "SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP'").records]:  # fmt: skip
                rt.graph.run(f"DROP INDEX {name}")
            load(rt.graph, dump, fake_embedder)
        yield local
    finally:
        server.stop()


def as_read_before_tables(corpus: Path, into: Path) -> Path:
    """A copy of the corpus whose Markdown tables are written as the old code read them, one
    ``cell | cell`` paragraph per row: since the documents issue a table's rows carry their
    header ("property: battery; value: …"), the one reading that changed since the dump, so
    that the two graphs compared hold the very same texts."""
    shutil.copytree(corpus, into)
    for path in into.rglob("*.md"):
        lines = path.read_text("utf-8").splitlines()
        rows = [
            " | ".join(cell.strip() for cell in line.strip().strip("|").split("|"))
            if line.lstrip().startswith("|")
            else line
            for line in lines
            if not re.fullmatch(r"\s*\|[-|: ]+\|\s*", line)
        ]
        paragraphs = [f"{row}\n" if row.count(" | ") else row for row in rows]
        path.write_text("\n".join(paragraphs) + "\n", "utf-8")
    return into


@pytest.fixture(scope="module")
def today(
    graph: Graph,
    settings: Settings,
    fake_embedder: HashEmbedder,
    tmp_path_factory: pytest.TempPathFactory,
) -> Graph:
    """The same corpus ingested by today's code, into ``default``."""
    graph.driver.execute_query(cypher(Query.DELETE_ALL))
    corpus = as_read_before_tables(sample_corpus(), tmp_path_factory.mktemp("today") / "corpus")
    documents, _ = read_all(settings, corpus)
    extractor = EntityExtractor(None, gazetteer=load_gazetteer(sample_gazetteer()))
    Ingestor.configured(settings, graph, fake_embedder, extractor).ingest(documents)
    return graph


def vectors(graph: Graph) -> dict[str, list[float]]:
    records = graph.driver.execute_query(
        "MATCH (c:Chunk) RETURN substring(c.id, coalesce(size(c.collection) + 1, 0)) AS id, "
        "c.embedding AS vector"
    ).records
    return {r["id"]: r["vector"] for r in records}


def test_the_old_graph_is_refused_by_readers_then_upgraded_in_place(
    old: Settings, dump: dict[str, Any], fake_embedder: HashEmbedder, today: Graph
) -> None:
    with open_graph(old) as graph:
        before = vectors(graph)
        with pytest.raises(SchemaMissing, match="earlier version"):
            verify_schema(graph, fake_embedder.dimension)
        apply_schema(graph, fake_embedder.dimension)
        verify_schema(graph, fake_embedder.dimension)
        after = vectors(graph)
        # Not embedded again: the very vectors the old code stored, under the new keys.
        assert before.keys() == after.keys() and len(after) > 12
        assert all(np.array_equal(before[key], after[key]) for key in before)
        check_upgraded(graph, dump)


def test_the_upgraded_graph_ranks_exactly_as_today(
    old: Settings, fake_embedder: HashEmbedder, today: Graph
) -> None:
    with open_graph(old) as graph:
        apply_schema(graph, fake_embedder.dimension)  # a no-op once upgraded
        for query in QUERIES:
            for options in SEARCHES:
                upgraded = ranked(graph, fake_embedder, query, options)
                assert upgraded, (query, options)
                assert upgraded == ranked(today, fake_embedder, query, options), (query, options)


def check_upgraded(graph: Graph, dump: dict[str, Any]) -> None:
    run = graph.driver.execute_query
    documents = run("MATCH (d:Document) RETURN d.id AS id, d.collection AS c").records
    old_ids = {n["properties"]["id"] for n in dump["nodes"] if "Document" in n["labels"]}
    assert {r["id"] for r in documents} == {f"default/{id_}" for id_ in old_ids}
    assert {r["c"] for r in documents} == {"default"}
    (collection,) = run("MATCH (c:Collection) RETURN c").records
    chunks = sum(1 for n in dump["nodes"] if "Chunk" in n["labels"])
    assert (collection["c"]["name"], collection["c"]["documents"], collection["c"]["chunks"]) == (
        "default",
        len(old_ids),
        chunks,
    )
    # The collection has the first shard, and its chunks and documents that shard's labels.
    assert collection["c"]["shard"] == 0
    labelled = run("MATCH (n) WHERE n:ChunkShard00 OR n:DocumentShard00 RETURN count(n) AS n")
    assert labelled.records[0]["n"] == chunks + len(old_ids)
    # No node of a collection is left without one, and no root folder stands in for it.
    assert not run("MATCH (n) WHERE n.collection IS NULL AND NOT n:Collection "
                   "AND NOT n:SourceAuthority RETURN n LIMIT 1").records  # fmt: skip
    assert not run("MATCH (f:Folder {path: ''}) RETURN f").records
    names = {r["name"] for r in run("SHOW CONSTRAINTS YIELD name").records}
    assert {"folder_in_collection", "term_in_collection", "collection_name"} <= names
    assert not {"folder_path", "tag_name", "term_text", "fd_stats_id"} & names
    # Entities gained their keys without accents, as ingestion gives them today.
    folded = run("MATCH (a:Alias)-[:ALIAS_OF]->(e:Entity) WHERE a.key IN $keys "
                 "RETURN a.key AS key, e.id AS id", keys=["default/museu de arte contemporanea",
                 "default/tiete biennial"]).records  # fmt: skip
    assert {(r["key"], r["id"]) for r in folded} == {
        ("default/museu de arte contemporanea", "default/museu de arte contemporânea"),
        ("default/tiete biennial", "default/bienal tietê"),
    }
    assert collection["c"]["accent_keys"] is True
    # Links kept their targets, and the external one still waits on its placeholder.
    links = run("MATCH (:Chunk)-[l:LINKS_TO]->(t) RETURN count(l) AS n, "
                "count(CASE WHEN t:Unresolved THEN 1 END) AS waiting").records[0]  # fmt: skip
    old_links = [r for r in dump["relationships"] if r["type"] == "LINKS_TO"]
    assert links["n"] == len(old_links) and links["waiting"] >= 1


def ranked(
    graph: Graph, embedder: HashEmbedder, query: str, options: dict[str, Any]
) -> list[tuple[str, str, str, float]]:
    context = SearchContext(graph, embedder)
    try:
        result = search(context, SearchOptions(query=query, k=10, **options))
    finally:
        context.close()
    return [
        (hit.collection, hit.document_id, hit.chunk_id, round(hit.score, 6)) for hit in result.hits
    ]
