"""What an ingest wrote into one collection, in a form two ingests' graphs compare by: the
pipelines' benchmark (``benchmarks/pipelines.py``) and the tests of the pipelined and the Ray
ingest check with it that each builds the graph the serial one does."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from anchorgraph.graph.gateway import Graph


@dataclass(frozen=True)
class Ingested:
    """A collection's graph: nodes by label and relationships by type (counted), each
    document's content hash with its chunks' ids and texts, the entities' keys, and the chunks'
    vectors (compared within a tolerance: ``same_vectors``)."""

    nodes: dict[str, int]
    relationships: dict[str, int]
    documents: dict[str, tuple[str, list[list[str]]]]
    entities: list[str]
    vectors: dict[str, list[float]]

    def same_vectors(self, other: Ingested, tolerance: float = 1e-5) -> bool:
        return self.vectors.keys() == other.vectors.keys() and all(
            np.allclose(self.vectors[key], other.vectors[key], rtol=0, atol=tolerance)
            for key in self.vectors
        )

    def graph(self) -> tuple[Any, ...]:
        """Everything but the vectors, for an exact comparison."""
        return (self.nodes, self.relationships, self.documents, self.entities)


def ingested(graph: Graph, collection: str) -> Ingested:
    """The graph of ``collection``, ids given within it."""

    def read(statement: str) -> list[Any]:
        return list(graph.driver.execute_query(statement, c=collection).records)

    # Each collection has shard labels of its own (DocumentShard00, ...): left out.
    nodes = read(
        "MATCH (n {collection: $c}) UNWIND labels(n) AS label WITH label, n "
        "WHERE NOT label =~ '.*Shard[0-9]+' RETURN label, count(*) AS n"
    )
    relationships = read("MATCH (n {collection: $c})-[r]->() RETURN type(r) AS type, count(*) AS n")
    documents = read(
        "MATCH (d:Document {collection: $c}) "
        "RETURN substring(d.id, size($c) + 1) AS id, d.content_hash AS hash, "
        "COLLECT { MATCH (d)-[:HAS_CHUNK]->(k:Chunk) "
        "          RETURN [substring(k.id, size($c) + 1), k.text] ORDER BY k.ordinal } AS chunks"
    )
    entities = read(
        "MATCH (e:Entity {collection: $c}) RETURN substring(e.id, size($c) + 1) AS id ORDER BY id"
    )
    vectors = read(
        "MATCH (k:Chunk {collection: $c}) "
        "RETURN substring(k.id, size($c) + 1) AS id, k.embedding AS vector"
    )
    return Ingested(
        nodes={r["label"]: r["n"] for r in nodes},
        relationships={r["type"]: r["n"] for r in relationships},
        documents={r["id"]: (r["hash"], r["chunks"]) for r in documents},
        entities=[r["id"] for r in entities],
        vectors={r["id"]: list(r["vector"]) for r in vectors},
    )
