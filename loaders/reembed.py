"""Re-embedding a collection with another model, in place (``anchorgraph collections reembed``).

A collection records the model its vectors come from (cypher/load/lock_collection.cypher), and a
process with another model may neither write nor search it (``embedding.check_model``): the
vectors of two models cannot be compared. Re-embedding makes every vector of the collection again
from the texts the graph keeps of it, as ingestion made them (loaders/ingest.py): each chunk's
text, each document's vector as the normalised mean of its chunks' (``document_vector``), each
triple's text, each link's anchor context, and each entity's name. Chunks, entities, triples and
links stay as they are: nothing is read, parsed or chunked again (chunk sizes were counted in the
old model's tokens, so a model with a shorter input reads less of each chunk).

Per batch of documents, one write transaction reads their texts, embeds them and stores the
vectors; then the entities, a page at a time; then the collection records the new model. An
interrupted run leaves every batch either as it was or re-embedded, and the collection still
recording the old model: running it again does the whole of it again, and finishes. Its vectors
must have the width of the graph's vector indexes (one for every collection): the runtime checks
it when it opens.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from itertools import islice

import neo4j
import numpy as np

from anchorgraph.embedding import Embedder, Vectors
from anchorgraph.graph.bridges import refresh_bridges
from anchorgraph.graph.gateway import Graph, rows_in, run_in
from anchorgraph.graph.queries import Query
from anchorgraph.graph.rows import EmbeddedText
from anchorgraph.loaders.collections import collection_info
from anchorgraph.loaders.graph_writer import lock_collection
from anchorgraph.loaders.ingest import document_vector
from anchorgraph.scope import collection_name, scoped

BATCH_DOCUMENTS = 32  # documents re-embedded per write transaction
BATCH_ENTITIES = 512


@dataclass(frozen=True)
class Reembedded:
    """The vectors one batch of documents was given again."""

    documents: int = 0
    chunks: int = 0
    triples: int = 0
    links: int = 0

    def __add__(self, other: Reembedded) -> Reembedded:
        return Reembedded(
            self.documents + other.documents,
            self.chunks + other.chunks,
            self.triples + other.triples,
            self.links + other.links,
        )


@dataclass(frozen=True)
class ReembedReport:
    """What was embedded again."""

    collection: str
    model: str
    documents: int
    chunks: int
    entities: int
    triples: int
    links: int


def reembed_collection(
    graph: Graph,
    embedder: Embedder,
    collection: str,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> ReembedReport:
    """Embed every vector of ``collection`` again with ``embedder`` and record its model.

    Args:
        progress: called with (documents done, documents in all) after each batch.

    Raises:
        NotFound: no such collection.
        InvalidInput: ``collection`` is not a valid collection name.
    """
    collection = collection_name(collection)
    total = collection_info(graph, collection).documents
    local_ids = [row["id"] for row in graph.read(Query.DOCUMENT_IDS, {"collection": collection})]
    done = Reembedded()
    ids = iter(scoped(collection, local) for local in local_ids)
    while batch := list(islice(ids, BATCH_DOCUMENTS)):

        def work(tx: neo4j.ManagedTransaction, batch: list[str] = batch) -> Reembedded:
            lock_collection(tx, collection)  # no write of the collection in between
            return _reembed_documents(tx, embedder, batch)

        done += graph.write(work)
        if progress is not None:
            progress(done.documents, total)
    entities = _reembed_entities(graph, embedder, collection)
    graph.write(
        lambda tx: run_in(
            tx, Query.SET_COLLECTION_MODEL, {"collection": collection, "model": embedder.name}
        )
    )
    return ReembedReport(
        collection,
        embedder.name,
        documents=done.documents,
        chunks=done.chunks,
        entities=entities,
        triples=done.triples,
        links=done.links,
    )


def _reembed_documents(
    tx: neo4j.ManagedTransaction, embedder: Embedder, ids: list[str]
) -> Reembedded:
    rows = rows_in(tx, Query.REEMBED_TEXTS, {"ids": ids})
    chunks = [c for row in rows for c in row["chunks"]]
    triples = [t for row in rows for t in row["triples"]]
    links = [link for row in rows for link in row["links"]]
    chunk_vectors = _embed(embedder, chunks)
    documents, at = [], 0
    for row in rows:
        own = chunk_vectors[at : at + len(row["chunks"])]
        at += len(row["chunks"])
        if len(own):
            documents.append({"id": row["id"], "embedding": document_vector(own).tolist()})
    parameters = {
        "documents": documents,
        "chunks": _rows(chunks, chunk_vectors),
        "triples": _rows(triples, _embed(embedder, triples)),
        "links": _rows(links, _embed(embedder, links)),
    }
    run_in(tx, Query.SET_VECTORS, parameters)
    refresh_bridges(tx, (entity_id for row in rows for entity_id in row["entity_ids"]))
    return Reembedded(len(rows), len(chunks), len(triples), len(links))


def _reembed_entities(graph: Graph, embedder: Embedder, collection: str) -> int:
    done, after = 0, ""
    while page := graph.read(
        Query.COLLECTION_ENTITIES,
        {"collection": collection, "after": after, "limit": BATCH_ENTITIES},
    ):
        vectors = embedder.embed([row["name"] for row in page])
        entities = [
            {"id": row["id"], "embedding": vector.tolist()}
            for row, vector in zip(page, vectors, strict=True)
        ]
        graph.write(
            partial(run_in, query=Query.SET_ENTITY_VECTORS, parameters={"entities": entities})
        )
        done += len(page)
        after = page[-1]["id"]
    return done


def _embed(embedder: Embedder, texts: list[EmbeddedText]) -> Vectors:
    if not texts:
        return np.zeros((0, embedder.dimension), dtype=np.float32)
    return embedder.embed([t["text"] for t in texts])


def _rows(texts: list[EmbeddedText], vectors: Vectors) -> list[dict[str, object]]:
    return [
        {"id": t["id"], "embedding": vector.tolist()}
        for t, vector in zip(texts, vectors, strict=True)
    ]
