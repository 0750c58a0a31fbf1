"""Sync: make a collection mirror a folder (a local one, or a bucket prefix: any
``anchorgraph.loaders.sources.Source``). Files new to it are added, changed ones replaced,
and the documents that came from that folder but whose files are gone are deleted; documents of
the collection that came from elsewhere are left alone, and a file whose id the collection
holds from another origin is refused unless the caller asks to replace it (as at ingest).

A file is read (downloaded) only when its listing's revision (an object's ETag or version, else
its size and modification time) differs from the one stored with its documents; the others are
unchanged without a byte read. A file read is then compared by content hash, as at any ingest.

``plan_sync`` lists the folder and reads what changed, and writes nothing (the ``--dry-run``);
``run_sync`` carries the plan out through the ``Ingestor``, each batch one transaction, the
deletions last.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from anchorgraph.graph.gateway import GraphReader
from anchorgraph.graph.queries import Query
from anchorgraph.loaders.graph_writer import Stored
from anchorgraph.loaders.ingest import (
    Decision,
    Ingestor,
    IngestStats,
    ProgressCallback,
    Refusal,
    named_by_its_path,
    write_decision,
)
from anchorgraph.loaders.model import SourceDocument
from anchorgraph.loaders.sources import Entry
from anchorgraph.scope import collection_name

# Why a file is refused, said where a summary counts refusals.
_REFUSED = "(another origin, or another id; --replace replaces)"


@dataclass(frozen=True)
class SyncPlan:
    """What a sync of ``folder_uri`` into ``collection`` would do, by document id."""

    collection: str
    folder_uri: str
    add: list[str] = field(default_factory=list)  # not in the collection
    update: list[str] = field(default_factory=list)  # same origin, content changed
    unchanged: list[str] = field(default_factory=list)
    # Same id from another origin, or (``stored_id``) the same file stored under another id.
    conflicts: list[Refusal] = field(default_factory=list)
    delete: list[str] = field(default_factory=list)  # from this folder, file gone
    kept: list[str] = field(default_factory=list)  # from elsewhere, not in the folder: left
    # The documents of the files read (their revision changed, or they are new): what
    # ``run_sync`` ingests.
    documents: list[SourceDocument] = field(default_factory=list, repr=False)

    def summary(self, *, replace: bool = False) -> str:
        """What carrying the plan out would do, in the conditional (the ``--dry-run``)."""
        conflicts = "to replace" if replace else f"to refuse {_REFUSED}"
        return (
            f"Would add {len(self.add)}, update {len(self.update)} and delete "
            f"{len(self.delete)} documents: {len(self.unchanged)} unchanged, "
            f"{len(self.conflicts)} {conflicts}, {len(self.kept)} from elsewhere kept"
        )


@dataclass(frozen=True)
class SyncReport:
    """What a sync did: the plan, the ingest's stats and how many documents it deleted."""

    plan: SyncPlan
    stats: IngestStats
    deleted: int

    def summary(self) -> str:
        """What the sync did, from what was written and deleted (not from the plan: a file
        another writer took meanwhile is refused, not added)."""
        stats = self.stats
        why = f" {_REFUSED}" if stats.refused else ""
        # The files whose revision was the stored one were not read, so the ingest never saw
        # them: they are unchanged beside those it read and found so.
        read = {document.id for document in self.plan.documents}
        unchanged = stats.unchanged + sum(1 for id_ in self.plan.unchanged if id_ not in read)
        return (
            f"Synced: {stats.written - stats.replaced} added, {stats.replaced} updated, "
            f"{self.deleted} deleted, {unchanged} unchanged, {len(stats.refused)} "
            f"refused{why}, {len(self.plan.kept)} from elsewhere kept"
        )


# Reads a folder's documents, only from the files the predicate accepts
# (``anchorgraph.loaders.read.read_source`` with ``only``).
ReadChanged = Callable[[Callable[[Entry], bool]], Iterable[SourceDocument]]


@dataclass(frozen=True)
class _Stored(Stored):
    revision: str


def plan_sync(
    graph: GraphReader,
    ingestor: Ingestor,
    read: ReadChanged,
    folder_uri: str,
    collection: str,
    *,
    replace: bool = False,
) -> SyncPlan:
    """Compare the folder at ``folder_uri`` with ``collection``, reading (``read``) only the
    files whose revision differs from the one stored with their documents.

    A document of the collection is the folder's when its uri lies under ``folder_uri``; only
    those are deleted when their id is not among the folder's documents and their file is not
    either. A file the collection holds under another id (read before from a folder above or
    below this one, so its id was relative to that) is refused unless ``replace``, and its
    document kept; with ``replace`` it is written under its new id and the old one deleted. A
    document read is hashed as the ingest would write it (``Ingestor.as_written``), so one
    whose language is detected is unchanged when its file is.

    Raises:
        InvalidInput: ``collection`` is not a collection name.
    """
    collection = collection_name(collection)
    stored = {
        row["id"]: _Stored(row["content_hash"], row["uri"], row["revision"])
        for row in graph.read(Query.COLLECTION_DOCUMENTS, {"collection": collection})
    }
    of_file: dict[str, list[str]] = defaultdict(list)  # uri -> the ids read from it
    for id_, held in stored.items():
        of_file[held.uri].append(id_)
    unread: list[str] = []  # ids of files whose revision is the one stored

    def changed(entry: Entry) -> bool:
        ids = of_file.get(entry.uri, [])
        same = bool(ids) and all(
            stored[id_].revision == entry.revision
            # A file that is one document is unchanged only under the same id: read from
            # another folder, its id differs (a conflict, below).
            and (id_ == entry.path or not named_by_its_path(id_, entry.uri))
            for id_ in ids
        )
        if same and entry.revision:
            unread.extend(ids)
            return False
        return True

    documents = list(read(changed))
    plan = SyncPlan(collection=collection, folder_uri=folder_uri, documents=documents)
    plan.unchanged.extend(unread)
    prefix = folder_uri.rstrip("/") + "/"
    present = {document.id for document in documents} | set(unread)
    stored_as = {
        held.uri: id_
        for id_, held in stored.items()
        if id_ not in present and named_by_its_path(id_, held.uri)
    }
    for document in documents:
        now = stored.get(document.id)
        a_file = now is None and named_by_its_path(document.id, document.uri)
        decision = write_decision(
            document,
            ingestor.etag(document),
            now,
            replace=replace,
            stored_as=stored_as.get(document.uri, "") if a_file else "",
        )
        if isinstance(decision, Refusal):
            plan.conflicts.append(decision)
        elif decision is Decision.UNCHANGED:
            plan.unchanged.append(document.id)
        else:
            (plan.add if now is None else plan.update).append(document.id)
    kept_as_stored = {refusal.stored_id for refusal in plan.conflicts}
    for id_, held in sorted(stored.items()):
        if id_ in present or id_ in kept_as_stored:
            continue  # there, or its file is, under another id (a conflict above)
        uri = held.uri
        (plan.delete if uri == folder_uri or uri.startswith(prefix) else plan.kept).append(id_)
    return plan


def run_sync(
    ingestor: Ingestor,
    plan: SyncPlan,
    *,
    replace: bool = False,
    on_progress: ProgressCallback | None = None,
) -> SyncReport:
    """Carry out ``plan_sync``'s ``plan``: ingest the documents it read
    (unchanged ones are skipped and conflicts refused as at any ingest, unless ``replace``),
    then delete the documents whose files are gone. The files the collection holds under
    another id are not written (``plan.conflicts``; ``replace`` did not plan any) and are listed
    in the stats' ``refused``."""
    stored_elsewhere = [refusal for refusal in plan.conflicts if refusal.stored_id]
    skipped = {refusal.id for refusal in stored_elsewhere}
    written = [document for document in plan.documents if document.id not in skipped]
    stats = ingestor.ingest(written, on_progress, collection=plan.collection, replace=replace)
    stats.refused += stored_elsewhere
    deleted = ingestor.delete(plan.delete, collection=plan.collection) if plan.delete else 0
    # A file moved to its new id (``replace``) had its old id deleted by the ingest already.
    return SyncReport(plan, stats, deleted + stats.moved)
