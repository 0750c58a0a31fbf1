"""The title-link pass over an existing graph: ``--link-titles`` for documents already ingested.

At ingest, ``--link-titles`` adds title links to the documents before they are chunked
(:mod:`anchorgraph.loaders.title_links`). A graph ingested without it, or grown since by other
batches, gets the same links from :func:`link_titles_in_graph` without reading, chunking or
embedding its documents again:

1. Read every document's title and chunks (``links/title_pass_documents``). A chunk's text is
   its document's text between ``start`` and ``end``, so the text is laid back together from
   them; the links the documents' authors wrote come along, located by their anchor text in
   their chunk, so that they keep winning over title mentions as they do at ingest.
2. Link the corpus as at ingest (:func:`~anchorgraph.loaders.title_links.link_corpus`) and put
   each new link into the stored chunk that holds it
   (:func:`~anchorgraph.loaders.title_links.place_links`).
3. Embed the links' contexts, and per batch of documents, in one transaction each, delete the
   batch's old title links and create the new ones (``links/delete_title_links``,
   ``load/create_links``). Running the pass again gives the same links; an interrupted pass
   leaves every batch either as it was or relinked, and running it again finishes the job.

Title links are told from written ones by their href
(:data:`~anchorgraph.loaders.title_links.TITLE_LINK_MARK`). The pass works on one collection: titles
link documents of the same collection only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from types import MappingProxyType
from typing import Any
from urllib.parse import quote

import neo4j

from anchorgraph.embedding import Embedder
from anchorgraph.graph.gateway import Graph, run_in, single_in
from anchorgraph.graph.queries import Query
from anchorgraph.loaders.graph_writer import LinkRow
from anchorgraph.loaders.model import RawLink, SourceDocument
from anchorgraph.loaders.title_links import (
    TITLE_LINK_MARK,
    ChunkSpan,
    LinkReport,
    link_corpus,
    place_links,
)
from anchorgraph.scope import local_id, scoped

BATCH_DOCUMENTS = 500  # documents relinked per write transaction


@dataclass(frozen=True)
class StoredDocument:
    """A document as the pass reads it back: its text laid together from its chunks."""

    source: SourceDocument
    chunks: tuple[ChunkSpan, ...]

    @classmethod
    def of(cls, row: dict[str, Any]) -> StoredDocument:
        """From a row of ``title_pass_documents.cypher``, its keys made ids again."""
        chunks = tuple(
            ChunkSpan(local_id(str(c["id"])), int(c["start"]), int(c["end"])) for c in row["chunks"]
        )
        text = _text_of(row["chunks"])
        by_id = {c["id"]: c for c in row["chunks"]}
        written = tuple(_written_link(w, by_id[w["chunk_id"]]) for w in row["written"])
        source = SourceDocument(
            id=local_id(str(row["id"])), text=text, title=str(row["title"]), links=written
        )
        return cls(source, chunks)


@dataclass(frozen=True)
class TitlePassReport:
    """What the pass did: the linking report, and how many title links it replaced."""

    linking: LinkReport
    links_removed: int
    links_written: int

    def summary(self) -> str:
        return (
            f"{self.linking.summary()}; {self.links_removed} earlier title links removed, "
            f"{self.links_written} written"
        )


def link_titles_in_graph(
    graph: Graph,
    embedder: Embedder,
    collection: str,
    *,
    remove_only: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> TitlePassReport:
    """Replace every title link in ``collection`` with those its documents' titles make now.

    Args:
        graph: The graph to relink (its schema applied).
        collection: The collection relinked; its titles link its own documents only.
        embedder: Embeds each link's context, which expansion validates landing chunks against.
        remove_only: Only delete the title links (``anchorgraph graph link-titles --remove``).
        progress: Called with (documents done, documents in all) after each batch.

    Returns:
        The report; ``linking`` counts the links made (none with ``remove_only``).
    """
    rows = graph.read(
        Query.TITLE_PASS_DOCUMENTS, {"mark": TITLE_LINK_MARK, "collection": collection}
    )
    stored = [StoredDocument.of(dict(row)) for row in rows]
    documents = [document.source for document in stored]
    linked, report = (
        (documents, _no_links(len(documents))) if remove_only else link_corpus(documents)
    )
    removed = written = 0
    for start, batch in _batches(stored, linked):
        ids = [scoped(collection, document.source.id) for document, _ in batch]
        link_rows = _link_rows(collection, batch, embedder)
        removed += graph.write(partial(_relink, collection=collection, ids=ids, rows=link_rows))
        written += len(link_rows)
        if progress is not None:
            progress(start + len(batch), len(stored))
    return TitlePassReport(report, removed, written)


def _relink(
    tx: neo4j.ManagedTransaction, collection: str, ids: list[str], rows: list[LinkRow]
) -> int:
    """One batch's transaction: its old title links out, its new ones in; returns how many went."""
    old = single_in(tx, Query.DELETE_TITLE_LINKS, {"ids": ids, "mark": TITLE_LINK_MARK})
    if rows:
        run_in(tx, Query.CREATE_LINKS, {"links": rows, "collection": collection})
    if old is not None and old["keys"]:
        run_in(tx, Query.DELETE_ORPHAN_PLACEHOLDERS, {"keys": list(old["keys"])})
    return int(old["deleted"]) if old is not None else 0


def _text_of(chunks: Sequence[dict[str, Any]]) -> str:
    """The document's text from its (overlapping) chunks; a gap between two, which the chunker
    never leaves, would be filled with spaces so that every offset still holds."""
    text: list[str] = []
    end = 0
    for chunk in chunks:
        start, chunk_text = int(chunk["start"]), str(chunk["text"])
        if start > end:
            text.append(" " * (start - end))
            end = start
        text.append(chunk_text[end - start :])
        end = max(end, start + len(chunk_text))
    return "".join(text)


def _written_link(written: dict[str, Any], chunk: dict[str, Any]) -> RawLink:
    """A written link with its span in the document text (the first place its anchor text is in
    its chunk), for :func:`~anchorgraph.loaders.title_links.link_titles` to keep title mentions off
    it. Without an anchor text only its target counts (no span to keep clear)."""
    anchor = str(written["anchor_text"])
    at = str(chunk["text"]).find(anchor) if anchor else -1
    start = int(chunk["start"]) + max(at, 0)
    end = start + len(anchor) if at >= 0 else start
    # Rooted, so that it resolves to the target id itself (as a title link's href does).
    href = "/" + quote(local_id(str(written["target"])), safe="/")
    return RawLink(href=href, anchor_text=anchor, start=start, end=end)


def _batches(
    stored: Sequence[StoredDocument], linked: Sequence[SourceDocument]
) -> Iterator[tuple[int, list[tuple[StoredDocument, SourceDocument]]]]:
    pairs = list(zip(stored, linked, strict=True))
    for start in range(0, len(pairs), BATCH_DOCUMENTS):
        yield start, pairs[start : start + BATCH_DOCUMENTS]


def _link_rows(
    collection: str, batch: Sequence[tuple[StoredDocument, SourceDocument]], embedder: Embedder
) -> list[LinkRow]:
    placed = [
        (chunk_id, link)
        for document, after in batch
        for chunk_id, link in place_links(
            after, after.links[len(document.source.links) :], document.chunks
        )
    ]
    if not placed:
        return []
    vectors = embedder.embed([link.context or link.anchor_text for _, link in placed])
    return [
        LinkRow(
            chunk_id=scoped(collection, chunk_id),
            target=scoped(collection, link.target_document),
            uri=link.target_document,
            fragment=link.fragment,
            href=link.href,
            anchor_text=link.anchor_text,
            context=link.context,
            context_embedding=vector.tolist(),
        )
        for (chunk_id, link), vector in zip(placed, vectors, strict=True)
    ]


def _no_links(documents: int) -> LinkReport:
    return LinkReport(documents, 0, 0, 0, MappingProxyType({}))
