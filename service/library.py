"""The library API for notebooks, scripts and framework adapters, without the HTTP server.

``open_search`` gives a read-only ``Searcher``; ``open_library`` a ``Library``, a searcher that
also adds, replaces and deletes documents, each in a collection (``default`` unless named). Each
is one context manager that owns the runtime (the connection and the model) and closes it on
exit. A search takes the same ``SearchOptions`` the REST API validates, as an object or as
keywords, and returns the same ``SearchResult``::

    from anchorgraph import SearchOptions, open_library

    with open_library() as library:
        library.load_sample()  # the sample corpus, in the collection "sample"
        result = library("who founded the museum?", level="document", k=3, explain=True)
        options = SearchOptions(query="who founded the museum?", mode="multisignal", k=3)
        for hit in library(options).hits:
            print(hit.rank, round(hit.score, 3), hit.title, hit.signals)

``docs/library.md`` has the full example (the test suite runs it).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from anchorgraph.errors import InvalidInput
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.schema import SchemaMode
from anchorgraph.ingestion import (
    archive_corpus,
    load_sample,
    plan_folder_sync,
    reading,
    source_at,
)
from anchorgraph.judgments import (
    Judgment,
    Judgments,
    TuneReport,
    collection_judgments,
    record_judgment,
    tune_collection,
)
from anchorgraph.loaders.collections import CollectionInfo, delete_collection, list_collections
from anchorgraph.loaders.graph_writer import existing_documents
from anchorgraph.loaders.ingest import IngestStats, Precondition
from anchorgraph.loaders.model import SourceDocument
from anchorgraph.loaders.read import Skipped, read_bytes
from anchorgraph.loaders.sync import SyncPlan, SyncReport, run_sync
from anchorgraph.retrieval.context import SearchContext
from anchorgraph.retrieval.options import FLAT_NAMES, GROUP_MODELS, SearchOptions, nested
from anchorgraph.retrieval.pipeline import search
from anchorgraph.retrieval.results import SearchResult
from anchorgraph.runtime import (
    EmbedderFactory,
    Runtime,
    default_embedder,
    open_runtime,
    startup_objects_frozen,
)
from anchorgraph.scope import (
    ARCHIVE_COLLECTION,
    DEFAULT_COLLECTION,
    collection_name,
    document_id,
)
from anchorgraph.settings import Settings
from anchorgraph.text.language import Language, language_of


class Searcher:
    """Call it with a query and any ``SearchOptions`` field as a keyword, or with options (and
    keywords that override them); every keyword is validated by ``SearchOptions``."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    @property
    def context(self) -> SearchContext:
        return self.runtime.search

    @property
    def graph(self) -> Graph:
        """The graph, for reads the search does not make (a document, a neighbourhood)."""
        return self.runtime.graph

    def __call__(self, query: str | SearchOptions, **options: Any) -> SearchResult:
        """A search (``collections=[...]`` narrows it; default: every collection).

        Raises:
            ValidationError: an option ``SearchOptions`` refuses.
            NotFound: a requested collection does not exist.
        """
        validated = _validated(query, options)
        return search(self.context, validated)

    def collections(self) -> list[CollectionInfo]:
        """Every collection with its counts of documents, chunks and entities."""
        return list_collections(self.runtime.graph)

    @staticmethod
    def options(query: str | SearchOptions, **options: Any) -> SearchOptions:
        """The validated options of a call (raises pydantic's ``ValidationError``)."""
        return _validated(query, options)


def _validated(query: str | SearchOptions, options: dict[str, Any]) -> SearchOptions:
    """A call's options (flat names in their groups, with a warning on the caller's line)."""
    options = grouped(options, caller=2)  # 1: Searcher.__call__ or Searcher.options, 2: theirs
    if isinstance(query, SearchOptions):
        return query.updated(options) if options else query
    return SearchOptions.model_validate({**options, "query": query})


def grouped(options: dict[str, Any], *, caller: int) -> dict[str, Any]:
    """``options`` with the flat names of API 0.1 (``expand=True``, ``fd_lambda=0.3``) moved
    into their groups, and a ``DeprecationWarning`` naming each one's place on the line
    ``caller`` frames above the function that asks (1: whoever called it): they go in 0.3, as in
    the REST API (docs/api.md, "Versions").

    Raises:
        ValueError: a flat value its field refuses, given beside the grouped one.
    """
    moved, flat = nested(options)
    if flat:
        # 1: here, 2: the function that asks, 2 + caller: the line that meant these options.
        warnings.warn(_flat_message(flat), DeprecationWarning, stacklevel=2 + caller)
    return moved


def _flat_message(flat: Iterable[str]) -> str:
    """What a caller of flat names reads: each name and its place in its group."""
    places = {name: FLAT_NAMES[name] for name in flat}
    spelled = ", ".join(
        f"{name} → {group}={GROUP_MODELS[group].__name__}({field}=…)"
        for name, (group, field) in places.items()
    )
    return f"flat search options go in anchorgraph 0.3; name them in their groups: {spelled}"


class Library(Searcher):
    """A searcher that also writes: ``add``, ``add_text``, ``ingest``, ``sync`` and ``delete``
    go through the runtime's ``Ingestor``, so unchanged documents are skipped, a changed one is
    replaced whole and each batch is one transaction. Every write goes into one collection
    (``collection=``, default ``default``). Nothing is replaced unseen: a document whose id
    the collection holds with other content is written over it only when both came from the
    same file or URI; otherwise it is refused and listed in the stats' ``refused``, unless
    ``replace=True`` (or, for ``add_text``, ``if_match`` names the stored version's ETag)."""

    def add(
        self,
        documents: Iterable[SourceDocument],
        *,
        collection: str = DEFAULT_COLLECTION,
        replace: bool = False,
        language: str | None = None,
        preconditions: Mapping[str, Precondition] | None = None,
    ) -> IngestStats:
        """Add or replace documents (``SourceDocument``s, as ``read_all`` or a loader gives);
        ``language`` ("en", "pt", "it") is that of those that declare none, else each is
        detected. ``preconditions``: by id, the versions (ETags) a document may replace, as
        ``If-Match`` / ``If-None-Match`` say them over REST.

        Raises:
            InvalidInput: ``collection`` is not a collection name, ``language`` not a
                language anchorgraph analyses, or a document's id not a document id
                (``anchorgraph.scope.document_id``); nothing is written then.
        """
        declared = _declared(language)
        documents = list(documents)
        for document in documents:  # all of them before anything is written
            document_id(document.id)
        return self.runtime.ingestor.ingest(
            documents,
            collection=collection,
            replace=replace,
            language=declared,
            preconditions=preconditions,
        )

    def add_text(
        self,
        id: str,
        text: str,
        *,
        format: str = "markdown",
        title: str = "",
        tags: Iterable[str] = (),
        source: str = "",
        source_type: str = "",
        folder: str = "",
        uri: str = "",
        collection: str = DEFAULT_COLLECTION,
        replace: bool = False,
        language: str | None = None,
        if_match: str | None = None,
    ) -> IngestStats:
        """Add or replace one document given as text, read as ``POST /documents`` reads it
        (``format``: text, markdown or html; the title taken from the text when empty).

        A document of this id with other content is replaced only with ``replace=True``, or
        when ``if_match`` is its ETag (``etag``; "*": whichever is stored), or when both have
        the same non-empty ``uri``; else it is refused (the stats' ``refused`` says why).

        Raises:
            InvalidInput: no text is left after normalisation.
            UnsupportedFormat: ``format`` is not text, markdown or html.
            DocumentTooLarge: longer than ``ANCHORGRAPH_MAX_DOCUMENT_BYTES``.
        """
        document = read_bytes(
            text.encode("utf-8"),
            doc_id=id,
            fmt=format,
            title=title,
            uri=uri,
            source=source,
            source_type=source_type,
            folder=folder,
            tags=tags,
            max_bytes=self.runtime.settings.max_document_bytes,
        )
        conditions = {id: Precondition(if_match=(if_match,))} if if_match is not None else None
        return self.add(
            [document],
            collection=collection,
            replace=replace,
            language=language,
            preconditions=conditions,
        )

    def etag(self, id: str, *, collection: str = DEFAULT_COLLECTION) -> str | None:
        """The version (ETag, the content hash) of a stored document, which ``add_text``'s
        ``if_match`` names to replace it; None when the collection has no such document."""
        stored = existing_documents(self.graph, collection_name(collection), [id]).get(id)
        return stored.content_hash if stored is not None else None

    def ingest(
        self,
        path: Path | str,
        *,
        collection: str = DEFAULT_COLLECTION,
        replace: bool = False,
        fmt: str | None = None,
        source_type: str = "",
        language: str | None = None,
        ray: str | None = None,
    ) -> IngestStats:
        """Read a file or a folder tree (as ``anchorgraph ingest`` does), local or by URL
        (``s3://bucket/prefix``, ``file://``; docs/sources.md), and add it to ``collection``;
        files no reader takes are listed in the stats' ``warnings``. A folder's files are read
        by ``ANCHORGRAPH_READ_WORKERS`` processes while what was read before is embedded and
        written (``anchorgraph.ingestion.reading``); a single file is read whole first. A
        store that fails part-way fails the call: what was written before stays, each document
        whole, and the same call again writes the rest (unchanged documents are skipped).

        ``ray``: run it on a Ray cluster instead (``local``: one started on this machine for
        the call; ``host:port``: the cluster whose head is there; a process that called
        ``ray.init`` runs on its own), which writes the same graph (``anchorgraph.distributed``,
        docs/deployment.md).

        Raises:
            InvalidInput: no such local file or folder; a URL no installed package serves; no
                Ray cluster at ``ray``, or Ray not installed.
            SourceUnavailable: the bucket or folder cannot be listed or read.
        """
        skipped: list[Skipped] = []
        if ray is not None:
            from anchorgraph.distributed import ingest_on_ray

            stats = ingest_on_ray(
                self.runtime,
                path,
                address=ray,
                collection=collection,
                replace=replace,
                language=_declared(language),
                fmt=fmt,
                source_type=source_type,
                on_skip=skipped.append,
            )
        else:
            with reading(
                self.runtime.settings,
                path,
                fmt=fmt,
                source_type=source_type,
                on_skip=skipped.append,
                ahead=self.runtime.batch_size,
            ) as documents:
                stats = self.add(
                    documents, collection=collection, replace=replace, language=language
                )
        stats.warnings.extend(f"skipped {item.path}: {item.reason}" for item in skipped)
        return stats

    def sync(
        self,
        path: Path | str,
        *,
        collection: str,
        replace: bool = False,
        dry_run: bool = False,
    ) -> SyncPlan | SyncReport:
        """Make ``collection`` mirror the folder or bucket prefix ``path``
        (``anchorgraph.loaders.sync``): add and update its files, delete the documents that
        came from it and whose files are gone; only files whose revision changed are read.
        ``dry_run`` returns the plan and writes nothing.

        Raises:
            InvalidInput: ``path`` is a single file, or no such local folder.
            SourceUnavailable: the bucket or folder cannot be listed or read.
        """
        ingestor = self.runtime.ingestor
        settings = self.runtime.settings
        source = source_at(settings, path)
        plan, _ = plan_folder_sync(settings, ingestor, source, collection, replace=replace)
        return plan if dry_run else run_sync(ingestor, plan, replace=replace)

    def delete(self, ids: Iterable[str], *, collection: str = DEFAULT_COLLECTION) -> int:
        """Remove documents of ``collection`` by id (with their chunks and the entities nothing
        else mentions); returns how many existed."""
        return self.runtime.ingestor.delete(list(ids), collection=collection)

    def delete_collection(self, name: str) -> CollectionInfo:
        """Delete a collection and everything in it; returns what it held.

        Raises:
            NotFound: there is no such collection.
        """
        deleted = delete_collection(self.graph, name)
        self.context.sizes.forget()
        return deleted

    def judge(
        self, query: str, document_id: str, relevant: bool = True, *, collection: str
    ) -> Judgment:
        """Record whether a document of ``collection`` answers ``query`` (as the search page's
        buttons and ``POST /judgments`` do); judging it again replaces the judgment.

        Raises:
            NotFound: the collection has no such document.
        """
        return record_judgment(self.graph, collection, query, document_id, int(relevant))

    def tune(
        self, collection: str, judgments: Judgments | None = None, *, store: bool = True
    ) -> TuneReport:
        """Fit ``collection``'s fusion weights to ``judgments`` (query text → document id →
        relevance; default: those recorded with ``judge``) and store them with it, as
        ``anchorgraph tune`` does (``anchorgraph.judgments``).

        Raises:
            InvalidInput: fewer than 10 judged queries with a relevant document in it.
        """
        judged = collection_judgments(self.graph, collection) if judgments is None else judgments
        return tune_collection(self.context, self.graph, collection, judged, store=store)

    def load_sample(self) -> IngestStats:
        """Ingest the sample corpus into the collection ``sample`` exactly as ``anchorgraph
        run`` does (with its gazetteer), so the two never rewrite each other."""
        return load_sample(self.runtime)

    def load_archive(self) -> IngestStats:
        """Ingest the second sample, the museum's archive in Portuguese and Italian, into the
        collection ``arquivo``, as ``anchorgraph run`` does."""
        return load_sample(self.runtime, collection=ARCHIVE_COLLECTION, corpus=archive_corpus())


def _declared(language: str | None) -> Language | None:
    """The language a caller names for documents that declare none (None: detect each).

    Raises:
        InvalidInput: not a language anchorgraph analyses.
    """
    try:
        return None if language is None else language_of(language)
    except ValueError as error:
        raise InvalidInput(str(error)) from None


@contextmanager
def open_search(
    settings: Settings | None = None, *, embedder_factory: EmbedderFactory = default_embedder
) -> Iterator[Searcher]:
    """Connect and load the model once, and search as often as needed. Read-only: the schema
    is verified, never changed."""
    with (
        open_runtime(settings, schema=SchemaMode.VERIFY, embedder_factory=embedder_factory) as rt,
        startup_objects_frozen(),
    ):
        yield Searcher(rt)


@contextmanager
def open_library(
    settings: Settings | None = None,
    *,
    embedder_factory: EmbedderFactory = default_embedder,
    gazetteer: Path | None = None,
) -> Iterator[Library]:
    """Connect, load the model, create the schema where it is missing, and search and write
    as often as needed; everything is closed on exit."""
    with (
        open_runtime(
            settings,
            schema=SchemaMode.APPLY,
            embedder_factory=embedder_factory,
            gazetteer=gazetteer,
        ) as rt,
        startup_objects_frozen(),
    ):
        yield Library(rt)
