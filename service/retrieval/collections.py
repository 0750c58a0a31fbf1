"""Which collections a search reads: those it asks for, or every one its caller may read
(``anchorgraph.scope.Access``), each of them known to the graph."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence

from anchorgraph.embedding import check_model
from anchorgraph.errors import NotFound
from anchorgraph.graph.queries import Query
from anchorgraph.retrieval.paths.base import Reader
from anchorgraph.retrieval.tuning import CollectionRanking
from anchorgraph.retrieval.values import CollectionSize, Scope
from anchorgraph.scope import Access
from anchorgraph.text.language import Language, language_of

# How long the collections and their sizes read for one search serve the next ones: a size only
# tunes how many hits an index is asked for, and a collection asked for that is not among them
# makes the next search read them again.
SIZES_TTL_S = 2.0
# The share of a collection's documents a language needs for a query there to be read in it.
MIN_LANGUAGE_SHARE = 0.05


class CollectionSizes:
    """The graph's collections, their chunk counts and shards, read at most every ``ttl_s``
    seconds."""

    def __init__(self, ttl_s: float = SIZES_TTL_S) -> None:
        self._ttl_s = ttl_s
        self._lock = threading.Lock()
        self._sizes: dict[str, CollectionSize] = {}
        self._read_at = -float("inf")

    def get(self, read: Reader, *, fresh: bool = False) -> dict[str, CollectionSize]:
        """Collection name → its size; read again when older than the TTL or ``fresh``. The read
        is made outside the lock: searches that find the sizes stale at once read them each
        (a few rows), rather than queue behind one read that may be waiting on a Neo4j that is
        down (each would then wait out the others' retries)."""
        with self._lock:
            if not fresh and time.monotonic() - self._read_at <= self._ttl_s:
                return dict(self._sizes)
        rows = read(Query.COLLECTION_SIZES, {})
        sizes = {
            str(row["name"]): CollectionSize(
                int(row["chunks"]),
                None if row["shard"] is None else int(row["shard"]),
                languages_of({str(code): int(n) for code, n in row["languages"]}),
                None
                if row["ranking"] is None
                else CollectionRanking.model_validate_json(row["ranking"]),
                links=bool(row["has_links"]),
                mentions=bool(row["has_mentions"]),
                model=row["model"],
            )
            for row in rows
        }
        with self._lock:
            self._sizes, self._read_at = sizes, time.monotonic()
        return dict(sizes)

    def forget(self) -> None:
        """Read them again at the next search (after a collection was created or deleted)."""
        with self._lock:
            self._read_at = -float("inf")


def languages_of(documents: Mapping[str, int]) -> frozenset[Language]:
    """The languages a collection holds enough of to analyse a query in, from its documents per
    language code: those of at least ``MIN_LANGUAGE_SHARE`` of its documents (a few documents
    detected as Italian among thousands in English, an English paragraph naming Italian places,
    do not make every query there go through detection, which would misread some English
    queries as Italian and search them in the few Italian documents only). English for a
    collection written before languages, and for a code no longer analysed."""
    total = sum(documents.values())
    found = set()
    for code, count in documents.items():
        if count < MIN_LANGUAGE_SHARE * total:
            continue
        try:
            found.add(language_of(code))
        except ValueError:
            found.add(Language.ENGLISH)
    return frozenset(found or {Language.ENGLISH})


def check_models(sizes: Mapping[str, CollectionSize], names: Sequence[str], model: str) -> None:
    """Refuse a query embedded with ``model`` in collections embedded with another: their
    vectors would not be comparable.

    Raises:
        ModelMismatch: one of ``names`` records another model (``embedding.check_model``).
    """
    for name in names:
        check_model(name, sizes[name].model if name in sizes else None, model)


def search_scope(
    sizes: Mapping[str, CollectionSize], requested: Sequence[str] | None, access: Access
) -> Scope:
    """The collections a search reads: ``requested``, or every one ``access`` may read.

    Only a caller that may read everything and asks for nothing in particular searches without
    a collection filter: a collection created while the search runs is then searched too, which
    it may read anyway.

    Raises:
        NotFound: a requested collection does not exist, or ``access`` may not read it (the same
            answer, so that it tells nothing of collections the caller may not see).
    """
    if requested is None:
        names = access.readable(sizes)
    else:
        names = list(dict.fromkeys(requested))
        for name in names:
            if name not in sizes or not access.can_read(name):
                raise NotFound(f"No collection named {name!r}.")
    shards = {sizes[name].shard for name in names if name in sizes}
    return Scope(
        collections=tuple(names),
        every=requested is None and access.read is None,
        chunks=sum(sizes[name].chunks for name in names if name in sizes),
        total_chunks=sum(size.chunks for size in sizes.values()),
        shards=None if None in shards else tuple(sorted(s for s in shards if s is not None)),
        shard_chunks=sum(size.chunks for size in sizes.values() if size.shard in shards),
        languages=frozenset().union(*(sizes[name].languages for name in names if name in sizes)),
        ranking=sizes[names[0]].ranking if len(names) == 1 and names[0] in sizes else None,
        links=any(sizes[name].links for name in names if name in sizes),
        mentions=any(sizes[name].mentions for name in names if name in sizes),
    )
