"""Ingestion: documents in, graph out. read → chunk → entities, triples and claims → embed →
write.

The steps are the modules beside this one; this module only strings them together in batches,
skips documents whose content hash the graph already holds, refuses to replace a document that
came from somewhere else unless asked to, and keeps time per stage so that the benchmark
(``benchmarks/ingest.py``) and the CLI summary can say where the time went.

Every ingest writes into one collection (``anchorgraph.scope``; ``default`` unless named), and ids
are unique within it: the same ``README.md`` in two collections is two documents.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import logging
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from enum import StrEnum
from itertools import islice

import numpy as np

from anchorgraph.embedding import Embedder, Vectors, check_model
from anchorgraph.errors import DeadlineExceeded
from anchorgraph.factual_density import FdLevel
from anchorgraph.graph.deadline import paused, propagating
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.queries import Query
from anchorgraph.loaders.chunking import PAGED_CHUNKING, chunk_document
from anchorgraph.loaders.claims import Claim, ClaimExtractor, RuleClaimExtractor
from anchorgraph.loaders.entities import EntityExtractor
from anchorgraph.loaders.fd_stats import DEFAULT_REFIT_SHARE, Bounds, refit_if_drifted
from anchorgraph.loaders.formats import FORMAT_NAMES
from anchorgraph.loaders.graph_writer import (
    EmbeddedDocument,
    EntityRecord,
    Stored,
    delete_documents,
    embedded_entity_ids,
    existing_documents,
    merge_entities,
    recorded_model,
    write_documents,
)
from anchorgraph.loaders.model import Chunk, EntityMention, SourceDocument, Triple
from anchorgraph.loaders.source_types import classify_study_design
from anchorgraph.loaders.sources import uri_path
from anchorgraph.scope import DEFAULT_COLLECTION, collection_name, document_id
from anchorgraph.settings import Settings
from anchorgraph.text.identifiers import find_identifiers
from anchorgraph.text.language import Language, detect_language, language_of
from anchorgraph.text.terms import index_terms

log = logging.getLogger(__name__)

# Bumped when what ingestion writes changes, so that re-ingesting rewrites older graphs.
# 2: chunks carry their TF-IDF index terms; 3: documents their text; 4: entities' alias keys;
# 5: chunks assert their atomic claims; chunks and documents carry fd_raw; 6: FD* length bins;
# 7: links carry their anchor context's embedding.
PIPELINE_VERSION = "7"


class Refused(StrEnum):
    """Why a document was not written (``Refusal.reason``)."""

    # Its id is held by a document from another origin (uri), or by one given without a uri:
    # writing it would replace that document unseen.
    OTHER_ORIGIN = "other-origin"
    # Its file is held under another id (read from a folder above or below this one): writing it
    # again would keep it twice.
    STORED_AS = "stored-as"
    # A precondition of the write (``Precondition``: If-Match, If-None-Match) does not hold.
    PRECONDITION = "precondition"


@dataclass(frozen=True)
class Refusal:
    """A document not written because it would have replaced, unseen, one that came from
    somewhere else (``replace``, or an ``If-Match`` naming the stored one's ETag, allows it), or
    because a precondition of the write failed."""

    id: str
    uri: str  # where the refused document came from ("" when given without one)
    stored_uri: str  # where the document in the graph came from
    stored_id: str = ""  # with STORED_AS: the id the graph holds the same file under
    reason: Refused = Refused.OTHER_ORIGIN
    stored_etag: str = ""  # the ETag (content hash) of the document in the graph, if any
    detail: str = ""  # with PRECONDITION: which condition failed

    def message(self, collection: str) -> str:
        if self.reason is Refused.PRECONDITION:
            return f"{self.id!r} in collection {collection!r}: {self.detail}"
        if self.reason is Refused.STORED_AS:
            return (
                f"{self.id!r}: its file {self.uri} is in collection {collection!r} already, as "
                f"{self.stored_id!r} (read from another folder); sync that folder, or delete "
                f"{self.stored_id!r} first"
            )
        return (
            f"{self.id!r} in collection {collection!r} came from {_origin(self.stored_uri)}; "
            f"{_origin(self.uri)} has the same id and would replace it"
        )


def _origin(uri: str) -> str:
    return uri or "a request without a uri"


@dataclass(frozen=True)
class Precondition:
    """The conditions of RFC 9110 §13.1.1–2 on writing one document, over its ETag (its content
    hash, as stored): ``if_match`` the ETags of the versions the caller means to replace (``*``:
    whichever is stored; the document must exist), ``if_none_match`` the ETags it must not
    replace (``*``: create only). A write whose ``if_match`` holds may replace a document of
    any origin: the caller has seen what it replaces."""

    if_match: tuple[str, ...] | None = None
    if_none_match: tuple[str, ...] | None = None

    def failure(self, stored_etag: str | None) -> str | None:
        """Why the write may not go ahead over ``stored_etag`` (None: nothing stored), or None
        when it may (If-Match is evaluated first, as §13.2.2 orders)."""
        if self.if_match is not None:
            if not self.if_match:
                return (
                    'If-Match names no version: it takes * or quoted entity tags ("9f2c4e1a", '
                    "as the ETag header gives them)"
                )
            if stored_etag is None:
                return "If-Match names a version, but there is no such document"
            if "*" not in self.if_match and stored_etag not in self.if_match:
                return f'If-Match names another version: the stored one\'s ETag is "{stored_etag}"'
        if self.if_none_match is not None and stored_etag is not None:
            if "*" in self.if_none_match:
                return "If-None-Match: * creates only, and the document exists"
            if stored_etag in self.if_none_match:
                return f'If-None-Match names the stored version, "{stored_etag}"'
        return None


class Decision(StrEnum):
    """What an ingest does with a document it may write (``write_decision``)."""

    WRITE = "write"
    UNCHANGED = "unchanged"  # the graph holds exactly this


def write_decision(
    document: SourceDocument,
    etag: str,
    stored: Stored | None,
    *,
    replace: bool = False,
    precondition: Precondition | None = None,
    stored_as: str = "",
) -> Decision | Refusal:
    """Whether ``document`` (its content hash ``etag``) is written over ``stored``, what the
    collection holds under its id. In order:

    1. a ``precondition`` that fails refuses it, unless the graph already holds exactly this
       (an If-Match retried after it succeeded);
    2. the same content is unchanged;
    3. a stored document is replaced by one from its own file or URL (the same non-empty
       ``uri``), or with ``replace``, or by a write whose If-Match held; any other is refused
       (``Refused.OTHER_ORIGIN``): a request without a uri never replaces one unseen;
    4. a new id whose file the collection holds under another (``stored_as``) is refused
       (``Refused.STORED_AS``) unless ``replace``.
    """
    stored_etag = stored.content_hash if stored is not None else None
    seen = precondition is not None and precondition.if_match is not None
    failure = precondition.failure(stored_etag) if precondition is not None else None
    if failure is not None and not (seen and stored_etag == etag):
        return Refusal(
            document.id,
            document.uri,
            stored.uri if stored is not None else "",
            reason=Refused.PRECONDITION,
            stored_etag=stored_etag or "",
            detail=failure,
        )
    if stored is None:
        if stored_as and not replace:
            return Refusal(
                document.id, document.uri, document.uri, stored_as, reason=Refused.STORED_AS
            )
        return Decision.WRITE
    if stored.content_hash == etag:
        return Decision.UNCHANGED
    if replace or seen or (document.uri and stored.uri == document.uri):
        return Decision.WRITE
    return Refusal(document.id, document.uri, stored.uri, stored_etag=stored.content_hash)


def named_by_its_path(id_: str, uri: str) -> bool:
    """Whether ``id_`` is the path of the file at ``uri`` below some folder: a file that is one
    document, read as ingest reads a folder. A record of a JSON Lines file, which shares the
    file's uri with the others, is not: its uri cannot tell it moved."""
    return bool(uri) and uri_path(uri).endswith("/" + id_)


@dataclass
class IngestStats:
    """What an ingest did, and the seconds each stage took."""

    collection: str = DEFAULT_COLLECTION
    documents: int = 0  # documents read
    written: int = 0  # now in the graph: new, or replacing an earlier version
    replaced: int = 0  # of those written, how many replaced one (changed, or with replace)
    unchanged: int = 0  # skipped: same content hash as in the graph
    refused: list[Refusal] = field(default_factory=list)  # another origin's, kept
    moved: int = 0  # files written under a new id (``replace``): their old ids deleted
    chunks: int = 0
    mentions: int = 0
    triples: int = 0
    claims: int = 0  # (:Claim) nodes: per chunk, so a sentence in two chunks counts twice
    links: int = 0
    refitted: bool = False  # the FD* length bins were fitted again afterwards (fd_stats)
    parse_s: float = 0.0  # chunking, entities, triples, claims, identifiers, index terms
    embed_s: float = 0.0  # the model: chunks, triples, entity names
    write_s: float = 0.0  # Neo4j transactions (in the writer thread, overlapping the above)
    write_wait_s: float = 0.0  # waiting for the writer: the part of write_s not overlapped
    seconds: float = 0.0  # end to end (less than the sum of the stages when they overlap)
    # (chunks, write seconds) of each batch written, in order: on a fresh server the first
    # batch also pays for planning every statement.
    batch_writes: list[tuple[int, float]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def add(self, part: IngestStats) -> None:
        """Count ``part``, what one stage of an ingest did with some of the documents, into
        these stats: counts and seconds summed, lists joined (a Ray cluster's stages report
        so: anchorgraph.distributed)."""
        for name, mine in vars(self).items():
            theirs = getattr(part, name)
            if isinstance(mine, bool):
                setattr(self, name, mine or theirs)
            elif isinstance(mine, int | float | list):
                setattr(self, name, mine + theirs)


ProgressCallback = Callable[[IngestStats], None]


# A document to write, its content hash and its chunks.
_Chunked = tuple[SourceDocument, str, list[Chunk]]


@dataclass(frozen=True)
class Parsed:
    """A document to write, chunked and read for entities, triples and claims: all but the
    model's vectors (``Ingestor.parse``)."""

    source: SourceDocument
    content_hash: str
    n_tokens: int
    identifiers: tuple[str, ...]
    chunks: list[Chunk]
    chunk_identifiers: list[tuple[str, ...]]
    chunk_terms: list[Counter[str]]
    chunk_claims: list[list[Claim]]
    mentions: list[EntityMention]
    triples: list[Triple]


@dataclass(frozen=True)
class Decided:
    """What becomes of the documents of a batch (``Ingestor.decide``)."""

    n_documents: int  # the batch's documents, duplicates included
    n_unchanged: int  # the graph holds them exactly so: skipped
    warnings: list[str]
    todo: list[tuple[SourceDocument, str]]  # to write (as written), with their content hash
    replacing: frozenset[str] = frozenset()  # ids of those that replace one in the graph
    refused: tuple[Refusal, ...] = ()
    # id → the content hash the graph held when the batch was decided on (None: none): what
    # the write checks again under the collection's lock.
    expected: Mapping[str, str | None] = field(default_factory=dict)
    moved: tuple[str, ...] = ()  # old ids of files written under new ones, deleted after

    def count_into(self, stats: IngestStats) -> None:
        stats.documents += self.n_documents
        stats.unchanged += self.n_unchanged
        stats.warnings += self.warnings
        stats.refused += self.refused


@dataclass(frozen=True)
class Prepared:
    """A batch ready to write (``Ingestor.prepared``), and what it adds to the stats once
    written."""

    decided: Decided
    documents: list[EmbeddedDocument]
    entities: list[EntityRecord]  # to be written with the embeddings of their names ...
    entity_vectors: Vectors  # ... these, row for row
    embedded_entities: list[EntityRecord]  # already embedded in the graph: written without

    @property
    def stored(self) -> dict[str, Stored]:
        """What the graph holds of the batch's documents once it is written."""
        return {d.source.id: Stored(d.content_hash, d.source.uri) for d in self.documents}

    @property
    def entity_ids(self) -> set[str]:
        """Every entity the batch mentions: each has an embedding once the batch committed."""
        return {e.id for e in self.entities} | {e.id for e in self.embedded_entities}

    def count_into(self, stats: IngestStats) -> None:
        self.decided.count_into(stats)
        stats.written += len(self.documents)
        stats.replaced += sum(d.source.id in self.decided.replacing for d in self.documents)
        stats.moved += len(self.decided.moved)
        stats.chunks += sum(len(d.chunks) for d in self.documents)
        stats.mentions += sum(len(d.mentions) for d in self.documents)
        stats.triples += sum(len(d.triples) for d in self.documents)
        stats.claims += sum(len(c) for d in self.documents for c in d.chunk_claims)
        stats.links += sum(len(c.links) for d in self.documents for c in d.chunks)


@dataclass(frozen=True)
class _Pending:
    """A batch whose write was handed to the writer thread."""

    prepared: Prepared
    write: Future[tuple[float, list[str]]]


class Ingestor:
    """Writes documents into the graph with a given model, entity extractor and claim extractor
    (``claims``: the rules of ``RuleClaimExtractor`` unless another is given).

    ``classify_sources``: a document whose source type is only its format's name (or empty) gets
    its study design instead (``anchorgraph.loaders.source_types``: systematic_review, rct or
    other), the tier FD*'s source authority is looked up by; a source type the caller gave is kept.
    After each ingest or delete the FD* length bins are fitted again when the corpus drifted by
    more than ``fd_refit_share`` (``anchorgraph.loaders.fd_stats``), with ``fd_bounds`` where
    configured.
    """

    def __init__(
        self,
        graph: Graph,
        embedder: Embedder,
        extractor: EntityExtractor,
        *,
        chunk_tokens: int = 200,
        chunk_overlap: float = 0.2,
        batch_size: int = 64,
        claims: ClaimExtractor | None = None,
        classify_sources: bool = False,
        fd_refit_share: float = DEFAULT_REFIT_SHARE,
        fd_bounds: Mapping[FdLevel, Bounds | None] | None = None,
        on_change: Callable[[], None] | None = None,
    ) -> None:
        self.graph = graph
        # Called after every ingest and delete: a search context of the same process forgets
        # the collections and sizes it keeps for a few seconds, so that what was just written
        # is searched at once (anchorgraph.retrieval.collections).
        self.on_change = on_change
        self.embedder = embedder
        self.extractor = extractor
        self.claims: ClaimExtractor = claims if claims is not None else RuleClaimExtractor()
        self.chunk_tokens = chunk_tokens
        self.chunk_overlap = chunk_overlap
        self.batch_size = batch_size
        self.classify_sources = classify_sources
        self.fd_refit_share = fd_refit_share
        self.fd_bounds = dict(fd_bounds or {})
        # Part of every content hash: a new model, chunking or extractor (entities or claims)
        # makes every document "changed".
        self._signature = json.dumps(
            [
                PIPELINE_VERSION,
                embedder.name,
                chunk_tokens,
                chunk_overlap,
                extractor.signature,
                self.claims.signature,
                classify_sources,
            ]
        )

    def rehearsing(self) -> Ingestor:
        """This ingestor with every write rolled back and no one told of changes: an ingest
        runs all of its work (the model, spaCy, each statement planned by Neo4j) and leaves
        the graph as it was (the API's warm start)."""
        rehearsing = copy.copy(self)
        rehearsing.graph, rehearsing.on_change = self.graph.rehearsal(), None
        return rehearsing

    @classmethod
    def configured(
        cls,
        settings: Settings,
        graph: Graph,
        embedder: Embedder,
        extractor: EntityExtractor,
        *,
        batch_size: int = 64,
        claims: ClaimExtractor | None = None,
        on_change: Callable[[], None] | None = None,
    ) -> Ingestor:
        """An ingestor configured as ``settings`` say: chunking (``chunk_tokens``,
        ``chunk_overlap``), study designs (``classify_source_types``) and FD* bins
        (``fd_refit_share``, ``fd_chunk_bounds``, ``fd_document_bounds``)."""
        return cls(
            graph,
            embedder,
            extractor,
            chunk_tokens=settings.chunk_tokens,
            chunk_overlap=settings.chunk_overlap,
            batch_size=batch_size,
            claims=claims,
            classify_sources=settings.classify_source_types,
            fd_refit_share=settings.fd_refit_share,
            fd_bounds={
                FdLevel.CHUNK: settings.fd_chunk_bounds,
                FdLevel.DOCUMENT: settings.fd_document_bounds,
            },
            on_change=on_change,
        )

    def ingest(
        self,
        documents: Iterable[SourceDocument],
        on_progress: ProgressCallback | None = None,
        *,
        collection: str = DEFAULT_COLLECTION,
        replace: bool = False,
        language: Language | None = None,
        preconditions: Mapping[str, Precondition] | None = None,
    ) -> IngestStats:
        """Write every new or changed document into ``collection``; each batch is one
        transaction.

        A document's language (``document_language``) is its own declaration, else
        ``language``, else detected.

        Nothing is replaced unseen (``write_decision``): a changed document replaces the stored
        one of its id only when both came from the same file or URL (``uri``); one whose id the
        collection holds from another origin, or from a request without a uri, is not written
        but listed in ``refused``, unless ``replace`` says to replace it or its
        ``preconditions`` entry (by id) names the stored version's ETag. A file the collection
        holds under another id (read before from a folder above or below) is refused too; with
        ``replace`` it moves: written under its new id, the old one deleted. What each batch
        decided on is checked again under the collection's write lock, so a write that
        committed in between makes the batch fail with ``Conflict``, not replace it unseen.

        Batches are written in order by one writer thread while the main thread parses and
        embeds the next batch, so the Neo4j write overlaps the model instead of adding to it.
        A batch is written only after the one before it committed. When anything fails, the
        write under way is let finish (it commits or fails whole; what it committed is counted,
        and ``on_progress`` told) and no later batch is written; the error is then raised, as
        it would be without the overlap.

        Raises:
            InvalidInput: ``collection`` is not a valid collection name, or a document's id is
                not a document id (``anchorgraph.scope.document_id``; nothing of its batch is
                written).
            Conflict: another write changed a document of a batch while it was prepared.
            ModelMismatch: the collection was embedded with another model (nothing written).
        """
        collection = collection_name(collection)
        conditions = dict(preconditions or {})
        # Before any work: the write itself refuses another model too (graph_writer).
        check_model(collection, recorded_model(self.graph, collection), self.embedder.name)
        stats = IngestStats(collection=collection)
        started = time.perf_counter()

        def finish(pending: _Pending) -> None:
            clock = time.perf_counter()
            seconds, without_embedding = pending.write.result()
            stats.write_s += seconds
            stats.write_wait_s += time.perf_counter() - clock
            pending.prepared.count_into(stats)
            if pending.prepared.documents:
                chunks = sum(len(d.chunks) for d in pending.prepared.documents)
                stats.batch_writes.append((chunks, seconds))
            if without_embedding:
                stats.warnings.append(
                    f"{len(without_embedding)} entities written without an embedding (removed"
                    " while the batch was prepared); they get one when next ingested"
                )
            stats.seconds = time.perf_counter() - started
            if on_progress is not None:
                on_progress(stats)

        with (
            ThreadPoolExecutor(max_workers=1, thread_name_prefix="anchorgraph-write") as writer,
            ThreadPoolExecutor(max_workers=1, thread_name_prefix="anchorgraph-nlp") as nlp,
        ):
            pending: _Pending | None = None
            try:
                for batch in _batches(documents, self.batch_size):
                    in_flight = pending.prepared if pending else None
                    prepared = self._prepare(
                        batch,
                        stats,
                        in_flight,
                        nlp,
                        replace=replace,
                        language=language,
                        preconditions=conditions,
                    )
                    if pending is not None:
                        written, pending = pending, None
                        finish(written)
                    write = propagating(self.write)  # within the caller's deadline, if any
                    pending = _Pending(prepared, writer.submit(write, collection, prepared))
            except Exception:
                # Reading or preparing the next batch failed while this one was written: it
                # commits or fails whole, and what it committed is counted and reported (an
                # ingest job's progress) before the error goes on, its own failure aside.
                if pending is not None:
                    with contextlib.suppress(Exception):
                        finish(pending)
                raise
            if pending is not None:
                finish(pending)
        # Also when nothing was written: an earlier run may have ended before its refit.
        stats.refitted = self.refit_if_drifted(collection)
        stats.seconds = time.perf_counter() - started
        if stats.written and self.on_change is not None:
            self.on_change()
        return stats

    def delete(self, ids: Sequence[str], *, collection: str = DEFAULT_COLLECTION) -> int:
        """Remove documents of ``collection`` by id; returns how many existed."""
        deleted = delete_documents(self.graph, collection_name(collection), ids)
        if deleted:
            self.refit_if_drifted(collection)
            if self.on_change is not None:
                self.on_change()
        return deleted

    def refit_if_drifted(self, collection: str = DEFAULT_COLLECTION) -> bool:
        """Fit the collection's FD* length bins again if it drifted
        (``fd_stats.refit_if_drifted``). A refit a request's deadline cuts is left to the next
        write: the documents it follows are committed, and stay so."""
        try:
            return refit_if_drifted(self.graph, collection, self.fd_refit_share, self.fd_bounds)
        except DeadlineExceeded:
            log.warning("FD* length bins of %r not refitted within the deadline", collection)
            return False

    def as_written(
        self, document: SourceDocument, language: Language | None = None
    ) -> SourceDocument:
        """``document`` as an ingest writes and hashes it: its study design as source type
        (when asked for), its language resolved (``document_language``)."""
        return document_language(self._with_source_type(document), language)

    def etag(self, document: SourceDocument, language: Language | None = None) -> str:
        """The ETag ``document`` has once written: the content hash of it as written."""
        return self.content_hash(self.as_written(document, language))

    def content_hash(self, document: SourceDocument) -> str:
        """SHA-256 over everything the graph stores of a document, and the pipeline signature."""
        content: list[object] = [
            self._signature,
            document.text,
            document.title,
            document.uri,
            document.source,
            document.source_type,
            document.folder,
            sorted(document.tags),
            sorted(document.metadata.items()),
            # Links a caller or the title linker added are content too.
            [(link.href, link.start, link.end) for link in document.links],
        ]
        if document.pages:  # only then: the hashes of documents without pages stay as they were
            pages = [(p.number, p.start, p.ocr_confidence) for p in document.pages]
            content.append([PAGED_CHUNKING, pages])
        if document.language not in ("", Language.ENGLISH):  # the same: English ones stay
            content += [document.language, self.claims.signature_for(document.language)]
        payload = json.dumps(content, ensure_ascii=False)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    # --- stages -------------------------------------------------------------------------------
    # The per-document stages, each a method that the in-process ingest below strings together
    # in batches (the model's work overlapping spaCy's and the previous batch's write) and that
    # a Ray cluster runs as stages of their own (anchorgraph.distributed): decide, parse,
    # embed, then write.

    def decide(
        self,
        batch: Sequence[SourceDocument],
        collection: str,
        *,
        replace: bool,
        language: Language | None = None,
        in_flight: Prepared | None = None,
        preconditions: Mapping[str, Precondition] | None = None,
    ) -> Decided:
        """What becomes of each document of ``batch`` in ``collection`` (as written: its
        language resolved), by its content hash against what the graph holds and its
        ``preconditions`` (by id): written, unchanged, or refused (``write_decision``).
        ``in_flight`` is a batch being written right now: it commits before this one is
        written, so its documents count as in the graph.

        Raises:
            InvalidInput: a document's id is not a document id.
        """
        for document in batch:
            document_id(document.id)
        conditions = preconditions or {}
        # The last of several documents with one id wins, as it would across batches.
        by_id = {document.id: self.as_written(document, language) for document in batch}
        warnings = [
            f"{document.id}: {problem}; read as {by_id[document.id].language}"
            for document in batch
            if (problem := own_language(document)[1])
        ]
        if len(by_id) < len(batch):
            warnings.append(f"{len(batch) - len(by_id)} duplicate id(s) in one batch")
        known = existing_documents(self.graph, collection, list(by_id))
        if in_flight is not None:
            known.update((id_, s) for id_, s in in_flight.stored.items() if id_ in by_id)
        stored_as = self._stored_as(collection, [d for d in by_id.values() if d.id not in known])
        todo: list[tuple[SourceDocument, str]] = []
        refused: list[Refusal] = []
        moved: list[str] = []
        for document in by_id.values():
            digest = self.content_hash(document)
            stored = known.get(document.id)
            other_id = stored_as.get(document.uri, "") if stored is None else ""
            decision = write_decision(
                document,
                digest,
                stored,
                replace=replace,
                precondition=conditions.get(document.id),
                stored_as="" if other_id in by_id else other_id,
            )
            if isinstance(decision, Refusal):
                refused.append(decision)
            elif decision is Decision.WRITE:
                todo.append((document, digest))
                moved += [other_id] if other_id and other_id not in by_id else []
        return Decided(
            n_documents=len(batch),
            n_unchanged=len(by_id) - len(todo) - len(refused),
            warnings=warnings,
            todo=todo,
            replacing=frozenset(document.id for document, _ in todo if document.id in known),
            refused=tuple(refused),
            expected={
                document.id: stored.content_hash if (stored := known.get(document.id)) else None
                for document, _ in todo
            },
            moved=tuple(moved),
        )

    def _stored_as(self, collection: str, new: list[SourceDocument]) -> dict[str, str]:
        """uri → the id the collection holds it under, for those of the ``new`` documents (ids
        the collection does not hold) that are files named by their path: the same file read
        before from a folder above or below this one."""
        uris = [document.uri for document in new if named_by_its_path(document.id, document.uri)]
        if not uris:
            return {}
        rows = self.graph.read(Query.DOCUMENTS_AT_URIS, {"collection": collection, "uris": uris})
        return {
            str(row["uri"]): str(row["id"])
            for row in rows
            if named_by_its_path(str(row["id"]), str(row["uri"]))
        }

    def parse(self, todo: Sequence[tuple[SourceDocument, str]]) -> list[Parsed]:
        """Chunk the documents to write (``decide``'s ``todo``) and find their entities,
        triples, claims, identifiers and index terms: everything but the model's vectors."""
        chunked = self._chunk(todo)
        return self._parse(
            chunked, *self.extractor.extract([c for _, _, cs in chunked for c in cs])
        )

    def embed(self, parsed: Sequence[Parsed]) -> list[EmbeddedDocument]:
        """The model's vectors of parsed documents: chunks, triples, links' anchor contexts
        and the document."""
        return self._embed(parsed, self._vectors([c.text for p in parsed for c in p.chunks]))

    def prepared(
        self,
        decided: Decided,
        embedded: Sequence[EmbeddedDocument],
        collection: str,
        in_flight: Prepared | None = None,
    ) -> Prepared:
        """A decided and embedded batch made ready to write: its entities merged, and the
        names of those without an embedding in the graph by the time it is written (new ones,
        mostly; ``in_flight``'s count as written) embedded."""
        entities = merge_entities(embedded)
        has_embedding = self._embedded_entities(collection, entities, in_flight)
        to_embed = [entity for entity in entities if entity.id not in has_embedding]
        with paused():
            entity_vectors = self._vectors([entity.name for entity in to_embed])
        return Prepared(
            decided,
            list(embedded),
            to_embed,
            entity_vectors,
            [entity for entity in entities if entity.id in has_embedding],
        )

    def write(self, collection: str, prepared: Prepared) -> tuple[float, list[str]]:
        """Write one prepared batch in one transaction; returns the seconds it took and the
        ids of entities left without an embedding (normally none)."""
        clock = time.perf_counter()
        without_embedding = write_documents(
            self.graph,
            collection,
            prepared.documents,
            prepared.entities,
            prepared.entity_vectors,
            prepared.embedded_entities,
            expected=prepared.decided.expected,
            model=self.embedder.name,
        )
        if prepared.decided.moved:  # written under their new ids: the old ones go
            delete_documents(self.graph, collection, prepared.decided.moved)
        return time.perf_counter() - clock, without_embedding

    def _prepare(
        self,
        batch: list[SourceDocument],
        stats: IngestStats,
        in_flight: Prepared | None,
        nlp: ThreadPoolExecutor,
        *,
        replace: bool,
        language: Language | None = None,
        preconditions: Mapping[str, Precondition],
    ) -> Prepared:
        """Decide, parse and embed a batch: everything but the write (timed into ``stats``).

        ``in_flight`` is the batch being written right now (``decide``, ``prepared``).
        """
        collection = stats.collection
        decided = self.decide(
            batch,
            collection,
            replace=replace,
            language=language,
            in_flight=in_flight,
            preconditions=preconditions,
        )
        if not decided.todo:
            return Prepared(decided, [], [], _no_vectors(self), [])

        # Entities and triples (spaCy) are extracted in the nlp thread while this thread embeds
        # the chunks: on two cores the pipeline then costs little more than the model alone.
        # Chunking stays here: it uses the model's tokenizer, which must not run in two threads.
        # Chunking, parsing and embedding wait on no one but the CPU: a request's deadline
        # does not count them (service/graph/deadline.py).
        with paused():
            clock = time.perf_counter()
            chunked = self._chunk(decided.todo)
            extracted = nlp.submit(self.extractor.extract, [c for _, _, cs in chunked for c in cs])
            stats.parse_s += time.perf_counter() - clock

            clock = time.perf_counter()
            chunk_vectors = self._vectors([c.text for _, _, cs in chunked for c in cs])
            stats.embed_s += time.perf_counter() - clock

            clock = time.perf_counter()
            parsed = self._parse(chunked, *extracted.result())
            stats.parse_s += time.perf_counter() - clock

            clock = time.perf_counter()
            embedded = self._embed(parsed, chunk_vectors)
            stats.embed_s += time.perf_counter() - clock
        clock = time.perf_counter()
        prepared = self.prepared(decided, embedded, collection, in_flight)
        stats.embed_s += time.perf_counter() - clock
        return prepared

    def _with_source_type(self, document: SourceDocument) -> SourceDocument:
        """The document with its study design as source type, when asked for and it has none
        but its format's name."""
        if not self.classify_sources or document.source_type not in ("", *FORMAT_NAMES):
            return document
        design = classify_study_design(document.title, document.text)
        return replace(document, source_type=str(design))

    def _embedded_entities(
        self, collection: str, entities: list[EntityRecord], in_flight: Prepared | None
    ) -> set[str]:
        """Ids of those entities that will have an embedding when this batch is written."""
        in_flight_entities = in_flight.entity_ids if in_flight is not None else set()
        in_flight_documents = list(in_flight.stored) if in_flight is not None else []
        in_graph = embedded_entity_ids(
            self.graph,
            collection,
            [entity.id for entity in entities if entity.id not in in_flight_entities],
            replacing=in_flight_documents,
        )
        return in_graph | {entity.id for entity in entities if entity.id in in_flight_entities}

    def _chunk(self, todo: Sequence[tuple[SourceDocument, str]]) -> list[_Chunked]:
        return [
            (
                document,
                digest,
                chunk_document(
                    document,
                    self.embedder.count_tokens,
                    target_tokens=self.chunk_tokens,
                    overlap=self.chunk_overlap,
                ),
            )
            for document, digest in todo
        ]

    def _parse(
        self, chunked: list[_Chunked], mentions: list[EntityMention], triples: list[Triple]
    ) -> list[Parsed]:
        # One call for the batch's chunks, in order: an LLM extractor batches its requests.
        # Each chunk read by the claim rules of its document's language.
        claims = self.claims.extract(
            [c.text for _, _, chunks in chunked for c in chunks],
            [document.language for document, _, chunks in chunked for _ in chunks],
        )
        total = sum(len(chunks) for _, _, chunks in chunked)
        if len(claims) != total:
            raise ValueError(f"claim extractor gave {len(claims)} lists for {total} chunks")
        claims_at = 0
        owner = {chunk.id: chunk.document_id for _, _, chunks in chunked for chunk in chunks}
        mentions_of: dict[str, list[EntityMention]] = defaultdict(list)
        for mention in mentions:
            mentions_of[owner[mention.chunk_id]].append(mention)
        triples_of: dict[str, list[Triple]] = defaultdict(list)
        for triple in triples:
            triples_of[owner[triple.chunk_id]].append(triple)
        parsed: list[Parsed] = []
        for document, digest, chunks in chunked:
            own_claims = claims[claims_at : claims_at + len(chunks)]
            claims_at += len(chunks)
            parsed.append(
                Parsed(
                    source=document,
                    content_hash=digest,
                    n_tokens=self.embedder.count_tokens(document.text),
                    identifiers=tuple(find_identifiers(document.text)),
                    chunks=chunks,
                    chunk_identifiers=[tuple(find_identifiers(c.text)) for c in chunks],
                    chunk_terms=[index_terms(c.text) for c in chunks],
                    chunk_claims=own_claims,
                    mentions=mentions_of[document.id],
                    triples=triples_of[document.id],
                )
            )
        return parsed

    def _embed(self, parsed: Sequence[Parsed], chunk_vectors: Vectors) -> list[EmbeddedDocument]:
        triple_vectors = self._vectors([t.text for p in parsed for t in p.triples])
        # Each link's anchor context (its sentence; the anchor text where there is none).
        link_vectors = self._vectors(
            [link.context or link.anchor_text for p in parsed for c in p.chunks for link in c.links]
        )
        link_at = 0
        embedded: list[EmbeddedDocument] = []
        chunk_at = triple_at = 0
        for p in parsed:
            own_chunks = chunk_vectors[chunk_at : chunk_at + len(p.chunks)]
            own_triples = triple_vectors[triple_at : triple_at + len(p.triples)]
            n_links = sum(len(c.links) for c in p.chunks)
            own_links = link_vectors[link_at : link_at + n_links]
            link_at += n_links
            chunk_at += len(p.chunks)
            triple_at += len(p.triples)
            embedded.append(
                EmbeddedDocument(
                    source=p.source,
                    content_hash=p.content_hash,
                    n_tokens=p.n_tokens,
                    identifiers=p.identifiers,
                    chunks=p.chunks,
                    chunk_identifiers=p.chunk_identifiers,
                    chunk_terms=p.chunk_terms,
                    mentions=p.mentions,
                    triples=p.triples,
                    vector=document_vector(own_chunks),
                    chunk_vectors=own_chunks,
                    triple_vectors=own_triples,
                    link_vectors=own_links,
                    chunk_claims=p.chunk_claims,
                )
            )
        return embedded

    def _vectors(self, texts: list[str]) -> Vectors:
        if not texts:
            return _no_vectors(self)
        return self.embedder.embed(texts)


def own_language(document: SourceDocument) -> tuple[Language | None, str | None]:
    """The language ``document`` declares (``language``, or front matter ``language:`` in its
    metadata) among those anchorgraph analyses; when it declares only others, None and why the
    first of them is not used."""
    unused = None
    for own in (document.language, document.metadata.get("language", "")):
        if not own.strip():
            continue
        try:
            return language_of(own), None
        except ValueError as error:
            unused = unused or str(error)
    return None, unused


def document_language(document: SourceDocument, declared: Language | None = None) -> SourceDocument:
    """``document`` with its language resolved: its own (``own_language``; a code anchorgraph
    does not analyse counts as none), else ``declared`` (for the whole write), else detected
    from its text."""
    found = own_language(document)[0] or declared or detect_language(document.text)
    return replace(document, language=found.value)


def document_vector(chunk_vectors: Vectors) -> Vectors:
    """The document embedding: the normalised mean of its chunk embeddings.

    A model reads at most a few hundred tokens, so embedding the document text directly would see
    only its beginning; the centroid of its chunks covers all of it at no extra encoding cost.
    """
    mean: Vectors = chunk_vectors.mean(axis=0, dtype=np.float32)
    norm = float(np.linalg.norm(mean))
    return mean / np.float32(norm) if norm > 0 else mean


def _no_vectors(ingestor: Ingestor) -> Vectors:
    return np.zeros((0, ingestor.embedder.dimension), dtype=np.float32)


def _batches(items: Iterable[SourceDocument], size: int) -> Iterator[list[SourceDocument]]:
    iterator = iter(items)
    while batch := list(islice(iterator, size)):
        yield batch
