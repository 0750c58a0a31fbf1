"""Batched, idempotent writes of prepared documents into Neo4j.

A batch of documents is written in ONE transaction, so a document is either wholly in the graph
or not at all: an ingest killed half-way and run again converges on the graph an uninterrupted
run leaves (unchanged documents are skipped by content hash, the rest are replaced whole).
Every statement is a named file in ``cypher/load``; rows are sent with ``UNWIND``.

A write goes into one collection. Everything before it (reading, chunking, extraction) works
with the ids a user knows; the rows built here store them under their collection's keys
(``anchorgraph.scope.scoped``: ``wiki/README.md``), so two collections never share a document, a
chunk, an entity or a link target, and writes into one collection take its lock first
(``lock_collection.cypher``).
"""

from __future__ import annotations

import posixpath
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypedDict

import neo4j

from anchorgraph.embedding import Vectors, check_model
from anchorgraph.errors import Conflict
from anchorgraph.factual_density import fd_raw
from anchorgraph.graph.bounds import BRIDGED_MENTIONS
from anchorgraph.graph.bridges import refresh_bridges
from anchorgraph.graph.gateway import Graph, rows_in, run_in, single_in
from anchorgraph.graph.queries import Query, Statement
from anchorgraph.graph.rows import DeletedContentRow
from anchorgraph.graph.shards import SHARDS, shard_labels
from anchorgraph.loaders.claims import Claim
from anchorgraph.loaders.model import Chunk, EntityMention, SourceDocument, Triple
from anchorgraph.scope import local_id, scoped
from anchorgraph.text.identifiers import alias_keys
from anchorgraph.text.language import ALL_DOCUMENT_LABELS, Language, language_labels


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
    # The atomic claims of each chunk, in order (anchorgraph.loaders.claims); empty: none were
    # extracted, and every chunk is written with no claims (n_claims 0, fd_raw 0.0).
    chunk_claims: Sequence[Sequence[Claim]] = ()
    # One row per link of the chunks, in order: the embedding of its anchor context (the anchor
    # text's sentence), which expansion validates a landing chunk against; None: not embedded.
    link_vectors: Vectors | None = None


@dataclass(frozen=True)
class Stored:
    """What the graph holds of a document: its content hash, and where it came from."""

    content_hash: str
    uri: str  # "" when it was given without one


def existing_documents(graph: Graph, collection: str, ids: Sequence[str]) -> dict[str, Stored]:
    """The given documents of ``collection`` already in the graph, by id."""
    keys = [scoped(collection, id_) for id_ in ids]
    records = graph.read(Query.EXISTING_HASHES, {"ids": keys})
    return {local_id(r["id"]): Stored(r["content_hash"] or "", r["uri"]) for r in records}


def embedded_entity_ids(
    graph: Graph,
    collection: str,
    entity_ids: Sequence[str],
    replacing: Sequence[str] = (),
) -> set[str]:
    """Those of the given entities of ``collection`` that have an embedding in the graph and
    keep it while the documents ``replacing`` (a batch being written right now) are replaced:
    their vectors need not be computed or sent again (``write_documents``'s
    ``embedded_entities``)."""
    if not entity_ids:
        return set()
    parameters = {
        "entity_ids": [scoped(collection, id_) for id_ in entity_ids],
        "replacing": [scoped(collection, id_) for id_ in replacing],
    }
    return {local_id(r["id"]) for r in graph.read(Query.EMBEDDED_ENTITIES, parameters)}


def write_documents(
    graph: Graph,
    collection: str,
    documents: Sequence[EmbeddedDocument],
    entities: Sequence[EntityRecord],
    entity_vectors: Vectors,
    embedded_entities: Sequence[EntityRecord] = (),
    *,
    expected: Mapping[str, str | None] | None = None,
    model: str | None = None,
) -> list[str]:
    """Replace these documents (whole) of ``collection`` in one transaction, FD* bin statistics
    and the collection's counts included. ``model`` is the embedding model their vectors come
    from: a new collection records it, and a collection that records another refuses the write
    (``ModelMismatch``, nothing written); None records and checks nothing.

    ``expected``: by id, the content hash each document had in the graph when the write was
    decided on (None: it had none). It is checked under the collection's write lock, before
    anything is written: a write that committed in between raises ``Conflict`` and this one
    writes nothing, rather than replace what it has not seen.

    ``entities`` come with the embeddings of their names (``entity_vectors``, row for row);
    ``embedded_entities`` are mentioned too but already have an embedding in the graph
    (``embedded_entity_ids``), so they are written without one. Returns the ids of entities
    left without an embedding: one of ``embedded_entities`` that was removed in the meantime
    (by a concurrent delete) and was created again here. Normally empty; such an entity gets its
    embedding the next time it is written.
    """
    if not documents:
        return []
    # Built before the transaction: a retried transaction sends the same rows again.
    rows = graph_rows(collection, documents, entities, entity_vectors, embedded_entities)
    ids = rows.document_ids
    scope = {"collection": collection}

    def work(tx: neo4j.ManagedTransaction) -> list[str]:
        labels = shard_labels(lock_collection(tx, collection, model))
        if expected is not None:
            _check_unchanged_since(tx, collection, expected)
        run_in(tx, Query.DETACH_INCOMING_LINKS, {"ids": ids})
        _count_in_fd_bins(tx, collection, ids, -1)
        old = single_in(tx, Query.DELETE_DOCUMENT_CONTENT, {"ids": ids})
        documents = {"document_labels": labels["document_labels"],
                     "language_labels": ALL_DOCUMENT_LABELS}  # fmt: skip
        _run_rows(tx, Query.UPSERT_DOCUMENTS, {"documents": rows.documents}, documents)
        _run_rows(tx, Query.FILE_DOCUMENTS, {"documents": rows.filings}, scope)
        chunks = {**scope, "chunk_labels": labels["chunk_labels"]}
        _run_rows(tx, Query.CREATE_CHUNKS, {"terms": rows.terms, "chunks": rows.chunks}, chunks)
        _run_rows(tx, Query.CREATE_CLAIMS, {"claims": rows.claims}, scope)
        # Into the FD* length bins (loaders/fd_stats.py), now that fd_raw and n_tokens are set.
        _count_in_fd_bins(tx, collection, ids, 1)
        upserted = (
            single_in(tx, Query.UPSERT_ENTITIES, {"entities": rows.entities, **scope})
            if rows.entities
            else None
        )
        _run_rows(tx, Query.CREATE_MENTIONS, {"mentions": rows.mentions}, scope)
        _run_rows(tx, Query.CREATE_TRIPLES, {"triples": rows.triples}, scope)
        _run_rows(tx, Query.CREATE_LINKS, {"links": rows.links}, scope)
        _run_rows(tx, Query.RESOLVE_UNRESOLVED, {"documents": rows.arrivals}, scope)
        _delete_orphans(tx, collection, old)
        mentioned = [row["entity_id"] for row in rows.mentions]
        refresh_bridges(tx, [*(old["entity_ids"] if old else []), *mentioned])
        existed, removed_chunks = (old["documents"], old["chunks"]) if old else (0, 0)
        counts = {
            "documents": len(ids) - existed,
            "chunks": len(rows.chunks) - removed_chunks,
            "collection": collection,
            "language_changes": language_changes(
                [row["properties"]["language"] for row in rows.documents],
                old["languages"] if old else [],
            ),
        }
        run_in(tx, Query.COUNT_COLLECTION, counts)
        return [local_id(id_) for id_ in upserted["without_embedding"]] if upserted else []

    return graph.write(work)


def _check_unchanged_since(
    tx: neo4j.ManagedTransaction, collection: str, expected: Mapping[str, str | None]
) -> None:
    """Raise ``Conflict`` when a document's content hash is no longer the one ``expected``."""
    keys = [scoped(collection, id_) for id_ in expected]
    rows = rows_in(tx, Query.EXISTING_HASHES, {"ids": keys})
    found = {local_id(row["id"]): row["content_hash"] or "" for row in rows}
    changed = sorted(id_ for id_, digest in expected.items() if found.get(id_) != digest)
    if changed:
        raise Conflict(
            f"{len(changed)} document(s) of collection {collection!r} changed while this write "
            f"was prepared ({', '.join(map(repr, changed[:3]))}): another write committed "
            "first; nothing of this batch was written, send it again to decide anew"
        )


def _count_in_fd_bins(
    tx: neo4j.ManagedTransaction, collection: str, ids: Sequence[str], sign: Literal[1, -1]
) -> None:
    """Count documents and their chunks into their FD* length bins (``sign`` 1), or take them
    out (-1): ``cypher/fd/count_documents.cypher``."""
    run_in(tx, Query.FD_COUNT_DOCUMENTS, {"ids": ids, "collection": collection, "sign": sign})


def delete_documents(graph: Graph, collection: str, ids: Sequence[str]) -> int:
    """Remove documents of ``collection``, their content and entities and index terms no one
    uses any more; links into them wait on a placeholder so they resolve again if the documents
    come back, and their FD* bins no longer count them. Returns the count."""
    keys = [scoped(collection, id_) for id_ in ids]

    def work(tx: neo4j.ManagedTransaction) -> int:
        # The lock of an existing collection only: deleting from one that is not there must
        # not create it (DELETE /documents/x?collection=typo listed 'typo' afterwards).
        lock = single_in(tx, Query.FD_LOCK_COLLECTION, {"collection": collection})
        if lock is None or not lock["found"]:
            return 0
        run_in(tx, Query.DETACH_INCOMING_LINKS, {"ids": keys})
        _count_in_fd_bins(tx, collection, keys, -1)
        old = single_in(tx, Query.DELETE_DOCUMENT_CONTENT, {"ids": keys})
        record = single_in(tx, Query.DELETE_DOCUMENTS, {"ids": keys, "collection": collection})
        _delete_orphans(tx, collection, old)
        refresh_bridges(tx, old["entity_ids"] if old else [])
        deleted = int(record["deleted"]) if record else 0
        removed_chunks = int(old["chunks"]) if old else 0
        counts = {
            "documents": -deleted,
            "chunks": -removed_chunks,
            "collection": collection,
            "language_changes": language_changes([], old["languages"] if old else []),
        }
        run_in(tx, Query.COUNT_COLLECTION, counts)
        return deleted

    return graph.write(work)


def language_changes(written: Sequence[str], removed: Sequence[str]) -> list[dict[str, Any]]:
    """``count_collection.cypher``'s ``$language_changes``: per language, the documents
    ``written`` in it less those ``removed`` (replaced or deleted) that were; none unchanged."""
    change = Counter(written)
    change.subtract(Counter(removed))
    return [{"language": code, "change": n} for code, n in sorted(change.items()) if n]


def lock_collection(
    tx: neo4j.ManagedTransaction, collection: str, model: str | None = None
) -> int | None:
    """Create ``collection`` if new, in the shard the fewest collections use, and take its write
    lock for the rest of ``tx`` (cypher/load/lock_collection.cypher). Returns its shard.

    Raises:
        ModelMismatch: the collection records another embedding model than ``model``.
    """
    free = single_in(tx, Query.FREE_SHARD, {"shards": SHARDS})
    shard = free["shard"] if free else 0
    parameters = {
        "collection": collection,
        "shard": shard,
        "model": model,
        "bridge_bound": BRIDGED_MENTIONS,
    }
    record = single_in(tx, Query.LOCK_COLLECTION, parameters)
    if model is not None and record is not None:
        check_model(collection, record["model"], model)
    return None if record is None or record["shard"] is None else int(record["shard"])


def recorded_model(graph: Graph, collection: str) -> str | None:
    """The embedding model ``collection`` records; None when it records none or does not
    exist (either is embedded with the configured model, docs/embeddings.md)."""
    record = graph.read(Query.COLLECTION_MODEL, {"collection": collection})
    return record[0]["model"] if record else None


def _run_rows(
    tx: neo4j.ManagedTransaction,
    query: Statement[object],
    rows: dict[str, Any],
    more: Mapping[str, Any] | None = None,
) -> None:
    """Run an ``UNWIND $rows`` statement with ``rows`` and ``more`` parameters, unless there
    are no rows (every one of ``rows`` empty): nothing to do then, and a round trip (and, on a
    fresh server, a query plan) saved."""
    if any(rows.values()):
        run_in(tx, query, {**rows, **(more or {})})


def _delete_orphans(
    tx: neo4j.ManagedTransaction, collection: str, old: DeletedContentRow | None
) -> None:
    """Remove what the deleted chunks (``delete_document_content.cypher``'s record) were the
    last to use: entities, link placeholders and the collection's index terms."""
    if old is None:
        return
    _run_rows(tx, Query.DELETE_ORPHAN_ENTITIES, {"entity_ids": old["entity_ids"]})
    _run_rows(tx, Query.DELETE_ORPHAN_PLACEHOLDERS, {"keys": old["placeholder_keys"]})
    _run_rows(
        tx, Query.DELETE_ORPHAN_TERMS, {"texts": old["term_texts"]}, {"collection": collection}
    )


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
# What each statement of cypher/load is sent, one TypedDict per row shape (the header comment of
# each file describes the same fields). Public so that a bulk loader (benchmarks/bulk_import.py)
# builds its CSV from exactly these rows and cannot drift from what ingestion writes. Every id in
# them is a key of the batch's collection (anchorgraph.scope.scoped).


class DocumentRow(TypedDict):
    """``upsert_documents.cypher``: ``properties`` are SET on the node (a None value leaves that
    property out); ``labels``: its language's (none for English); ``embedding`` is stored as
    float32."""

    id: str
    properties: dict[str, Any]
    labels: list[str]
    embedding: list[float]


class FolderRow(TypedDict):
    path: str  # relative to the collection, e.g. "climate/sensors"
    name: str
    parent: str  # "" for a folder at the collection's root


class FilingRow(TypedDict):
    """``file_documents.cypher``: the folders from the top down to the document's own (none at
    the collection's root), and its tags (MERGEd: repeats add nothing)."""

    id: str
    folder: str  # the document's folder, "" at the root
    folders: list[FolderRow]
    tags: list[str]


class ChunkRow(TypedDict):
    """``create_chunks.cypher``: ``single_terms`` and ``repeated_terms`` point into the batch's
    ``terms`` (``index_term_parameters``). ``n_claims`` and ``fd_raw`` are computed from the
    chunk's claims (the ``ClaimRow`` of the same batch)."""

    id: str
    document_id: str
    ordinal: int
    text: str
    start: int
    end: int
    n_tokens: int
    n_claims: int
    fd_raw: float  # Σ prob_fact of its claims / n_tokens
    heading_slugs: list[str]
    identifiers: list[str]
    pages: list[int]  # the page numbers it covers; empty for formats without pages
    ocr_confidence: float | None  # of its OCR-read pages; None (no property) when none
    labels: list[str]  # its language's (none for English)
    previous_id: str | None  # the chunk before it in the document; None for the first
    embedding: list[float]
    single_terms: list[int]
    repeated_terms: list[list[int]]  # [position, tf], tf > 1


class ClaimRow(TypedDict):
    """``create_claims.cypher``: one atomic claim of a chunk, ``(:Chunk)-[:ASSERTS]->(:Claim)``;
    ``start``/``end`` are offsets in the chunk text (-1 when unknown)."""

    id: str  # f"{chunk_id}#c{k}", k its order in the chunk
    chunk_id: str
    text: str
    prob_fact: float
    start: int
    end: int


class EntityRow(TypedDict):
    """``upsert_entities.cypher``: MERGEd on ``id``; the first row names and types it, every row
    adds its aliases, and ``embedding`` is stored only while the entity has none."""

    id: str
    name: str
    type: str
    aliases: list[str]
    alias_keys: list[str]  # normalised aliases other than the id: one (:Alias) node each
    embedding: list[float] | None


class MentionRow(TypedDict):
    chunk_id: str
    entity_id: str
    count: int


class TripleRow(TypedDict):
    subject_id: str
    object_id: str
    predicate: str
    text: str
    chunk_id: str
    document_id: str
    embedding: list[float]


class LinkRow(TypedDict):
    """``create_links.cypher``: ``target`` is the key of a document id (or of an outside URL),
    ``uri`` the target as written (a document may have it as its uri); ``context_embedding``
    the anchor context's embedding (stored as float32), or None."""

    chunk_id: str
    target: str
    uri: str
    fragment: str
    href: str
    anchor_text: str
    context: str
    context_embedding: list[float] | None


class ArrivalRow(TypedDict):
    """``resolve_unresolved.cypher``: links waiting on this key, or on the key of this uri,
    now point here."""

    id: str
    uri: str


@dataclass(frozen=True)
class GraphRows:
    """Every row ``write_documents`` sends for one batch, by the statement that receives it (the
    statements run in this order, after the batch's previous content is removed)."""

    documents: list[DocumentRow]  # upsert_documents $documents
    filings: list[FilingRow]  # file_documents $documents
    terms: list[str]  # create_chunks $terms: the batch's distinct index terms
    chunks: list[ChunkRow]  # create_chunks $chunks
    claims: list[ClaimRow]  # create_claims $claims
    entities: list[EntityRow]  # upsert_entities $entities
    mentions: list[MentionRow]  # create_mentions $mentions
    triples: list[TripleRow]  # create_triples $triples
    links: list[LinkRow]  # create_links $links
    arrivals: list[ArrivalRow]  # resolve_unresolved $documents

    @property
    def document_ids(self) -> list[str]:
        return [row["id"] for row in self.documents]


def graph_rows(
    collection: str,
    documents: Sequence[EmbeddedDocument],
    entities: Sequence[EntityRecord],
    entity_vectors: Vectors,
    embedded_entities: Sequence[EntityRecord] = (),
) -> GraphRows:
    """The rows of one ``write_documents`` call (same arguments), every id made a key of
    ``collection``."""

    def key(id_: str) -> str:
        return scoped(collection, id_)

    terms, chunks = _chunk_rows(collection, documents)
    return GraphRows(
        documents=[_document_row(collection, d) for d in documents],
        filings=[_filing_row(collection, d.source) for d in documents],
        terms=terms,
        chunks=chunks,
        claims=[row for d in documents for row in _claim_rows(collection, d)],
        entities=[
            _entity_row(collection, entity, vector.tolist())
            for entity, vector in zip(entities, entity_vectors, strict=True)
        ]
        + [_entity_row(collection, entity, None) for entity in embedded_entities],
        mentions=[
            MentionRow(chunk_id=key(m.chunk_id), entity_id=key(m.entity_id), count=m.count)
            for d in documents
            for m in d.mentions
        ],
        triples=[row for d in documents for row in _triple_rows(collection, d)],
        links=[row for d in documents for row in _link_rows(collection, d)],
        arrivals=[ArrivalRow(id=key(d.source.id), uri=d.source.uri) for d in documents],
    )


def _entity_row(collection: str, entity: EntityRecord, embedding: list[float] | None) -> EntityRow:
    return EntityRow(
        id=scoped(collection, entity.id),
        name=entity.name,
        type=entity.type,
        aliases=list(entity.aliases),
        alias_keys=sorted(scoped(collection, key) for key in alias_keys(entity.id, entity.aliases)),
        embedding=embedding,
    )


def _document_row(collection: str, document: EmbeddedDocument) -> DocumentRow:
    source = document.source
    claims = distinct_claims(document)
    properties: dict[str, Any] = {
        "collection": collection,
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
        "n_claims": len(claims),
        "fd_raw": fd_raw(claims.values(), document.n_tokens),
        "content_hash": document.content_hash,
        "size_bytes": source.size_bytes,
        "modified": source.modified,
        # What a sync compares with its file's listing before reading it (None: left out).
        "revision": source.revision or None,
        "identifiers": list(document.identifiers),
        # Paginated files only (None leaves the property out): how many pages, and how sure OCR
        # was of the pages it read.
        "n_pages": len(source.pages) or None,
        "ocr_confidence": source.ocr_confidence,
        # Resolved by the ingestor (declared or detected); "" only for rows built without one.
        "language": source.language or Language.ENGLISH.value,
    }
    # Caller metadata is kept under its own prefix so it can never overwrite our properties.
    properties.update({f"meta_{key}": value for key, value in source.metadata.items()})
    return DocumentRow(
        id=scoped(collection, source.id),
        properties=properties,
        labels=language_labels(source.language)[1],
        embedding=document.vector.tolist(),
    )


def distinct_claims(document: EmbeddedDocument) -> dict[str, float]:
    """The document's claims, once per distinct text (the first one's ``prob_fact``).

    Chunks overlap (~20 % of each chunk repeats the end of the one before it), so a sentence in
    the overlap is extracted from both chunks: summed per chunk, its claims would count twice in
    the document's FD_raw. A text met again is one claim, however many chunks assert it.
    """
    claims: dict[str, float] = {}
    for chunk_claims in _claims_per_chunk(document):
        for claim in chunk_claims:
            claims.setdefault(claim.text, claim.prob_fact)
    return claims


def _claims_per_chunk(document: EmbeddedDocument) -> Sequence[Sequence[Claim]]:
    """One list of claims per chunk (``chunk_claims``, or none when it is empty)."""
    if not document.chunk_claims:
        return [()] * len(document.chunks)
    if len(document.chunk_claims) != len(document.chunks):
        raise ValueError(
            f"{document.source.id}: {len(document.chunk_claims)} claim lists for "
            f"{len(document.chunks)} chunks"
        )
    return document.chunk_claims


def _claim_rows(collection: str, document: EmbeddedDocument) -> Iterable[ClaimRow]:
    for chunk, claims in zip(document.chunks, _claims_per_chunk(document), strict=True):
        chunk_key = scoped(collection, chunk.id)
        for k, claim in enumerate(claims):
            yield ClaimRow(
                id=f"{chunk_key}#c{k}",
                chunk_id=chunk_key,
                text=claim.text,
                prob_fact=claim.prob_fact,
                start=claim.start,
                end=claim.end,
            )


def _filing_row(collection: str, source: SourceDocument) -> FilingRow:
    parts = [part for part in source.folder.split("/") if part]
    folders = [
        FolderRow(
            path=posixpath.join(*parts[:depth]),
            name=parts[depth - 1],
            parent=posixpath.join(*parts[: depth - 1]) if depth > 1 else "",
        )
        for depth in range(1, len(parts) + 1)
    ]
    return FilingRow(
        id=scoped(collection, source.id),
        folder="/".join(parts),
        folders=folders,
        tags=list(source.tags),
    )


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


def _chunk_rows(
    collection: str, documents: Sequence[EmbeddedDocument]
) -> tuple[list[str], list[ChunkRow]]:
    """The batch's distinct index terms and one row per chunk, documents in order."""
    terms, postings = index_term_parameters([t for d in documents for t in d.chunk_terms])
    labels = {d.source.id: language_labels(d.source.language)[0] for d in documents}
    rows = [
        ChunkRow(
            id=scoped(collection, chunk.id),
            document_id=scoped(collection, chunk.document_id),
            ordinal=chunk.ordinal,
            text=chunk.text,
            start=chunk.start,
            end=chunk.end,
            n_tokens=chunk.n_tokens,
            n_claims=len(claims),
            fd_raw=fd_raw((claim.prob_fact for claim in claims), chunk.n_tokens),
            heading_slugs=list(chunk.heading_slugs),
            identifiers=list(identifiers),
            pages=list(chunk.pages),
            ocr_confidence=chunk.ocr_confidence,
            labels=labels[chunk.document_id],
            previous_id=None if previous is None else scoped(collection, previous),
            embedding=vector.tolist(),
            single_terms=chunk_postings["single_terms"],
            repeated_terms=chunk_postings["repeated_terms"],
        )
        for (chunk, identifiers, vector, previous, claims), chunk_postings in zip(
            _chunks_in_order(documents), postings, strict=True
        )
    ]
    return terms, rows


def _chunks_in_order(
    documents: Sequence[EmbeddedDocument],
) -> Iterator[tuple[Chunk, tuple[str, ...], Vectors, str | None, Sequence[Claim]]]:
    """Each chunk with its identifiers, its vector, the id of the chunk before it and its
    claims."""
    for document in documents:
        previous: str | None = None
        for chunk, identifiers, vector, claims in zip(
            document.chunks,
            document.chunk_identifiers,
            document.chunk_vectors,
            _claims_per_chunk(document),
            strict=True,
        ):
            yield chunk, identifiers, vector, previous, claims
            previous = chunk.id


def _triple_rows(collection: str, document: EmbeddedDocument) -> Iterable[TripleRow]:
    for triple, vector in zip(document.triples, document.triple_vectors, strict=True):
        yield TripleRow(
            subject_id=scoped(collection, triple.subject_id),
            object_id=scoped(collection, triple.object_id),
            predicate=triple.predicate,
            text=triple.text,
            chunk_id=scoped(collection, triple.chunk_id),
            document_id=scoped(collection, document.source.id),
            embedding=vector.tolist(),
        )


def _link_rows(collection: str, document: EmbeddedDocument) -> Iterable[LinkRow]:
    links = [(chunk, link) for chunk in document.chunks for link in chunk.links]
    vectors = document.link_vectors
    if vectors is not None and len(vectors) != len(links):
        raise ValueError(f"{document.source.id}: {len(vectors)} link vectors, {len(links)} links")
    for at, (chunk, link) in enumerate(links):
        yield LinkRow(
            chunk_id=scoped(collection, chunk.id),
            target=scoped(collection, link.target_document),
            uri=link.target_document,
            fragment=link.fragment,
            href=link.href,
            anchor_text=link.anchor_text,
            context=link.context,
            context_embedding=None if vectors is None else vectors[at].tolist(),
        )
