"""Relevance judgments and the weights a collection fits to them (``anchorgraph tune``,
``POST /judgments``).

A judgment says whether a document answers a query, as a person clicked it on the search page
or as a qrels file lists it; it is stored in the graph, hanging from the document it judges
(``cypher/judgments``). ``tune_collection`` ranks every judged query of a collection as a
hybrid search would, once per level, then lets ``anchorgraph.retrieval.tuning`` choose factors on
the default weights from ~70 % of the queries; the other ~30 % are searched for real with the
defaults and with the choice, and the choice is kept for a level only when those held queries
do not rank worse. What is kept is stored with the collection, and hybrid searches of the
collection alone use it (their answers name it: ``ranking``).
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import neo4j
from pydantic import BaseModel, ConfigDict

from anchorgraph.errors import InvalidInput, NotFound
from anchorgraph.graph.gateway import Graph, row_values, run_in, single_in
from anchorgraph.graph.queries import Query
from anchorgraph.retrieval.context import SearchContext
from anchorgraph.retrieval.fd_read import Level
from anchorgraph.retrieval.options import Mode, SearchOptions
from anchorgraph.retrieval.paths.base import PathName
from anchorgraph.retrieval.pipeline import search
from anchorgraph.retrieval.stages import rank_candidates, retrieve
from anchorgraph.retrieval.tuning import (
    MIN_JUDGED_QUERIES,
    CollectionRanking,
    Judged,
    LevelFit,
    Scales,
    fit,
    grid,
    held_out,
    ndcg_at,
)
from anchorgraph.scope import collection_name, local_id, scoped

LEVELS: tuple[Level, ...] = ("document", "chunk")
# Candidates fetched per path for the fit, as a default search fetches them.
K_OVER = 100

Judgments = dict[str, dict[str, int]]  # query text → document id → relevance
Progress = Callable[[int, int], None]  # done, total


class Judgment(BaseModel):
    """One stored judgment."""

    model_config = ConfigDict(frozen=True)

    collection: str
    query: str
    document_id: str
    relevance: int
    created: datetime
    updated: datetime


def record_judgment(
    graph: Graph, collection: str, query: str, document_id: str, relevance: int
) -> Judgment:
    """Store (or replace) one judgment.

    Raises:
        InvalidInput: an empty query or a negative relevance.
        NotFound: the collection has no such document.
    """
    query = " ".join(query.split())
    if not query:
        raise InvalidInput("A judgment needs the query's text.")
    if relevance < 0:
        raise InvalidInput(f"relevance must be 0 (not relevant) or more, not {relevance}.")
    parameters = {
        "collection": collection,
        "query": query,
        "document": scoped(collection, document_id),
        "relevance": relevance,
    }

    def work(tx: neo4j.ManagedTransaction) -> dict[str, Any] | None:
        record = single_in(tx, Query.RECORD_JUDGMENT, parameters)
        return None if record is None else row_values(record)

    row = graph.write(work)
    if row is None:
        raise NotFound(f"No document {document_id!r} in collection {collection!r}.")
    return Judgment.model_validate({"collection": collection, "query": query, **row})


def collection_judgments(graph: Graph, collection: str) -> Judgments:
    """The judgments recorded for ``collection`` (through the API or a previous tune)."""
    judgments: Judgments = {}
    for row in graph.read(Query.COLLECTION_JUDGMENTS, {"collection": collection}):
        judgments.setdefault(row["query"], {})[row["document_id"]] = int(row["relevance"])
    return judgments


def read_qrels(qrels: Path, queries: Path | None = None) -> Judgments:
    """Judgments from BEIR files: ``qrels`` (TSV, ``query-id corpus-id score``, a header line
    allowed) and the queries' texts from ``queries`` (JSONL with ``_id`` and ``text``; by
    default ``queries.jsonl`` of the dataset folder, the qrels file's grandparent).

    Raises:
        InvalidInput: a file is missing or malformed, or a judged query has no text.
    """
    queries = queries or qrels.parent.parent / "queries.jsonl"
    for path in (qrels, queries):
        if not path.is_file():
            raise InvalidInput(f"{path} is not a file.")
    try:
        with queries.open(encoding="utf-8-sig") as lines:
            texts = {str(q["_id"]): str(q["text"]) for q in map(json.loads, lines) if q}
        judgments: Judgments = {}
        with qrels.open(encoding="utf-8-sig", newline="") as handle:
            for row in csv.reader(handle, delimiter="\t"):
                if not row or row[0] == "query-id":
                    continue
                query_id, document_id, score = row[0], row[1], int(row[2])
                if query_id not in texts:
                    raise InvalidInput(f"{qrels} judges query {query_id!r}, which {queries} lacks.")
                judgments.setdefault(texts[query_id], {})[document_id] = score
    except (ValueError, KeyError, IndexError) as error:
        raise InvalidInput(f"{qrels} or {queries} is not in BEIR's format: {error}") from error
    return judgments


@dataclass(frozen=True)
class TuneReport:
    """What ``tune_collection`` found, and what it stored."""

    collection: str
    queries: int  # judged queries with a relevant document in the collection
    held_queries: int
    unknown_documents: int  # judged documents the collection does not hold
    ranking: CollectionRanking
    stored: bool  # False: a dry run, or the defaults ranked the judgments best
    changed: tuple[Level, ...]  # the levels whose weights differ from the defaults


def tune_collection(
    context: SearchContext,
    graph: Graph,
    collection: str,
    judgments: Mapping[str, Judged],
    *,
    store: bool = True,
    progress: Progress | None = None,
) -> TuneReport:
    """Fit ``collection``'s fusion weights to ``judgments`` and store them with it (unless
    ``store`` is False, or they are the defaults, which removes any stored before).

    Raises:
        InvalidInput: fewer than ``MIN_JUDGED_QUERIES`` judged queries with a relevant
            document in the collection.
        NotFound: no such collection.
    """
    collection = collection_name(collection)
    if collection not in context.sizes.get(graph.read, fresh=True):
        raise NotFound(f"No collection named {collection!r}.")
    judged, unknown = _in_collection(graph, collection, judgments)
    if len(judged) < MIN_JUDGED_QUERIES:
        raise InvalidInput(
            f"{len(judged)} judged queries have a relevant document in {collection!r}: tuning "
            f"needs at least {MIN_JUDGED_QUERIES} (judge more answers, or check that the qrels "
            "name the documents by their ids in the collection)."
        )
    held = held_out(judged)
    fitted_on = {q: j for q, j in judged.items() if q not in held}
    kept_aside = {q: j for q, j in judged.items() if q in held}
    steps = (len(fitted_on) + 2 * len(kept_aside)) * len(LEVELS)
    done = 0

    def advance() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, steps)

    fits: dict[Level, LevelFit] = {}
    kept: dict[Level, Scales] = {}
    for level in LEVELS:
        chosen = fit(_replayed(context, collection, level, list(fitted_on), advance), fitted_on)
        held_default, held_tuned = (
            _searched(context, collection, level, kept_aside, scales.weights(level), advance)
            for scales in (Scales(), chosen.scales)
        )
        # Kept only when the queries kept aside do not rank worse with it.
        kept[level] = chosen.scales if held_tuned >= held_default else Scales()
        fits[level] = LevelFit(
            weights=kept[level].weights(level),
            scales=kept[level].factors,
            fit_default=chosen.fit_default,
            fit_tuned=chosen.fit_tuned,
            held_default=held_default,
            held_tuned=held_tuned,
        )
    now = datetime.now(UTC)
    ranking = CollectionRanking(
        name=f"{collection}/tuned-{now:%Y-%m-%d}",
        chunk=fits["chunk"],
        document=fits["document"],
        queries=len(fitted_on),
        held_queries=len(kept_aside),
        fitted=now.isoformat(timespec="seconds"),
    )
    changed = tuple(level for level in LEVELS if kept[level] != Scales())
    if store:
        _store(graph, collection, ranking if changed else None)
        context.sizes.forget()
    return TuneReport(
        collection=collection,
        queries=len(judged),
        held_queries=len(kept_aside),
        unknown_documents=unknown,
        ranking=ranking,
        stored=store and bool(changed),
        changed=changed,
    )


def _in_collection(
    graph: Graph, collection: str, judgments: Mapping[str, Judged]
) -> tuple[dict[str, Judged], int]:
    """The judgments of documents the collection holds, by query (queries left without a
    relevant document dropped), and how many judged documents it does not hold."""
    named = {document for judged in judgments.values() for document in judged}
    rows = graph.read(Query.KNOWN_DOCUMENTS, {"documents": [scoped(collection, d) for d in named]})
    known = {local_id(row["id"]) for row in rows}
    kept: dict[str, Judged] = {}
    for query, judged in judgments.items():
        present = {doc: rel for doc, rel in judged.items() if doc in known}
        if any(rel > 0 for rel in present.values()):
            kept[" ".join(query.split())] = present
    return kept, len(named - known)


def _options(collection: str, level: Level, query: str, **update: object) -> SearchOptions:
    return SearchOptions.model_validate(
        {"query": query, "mode": Mode.HYBRID, "level": level, "collections": [collection],
         "k": 10, "k_over": K_OVER, **update}
    )  # fmt: skip


def _replayed(
    context: SearchContext,
    collection: str,
    level: Level,
    queries: Sequence[str],
    advance: Callable[[], None],
) -> dict[Scales, dict[str, list[str]]]:
    """Each setting of the grid → query → the documents it ranks first, from one retrieval per
    query (without pseudo-relevance feedback, which would move the candidates per setting)."""
    settings = grid()
    rankings: dict[Scales, dict[str, list[str]]] = {scales: {} for scales in settings}
    for query in queries:
        retrieved = retrieve(context, _options(collection, level, query))
        for scales in settings:
            options = _options(collection, level, query, weights=scales.weights(level), feedback=0)
            hits = rank_candidates(retrieved.found, options, query=retrieved.query)
            documents = dict.fromkeys(local_id(hit.document_id) for hit in hits)
            rankings[scales][query] = list(documents)[:10]
        advance()
    return rankings


def _searched(
    context: SearchContext,
    collection: str,
    level: Level,
    judgments: Mapping[str, Judged],
    weights: Mapping[PathName, float],
    advance: Callable[[], None],
) -> float:
    """Mean NDCG@10 of real searches of the judged queries with ``weights``."""
    scores = []
    for query, judged in judgments.items():
        result = search(context, _options(collection, level, query, weights=dict(weights)))
        scores.append(ndcg_at([hit.document_id for hit in result.hits], judged))
        advance()
    return math.fsum(scores) / len(scores) if scores else 0.0


def reset_ranking(context: SearchContext, graph: Graph, collection: str) -> bool:
    """Remove ``collection``'s own weights (its searches use the defaults again); whether it
    had any.

    Raises:
        NotFound: no such collection.
    """
    sizes = context.sizes.get(graph.read, fresh=True)
    if collection not in sizes:
        raise NotFound(f"No collection named {collection!r}.")
    _store(graph, collection, None)
    context.sizes.forget()
    return sizes[collection].ranking is not None


def _store(graph: Graph, collection: str, ranking: CollectionRanking | None) -> None:
    parameters = {
        "collection": collection,
        "ranking": None if ranking is None else ranking.model_dump_json(),
        "name": None if ranking is None else ranking.name,
    }
    graph.write(lambda tx: run_in(tx, Query.SET_RANKING, parameters))
