"""A search, stage by stage: filter → analyse, with the candidate paths starting as soon as
what each needs is known (lexical paths at once, dense paths once the query is embedded, the rest
once its entities are found) → normalise and fuse → (pseudo-relevance feedback: the dense paths
again with the query vector moved towards the top documents, and fuse again) → (multi-signal
document scoring) → threshold and top k → hydrate.

The stages are the pure functions of ``normalise``, ``fusion`` and ``scoring`` and the thin path
classes of ``paths``; this module only strings them together, times each stage and counts the
database round trips.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Collection, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

import neo4j

from loaders.entities import EntityExtractor
from service.embedding import Embedder
from service.graph.queries import Query, as_parameters, cypher
from service.retrieval.analysis import analyse, embed, prepare
from service.retrieval.feedback import rocchio
from service.retrieval.fusion import FusedScore, fuse
from service.retrieval.normalise import Normalisation, normalise
from service.retrieval.paths import DENSE_PATHS, LEXICAL_PATHS, PATHS, CandidatePath
from service.retrieval.scoring import (
    DocumentSignals,
    SignalWeights,
    entity_coverage,
    score_document,
)
from service.retrieval.types import (
    AnalyzedQuery,
    Candidate,
    EmbeddedQuery,
    Hit,
    LexicalQuery,
    Mode,
    PathName,
    PathScore,
    SearchOptions,
    SearchResult,
    Signals,
    StageTiming,
)

SINGLE_PATH_MODES = {Mode.DENSE, Mode.BM25, Mode.TFIDF}
Q = TypeVar("Q", LexicalQuery, EmbeddedQuery, AnalyzedQuery)


@dataclass
class SearchContext:
    """What every search needs, built once (the API's lifespan, or ``open_search``)."""

    driver: neo4j.Driver
    embedder: Embedder
    extractor: EntityExtractor
    database: str = "neo4j"
    # The paths run concurrently: each is one round trip, and Neo4j serves them in parallel.
    executor: ThreadPoolExecutor = field(
        default_factory=lambda: ThreadPoolExecutor(max_workers=8, thread_name_prefix="path")
    )

    def close(self) -> None:
        self.executor.shutdown(wait=False)


class Trace:
    """Stage timings and database round trips of one search."""

    def __init__(self, context: SearchContext) -> None:
        self._context = context
        self._lock = threading.Lock()
        self.round_trips = 0
        self.timings: list[StageTiming] = []

    def read(self, query: Query, parameters: dict[str, Any]) -> list[neo4j.Record]:
        """One auto-commit read: RUN and PULL go out together, so it costs one network round
        trip where a managed transaction (``execute_query``) costs two (BEGIN+RUN+PULL, then
        COMMIT). A read has nothing to commit and a failed search is simply failed."""
        with self._lock:
            self.round_trips += 1
        with self._context.driver.session(
            database=self._context.database, default_access_mode=neo4j.READ_ACCESS
        ) as session:
            return list(session.run(cypher(query), as_parameters(parameters)))

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.record(name, started)

    def record(self, stage: str, started: float) -> None:
        """Time ``stage`` from ``started`` (a ``time.perf_counter()``) to now."""
        elapsed = (time.perf_counter() - started) * 1000
        with self._lock:
            self.timings.append(StageTiming(stage=stage, ms=round(elapsed, 3)))


@dataclass(frozen=True)
class _Ranked:
    """A hit before hydration: its id, score and explanation (``paths`` only with explain)."""

    chunk_id: str
    document_id: str
    score: float
    paths: dict[str, PathScore]
    signals: Signals | None = None


def search(context: SearchContext, options: SearchOptions) -> SearchResult:
    """Run one search; see the module docstring for the stages."""
    started = time.perf_counter()
    trace = Trace(context)
    allowed: set[str] | None = None
    if options.filters.active:
        with trace.stage("filter"):
            records = trace.read(Query.FILTERED_DOCUMENTS, options.filters.parameters())
            allowed = {record["id"] for record in records}
    paths = _Paths(context, trace, options, allowed)
    with trace.stage("analyse"):
        lexical = prepare(options.query, context.extractor)
        paths.start(LEXICAL_PATHS, lexical)  # they run while the model embeds the query
        embedded = embed(lexical, context.embedder)
        paths.start(DENSE_PATHS, embedded)  # they run while the entities are looked up
        query = analyse(embedded, trace.read)
        paths.start(PATHS, query)
    found = paths.results()

    with trace.stage("fuse"):
        ranked = _ranking(found, options)
    feedback_ids: list[str] = []
    if options.feedback_documents() and ranked:
        with trace.stage("feedback"):
            feedback_ids, found = _feedback(context, trace, query, options, allowed, ranked, found)
        with trace.stage("fuse"):
            ranked = _ranking(found, options)
    if options.mode is Mode.MULTISIGNAL and ranked:
        with trace.stage("multisignal"):
            ranked = _multisignal(trace, query, options, ranked, found)

    if options.threshold is not None:
        ranked = [hit for hit in ranked if hit.score >= options.threshold]
    ranked = ranked[: options.k]
    with trace.stage("hydrate"):
        hits = _hydrate(trace, ranked)
    return SearchResult(
        query=options.query,
        mode=options.mode,
        level="document" if options.document_level else "chunk",
        hits=hits,
        entities=query.entities,
        identifiers=query.identifiers,
        candidates={str(path): len(candidates) for path, candidates in found.items()},
        feedback_documents=feedback_ids,
        timings=trace.timings,
        round_trips=trace.round_trips,
        total_ms=round((time.perf_counter() - started) * 1000, 3),
    )


class _Paths:
    """The candidate paths of one search, started as soon as what each needs is known: lexical
    paths at once, dense paths when the query is embedded, the rest when its entities are."""

    def __init__(
        self,
        context: SearchContext,
        trace: Trace,
        options: SearchOptions,
        allowed: Collection[str] | None,
        only: Collection[PathName] | None = None,
        stage: str = "paths",
    ) -> None:
        """Runs the request's paths, or those of them in ``only``; ``stage`` names the timing
        from construction until every result is in."""
        self._context, self._trace, self._options, self._allowed = context, trace, options, allowed
        names = options.active_paths()
        if options.mode is Mode.MULTISIGNAL and PathName.BM25 not in names:
            names.append(PathName.BM25)  # S_text is the document's full-text match
        names = [name for name in names if only is None or name in only]
        self._pending = names if allowed != set() else []  # nothing is allowed: nothing to run
        self._futures: dict[PathName, Future[list[Candidate]]] = {}
        self._started = time.perf_counter()
        self._stage = stage

    def start(self, paths: Mapping[PathName, CandidatePath[Q]], query: Q) -> None:
        """Start those of ``paths`` this search runs and has not started yet."""
        for name in [n for n in self._pending if n in paths]:
            self._pending.remove(name)
            self._futures[name] = self._context.executor.submit(self._run, paths[name], query)

    def _run(self, path: CandidatePath[Q], query: Q) -> list[Candidate]:
        with self._trace.stage(f"path:{path.name}"):
            return path.retrieve(self._trace.read, query, self._options.k_over, self._allowed)

    def results(self) -> dict[PathName, list[Candidate]]:
        found = {name: future.result() for name, future in self._futures.items()}
        self._trace.record(self._stage, self._started)
        return found


def _feedback(
    context: SearchContext,
    trace: Trace,
    query: AnalyzedQuery,
    options: SearchOptions,
    allowed: Collection[str] | None,
    ranked: list[_Ranked],
    found: dict[PathName, list[Candidate]],
) -> tuple[list[str], dict[PathName, list[Candidate]]]:
    """Pseudo-relevance feedback: the embeddings of the first ranking's top documents move the
    query vector (``feedback.rocchio``) and the dense paths run again with it. Returns the
    feedback documents and the candidates with the dense paths' replaced."""
    top = list(dict.fromkeys(hit.document_id for hit in ranked))[: options.feedback_documents()]
    records = trace.read(Query.FEEDBACK_VECTORS, {"document_ids": top})
    vectors = [record["embedding"] for record in records]
    moved = replace(query, vector=rocchio(query.vector, vectors, options.feedback_weight))
    dense = _Paths(context, trace, options, allowed, only=DENSE_PATHS, stage="feedback paths")
    dense.start(DENSE_PATHS, moved)
    return [record["document_id"] for record in records], {**found, **dense.results()}


def _ranking(found: Mapping[PathName, list[Candidate]], options: SearchOptions) -> list[_Ranked]:
    """Best chunk (or document) per path → normalise per path → fuse → hits, best first."""
    keyed = _keyed(found, document_level=options.document_level)
    normalised = _normalised_by_path(keyed, options)
    return _rank(_fuse(normalised, options), keyed, normalised, explain=options.explain)


def _keyed(
    found: Mapping[PathName, list[Candidate]], *, document_level: bool
) -> dict[str, dict[str, Candidate]]:
    """Each path's candidates by the id the ranking is about: the chunk, or at document level
    the document, through its best chunk in that path (MaxP per path before fusion, so that a
    document's several chunks do not crowd out other documents when the path is normalised)."""
    keyed: dict[str, dict[str, Candidate]] = {}
    for path, candidates in found.items():
        rows: dict[str, Candidate] = {}
        for candidate in candidates:  # best first
            rows.setdefault(
                candidate.document_id if document_level else candidate.chunk_id, candidate
            )
        keyed[str(path)] = rows
    return keyed


def _fuse(
    normalised: Mapping[str, dict[str, float]], options: SearchOptions
) -> dict[str, FusedScore]:
    """Id → fused score over the paths that take part in the ranking (in multisignal mode BM25
    may have run only for S_text)."""
    ranking = {str(path) for path in options.active_paths()}
    scores = {path: values for path, values in normalised.items() if path in ranking}
    weights = {str(path): weight for path, weight in options.path_weights().items()}
    return fuse(scores, options.fusion, weights, options.rrf_k)


def _rank(
    fused: Mapping[str, FusedScore],
    keyed: Mapping[str, Mapping[str, Candidate]],
    normalised: Mapping[str, dict[str, float]],
    *,
    explain: bool,
) -> list[_Ranked]:
    """Hits, best first. A document hit shows the chunk of the path that contributed most.
    Each path's part in a hit is only written out when ``explain`` asks for it: for the few
    hundred candidates of a search that costs more than the fusion itself."""
    hits: list[_Ranked] = []
    for key, score in fused.items():
        parts = score.contributions  # one per path that found it
        strongest = next(iter(parts)) if len(parts) == 1 else max(parts, key=lambda p: parts[p])
        shown = keyed[strongest][key]
        hits.append(
            _Ranked(
                chunk_id=shown.chunk_id,
                document_id=shown.document_id,
                score=score.score,
                paths=_explanation(key, score, keyed, normalised) if explain else {},
            )
        )
    hits.sort(key=lambda hit: (-hit.score, hit.chunk_id))
    return hits


def _explanation(
    key: str,
    score: FusedScore,
    keyed: Mapping[str, Mapping[str, Candidate]],
    normalised: Mapping[str, dict[str, float]],
) -> dict[str, PathScore]:
    return {
        path: PathScore(
            raw=keyed[path][key].score,
            normalised=normalised[path][key],
            rank=rank,
            contribution=score.contributions.get(path, 0.0),
        )
        for path, rank in score.ranks.items()
    }


def _normalisation(options: SearchOptions) -> Normalisation:
    # One path alone keeps its raw score: normalising a single list would turn every top hit
    # into 1.0 and make thresholds meaningless.
    return Normalisation.NONE if options.mode in SINGLE_PATH_MODES else options.normalisation


def _normalised_by_path(
    keyed: Mapping[str, Mapping[str, Candidate]], options: SearchOptions
) -> dict[str, dict[str, float]]:
    method = _normalisation(options)
    return {
        path: normalise({key: c.score for key, c in candidates.items()}, method)
        for path, candidates in keyed.items()
    }


def _multisignal(
    trace: Trace,
    query: AnalyzedQuery,
    options: SearchOptions,
    ranked: list[_Ranked],
    found: Mapping[PathName, list[Candidate]],
) -> list[_Ranked]:
    """Score the candidate documents with the five signals of seed 002.

    The pool is the documents of the fused candidates (up to ``k_over``) plus every document
    of a detected entity (entity boosting: they join whatever their vector score).
    """
    pool = [hit.document_id for hit in ranked[: options.k_over]]
    pool += [c.document_id for c in found.get(PathName.ENTITY, [])]
    pool = list(dict.fromkeys(pool))
    by_document = {hit.document_id: hit for hit in ranked}
    s_text = _document_text_scores(found.get(PathName.BM25, []))
    exact = query.exact_entity_ids
    records = trace.read(
        Query.DOCUMENT_SIGNALS,
        {"document_ids": pool, "vector": query.vector, "exact_entity_ids": exact},
    )
    weights = SignalWeights(**options.signal_weights.model_dump())
    scored: list[_Ranked] = []
    for record in records:
        document_id = record["document_id"]
        signals = DocumentSignals(
            s_doc=max(0.0, float(record["s_doc"])),
            s_segment=None if record["s_segment"] is None else max(0.0, record["s_segment"]),
            s_entity=entity_coverage(record["matched_entities"], exact),
            s_triple=max(0.0, float(record["s_triple"])),
            s_text=s_text.get(document_id, 0.0),
        )
        breakdown = score_document(signals, weights)
        fused = by_document.get(document_id)
        scored.append(
            _Ranked(
                chunk_id=record["best_chunk_id"] or (fused.chunk_id if fused else ""),
                document_id=document_id,
                score=breakdown.score,
                paths=fused.paths if fused else {},
                signals=Signals.from_breakdown(breakdown, record["matched_entities"]),
            )
        )
    scored.sort(key=lambda hit: (-hit.score, hit.document_id))
    return scored


def _document_text_scores(bm25: list[Candidate]) -> dict[str, float]:
    """S_text: a document's best BM25 chunk score, min-max normalised over the candidates."""
    best: dict[str, float] = {}
    for candidate in bm25:
        best[candidate.document_id] = max(best.get(candidate.document_id, 0.0), candidate.score)
    return normalise(best, Normalisation.MIN_MAX)


def _hydrate(trace: Trace, ranked: list[_Ranked]) -> list[Hit]:
    if not ranked:
        return []
    records = trace.read(Query.HYDRATE_CHUNKS, {"chunk_ids": [hit.chunk_id for hit in ranked]})
    details = {record["chunk_id"]: record for record in records}
    hits: list[Hit] = []
    for hit in ranked:
        detail = details.get(hit.chunk_id)
        hits.append(
            Hit(
                rank=len(hits) + 1,
                score=hit.score,
                document_id=hit.document_id,
                chunk_id=hit.chunk_id,
                title=detail["title"] if detail else "",
                text=detail["text"] if detail else "",
                n_tokens=detail["n_tokens"] if detail else 0,
                paths=hit.paths,
                signals=hit.signals,
            )
        )
    return hits
