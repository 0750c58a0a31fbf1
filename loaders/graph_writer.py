"""Batched, idempotent writes of prepared documents into Neo4j.

A batch of documents is written in ONE transaction, so a document is either wholly in the graph
or not at all: an ingest killed half-way and run again converges on the graph an uninterrupted
run leaves (unchanged documents are skipped by content hash, the rest are replaced whole).
Every statement is a named file in ``cypher/load``; rows are sent with ``UNWIND``.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import neo4j

from loaders.model import Chunk, EntityMention, SourceDocument, Triple
from service.embedding import Vectors
from service.graph.gateway import Graph
from service.graph.queries import Query, as_parameters, cypher
from service.text.identifiers import normalise_entity_id


@dataclass(frozen=True)
class EntityRecord:
    """One entity as written: the merged view of its mentions in a batch."""

    id: str
    name: str
    type: str
    aliases: tuple[str, ...]


@dataclass(frozen=True)
class EmbeddedDocument:
    """Everything one document contributes to the graph, vectors included."""

    source: SourceDocument
    content_hash: str
    n_tokens: int
    identifiers: tuple[str, ...]
    chunks: Sequence[Chunk]
    chunk_identifiers: Sequence[tuple[str, ...]]
    chunk_terms: Sequence[Mapping[str, int]]  # index terms and their frequency, per chunk
    mentions: Sequence[EntityMention]
    triples: Sequence[Triple]
    vector: Vectors  # the document embedding (1-D)
    chunk_vectors: Vectors  # one row per chunk
    triple_vectors: Vectors  # one row per triple


def existing_hashes(graph: Graph, ids: Sequence[str]) -> dict[str, str]:
    """Content hash of each given document already in the graph."""
    records = graph.read(Query.EXISTING_HASHES, {"ids": list(ids)})
    return {r["id"]: r["content_hash"] for r in records}


def embedded_entity_ids(
    graph: Graph, entity_ids: Sequence[str], replacing: Sequence[str] = ()
) -> set[str]:
    """Those of the given entities that have an embedding in the graph and keep it while the
    documents ``replacing`` (a batch being written right now) are replaced: their vectors need
    not be computed or sent again (``write_documents``'s ``embedded_entities``)."""
    if not entity_ids:
        return set()
    records = graph.read(
        Query.EMBEDDED_ENTITIES, {"entity_ids": list(entity_ids), "replacing": list(replacing)}
    )
    return {r["id"] for r in records}


def write_documents(
    graph: Graph,
    documents: Sequence[EmbeddedDocument],
    entities: Sequence[EntityRecord],
    entity_vectors: Vectors,
    embedded_entities: Sequence[EntityRecord] = (),
) -> list[str]:
    """Replace these documents (whole) in one transaction.

    ``entities`` come with the embeddings of their names (``entity_vectors``, row for row);
    ``embedded_entities`` are mentioned too but already have an embedding in the graph
    (``embedded_entity_ids``), so they are written without one. Returns the ids of entities
    left without an embedding: one of ``embedded_entities`` that was removed in the meantime
    (by a concurrent delete) and was created again here. Normally empty; such an entity gets its
    embedding the next time it is written.
    """
    if not documents:
        return []
    ids = [d.source.id for d in documents]
    entity_rows = [
        _entity_row(entity, vector.tolist())
        for entity, vector in zip(entities, entity_vectors, strict=True)
    ] + [_entity_row(entity, None) for entity in embedded_entities]
    params: list[tuple[Query, dict[str, Any]]] = [
        (Query.UPSERT_DOCUMENTS, {"documents": [_document_row(d) for d in documents]}),
        (Query.FILE_DOCUMENTS, {"documents": [_filing_row(d.source) for d in documents]}),
        (Query.CREATE_CHUNKS, _chunk_parameters(documents)),
    ]
    after_entities: list[tuple[Query, dict[str, Any]]] = [
        (
            Query.CREATE_MENTIONS,
            {
                "mentions": [
                    {"chunk_id": m.chunk_id, "entity_id": m.entity_id, "count": m.count}
                    for d in documents
                    for m in d.mentions
                ]
            },
        ),
        (Query.CREATE_TRIPLES, {"triples": [row for d in documents for row in _triple_rows(d)]}),
        (Query.CREATE_LINKS, {"links": [row for d in documents for row in _link_rows(d)]}),
        (
            Query.RESOLVE_UNRESOLVED,
            {"documents": [{"id": d.source.id, "uri": d.source.uri} for d in documents]},
        ),
    ]

    def work(tx: neo4j.ManagedTransaction) -> list[str]:
        tx.run(cypher(Query.DETACH_INCOMING_LINKS), ids=ids).consume()
        old = tx.run(cypher(Query.DELETE_DOCUMENT_CONTENT), ids=ids).single()
        for query, parameters in params:
            _run_rows(tx, query, parameters)
        upserted = (
            tx.run(cypher(Query.UPSERT_ENTITIES), as_parameters({"entities": entity_rows})).single()
            if entity_rows
            else None
        )
        for query, parameters in after_entities:
            _run_rows(tx, query, parameters)
        _delete_orphans(tx, old)
        return list(upserted["without_embedding"]) if upserted else []

    return graph.write(work)


def delete_documents(graph: Graph, ids: Sequence[str]) -> int:
    """Remove documents, their content and entities and index terms no one uses any more; links
    into them wait on a placeholder so they resolve again if the documents come back. Returns
    the count."""

    def work(tx: neo4j.ManagedTransaction) -> int:
        tx.run(cypher(Query.DETACH_INCOMING_LINKS), ids=list(ids)).consume()
        old = tx.run(cypher(Query.DELETE_DOCUMENT_CONTENT), ids=list(ids)).single()
        deleted = tx.run(cypher(Query.DELETE_DOCUMENTS), ids=list(ids)).single()
        _delete_orphans(tx, old)
        return int(deleted["deleted"]) if deleted else 0

    return graph.write(work)


def _run_rows(tx: neo4j.ManagedTransaction, query: Query, parameters: dict[str, Any]) -> None:
    """Run an ``UNWIND $rows`` statement, unless there are no rows (every parameter empty):
    nothing to do then, and a round trip (and, on a fresh server, a query plan) saved."""
    if any(parameters.values()):
        tx.run(cypher(query), as_parameters(parameters)).consume()


def _delete_orphans(tx: neo4j.ManagedTransaction, old: neo4j.Record | None) -> None:
    """Remove what the deleted chunks (``delete_document_content.cypher``'s record) were the
    last to use: entities, link placeholders and index terms."""
    if old is None:
        return
    _run_rows(tx, Query.DELETE_ORPHAN_ENTITIES, {"entity_ids": old["entity_ids"]})
    _run_rows(tx, Query.DELETE_ORPHAN_PLACEHOLDERS, {"keys": old["placeholder_keys"]})
    _run_rows(tx, Query.DELETE_ORPHAN_TERMS, {"texts": old["term_texts"]})


def merge_entities(documents: Iterable[EmbeddedDocument]) -> list[EntityRecord]:
    """One record per entity id across the batch; aliases are the union of surface forms."""
    merged: dict[str, EntityRecord] = {}
    for document in documents:
        for mention in document.mentions:
            known = merged.get(mention.entity_id)
            aliases = tuple(dict.fromkeys((*(known.aliases if known else ()), *mention.aliases)))
            merged[mention.entity_id] = EntityRecord(
                mention.entity_id,
                known.name if known else mention.name,
                known.type if known else mention.type,
                aliases,
            )
    return list(merged.values())


# --- rows ---------------------------------------------------------------------------------------
def _entity_row(entity: EntityRecord, embedding: list[float] | None) -> dict[str, Any]:
    keys = (normalise_entity_id(alias) for alias in entity.aliases)
    return {
        "id": entity.id,
        "name": entity.name,
        "type": entity.type,
        "aliases": list(entity.aliases),
        # An alias that normalises to the id itself ("Mac" of "mac") needs no key of its own.
        "alias_keys": sorted({key for key in keys if key and key != entity.id}),
        "embedding": embedding,
    }


def _document_row(document: EmbeddedDocument) -> dict[str, Any]:
    source = document.source
    properties: dict[str, Any] = {
        "title": source.title,
        # The whole normalised text: the document-level BM25 path searches it (chunks overlap,
        # so their text would count words twice), and exploration shows it in one place.
        "text": source.text,
        "uri": source.uri,
        "source": source.source,
        "source_type": source.source_type,
        "folder": source.folder,
        "tags": list(source.tags),
        "n_tokens": document.n_tokens,
        "n_chars": len(source.text),
        "content_hash": document.content_hash,
        "size_bytes": source.size_bytes,
        "modified": source.modified,
        "identifiers": list(document.identifiers),
    }
    # Caller metadata is kept under its own prefix so it can never overwrite our properties.
    properties.update({f"meta_{key}": value for key, value in source.metadata.items()})
    return {"id": source.id, "properties": properties, "embedding": document.vector.tolist()}


def _filing_row(source: SourceDocument) -> dict[str, Any]:
    parts = [part for part in source.folder.split("/") if part]
    folders: list[dict[str, str | None]] = [
        {"path": "", "name": source.source or "/", "parent": None}
    ]
    for depth in range(1, len(parts) + 1):
        path = posixpath.join(*parts[:depth])
        parent = posixpath.join(*parts[: depth - 1]) if depth > 1 else ""
        folders.append({"path": path, "name": parts[depth - 1], "parent": parent})
    return {"id": source.id, "folders": folders, "tags": list(source.tags)}


def index_term_parameters(
    chunk_terms: Sequence[Mapping[str, int]],
) -> tuple[list[str], list[dict[str, list[Any]]]]:
    """The batch's distinct index terms, and each chunk's postings as positions in that list:
    ``single_terms`` (a term the chunk has once) and ``repeated_terms`` (``[position, tf]``).

    ``create_chunks.cypher`` MERGEs each term once per batch instead of once per chunk that has
    it (and the texts travel once), which made its writes ~14 % faster; and it stores ``tf`` only
    where it is above 1 (four postings in five are single), which made writing the postings
    ~40 % faster (both benchmarks/write_floor.py).
    """
    position: dict[str, int] = {}
    postings: list[dict[str, list[Any]]] = []
    for terms in chunk_terms:
        single: list[int] = []
        repeated: list[list[int]] = []
        for text, tf in terms.items():
            at = position.setdefault(text, len(position))
            if tf == 1:
                single.append(at)
            else:
                repeated.append([at, tf])
        postings.append({"single_terms": single, "repeated_terms": repeated})
    return list(position), postings


def _chunk_parameters(documents: Sequence[EmbeddedDocument]) -> dict[str, Any]:
    terms, postings = index_term_parameters([t for d in documents for t in d.chunk_terms])
    rows = [row for d in documents for row in _chunk_rows(d)]
    return {
        "terms": terms,
        "chunks": [row | p for row, p in zip(rows, postings, strict=True)],
    }


def _chunk_rows(document: EmbeddedDocument) -> Iterable[dict[str, Any]]:
    """One row per chunk; its index terms are added by ``_chunk_parameters``."""
    previous: str | None = None
    for chunk, identifiers, vector in zip(
        document.chunks, document.chunk_identifiers, document.chunk_vectors, strict=True
    ):
        yield {
            "id": chunk.id,
            "document_id": chunk.document_id,
            "ordinal": chunk.ordinal,
            "text": chunk.text,
            "start": chunk.start,
            "end": chunk.end,
            "n_tokens": chunk.n_tokens,
            "heading_slugs": list(chunk.heading_slugs),
            "identifiers": list(identifiers),
            "previous_id": previous,
            "embedding": vector.tolist(),
        }
        previous = chunk.id


def _triple_rows(document: EmbeddedDocument) -> Iterable[dict[str, Any]]:
    for triple, vector in zip(document.triples, document.triple_vectors, strict=True):
        yield {
            "subject_id": triple.subject_id,
            "object_id": triple.object_id,
            "predicate": triple.predicate,
            "text": triple.text,
            "chunk_id": triple.chunk_id,
            "document_id": document.source.id,
            "embedding": vector.tolist(),
        }


def _link_rows(document: EmbeddedDocument) -> Iterable[dict[str, Any]]:
    for chunk in document.chunks:
        for link in chunk.links:
            yield {
                "chunk_id": chunk.id,
                "target": link.target_document,
                "fragment": link.fragment,
                "href": link.href,
                "anchor_text": link.anchor_text,
                "context": link.context,
            }
