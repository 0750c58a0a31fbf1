"""The stages of a search, each a function (or a small ranking-stage class) over typed values.

* ``retrieve``: collections and filters → the search's ``Scope``; query analysis, with every
  candidate path
  started as soon as what it needs is known (lexical paths at once, dense paths once the query
  is embedded, the rest once its entities are found) → ``Retrieved``.
* ``fuse_candidates``: per path, best chunk (or document) → normalise → fuse → ``Ranking``.
* ranking stages: ``Feedback`` (Rocchio: the dense paths again with the query moved towards the
  top documents, and fuse again), ``MultiSignal`` (multi-signal document scoring,
  docs/design.md §2), ``Cut`` (threshold and top k).
* ``hydrate``: the hits' titles and texts → ``Hit``.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import replace
from typing import TypeVar

from anchorgraph.graph.deadline import propagating
from anchorgraph.graph.queries import Query
from anchorgraph.graph.rows import DocumentSignalsRow, HydratedChunk
from anchorgraph.retrieval.analysis import analyse, embed, prepare, query_language
from anchorgraph.retrieval.collections import check_models, search_scope
from anchorgraph.retrieval.context import SearchContext, SearchRun, Trace
from anchorgraph.retrieval.defaults import DEFAULT_NO_MATCH_RULE
from anchorgraph.retrieval.evidence import hit_evidence
from anchorgraph.retrieval.expansion import EXPANSION
from anchorgraph.retrieval.fd_read import Level, fd_of, fd_scores
from anchorgraph.retrieval.feedback import rocchio
from anchorgraph.retrieval.fusion import FusedScore, fuse
from anchorgraph.retrieval.normalise import Normalisation, normalise
from anchorgraph.retrieval.options import Mode, SearchOptions
from anchorgraph.retrieval.paths import DENSE_PATHS, LEXICAL_PATHS, PATHS
from anchorgraph.retrieval.paths.base import CandidatePath, PathName, Reader
from anchorgraph.retrieval.query_weights import dense_confidence, lexical_scale, query_weights
from anchorgraph.retrieval.results import EntityHop, FdScore, Hit, PathScore, Signals, Supporting
from anchorgraph.retrieval.scoring import (
    DocumentSignals,
    SignalWeights,
    entity_coverage,
    score_document,
)
from anchorgraph.retrieval.values import (
    AnalyzedQuery,
    Candidate,
    CollectionSize,
    EmbeddedQuery,
    LexicalQuery,
    Ranked,
    Ranking,
    Retrieved,
    Scope,
)
from anchorgraph.scope import FULL_ACCESS, Access, scoped_all, split_key

SINGLE_PATH_MODES = {Mode.DENSE, Mode.BM25, Mode.TFIDF}
Q = TypeVar("Q", LexicalQuery, EmbeddedQuery, AnalyzedQuery)


# --- retrieve ------------------------------------------------------------------------------------
def retrieve(
    context: SearchContext,
    options: SearchOptions,
    trace: Trace | None = None,
    access: Access = FULL_ACCESS,
) -> Retrieved:
    """Scope (the collections ``access`` lets it read, and the filters), analyse the query and
    run the candidate paths (timings: filter, analyse, each path:<name>, paths).

    Raises:
        NotFound: a requested collection does not exist or ``access`` may not read it.
        ModelMismatch: a collection it reads was embedded with another model.
    """
    trace = trace or Trace(context.graph)
    sizes = _sizes(context, options)
    scope = search_scope(sizes, options.collections, access)
    check_models(sizes, scope.collections, context.embedder.name)
    if options.filters.active and not scope.empty:
        with trace.stage("filter"):
            scope = _filtered(trace.read, options, scope)
    paths = _Paths(context, trace, options, scope)
    with trace.stage("analyse"):
        lexical = prepare(options.query, query_language(options.query, scope))
        paths.start(LEXICAL_PATHS, lexical)  # they run while the model embeds the query
        embedded = embed(lexical, context.embedder)
        paths.start(DENSE_PATHS, embedded)  # they run while the entities are looked up
        query = analyse(embedded, trace.read, scope)
        paths.start(PATHS, query)
    return Retrieved(query=query, found=paths.results(), scope=scope)


def _sizes(context: SearchContext, options: SearchOptions) -> dict[str, CollectionSize]:
    """The graph's collections and sizes, from the context's cache (shared by the searches of a
    few seconds, so its read is not one of this search's round trips), read again when a
    requested collection is not among them: it may have been created since."""
    sizes = context.sizes.get(context.graph.read)
    if options.collections and not set(options.collections) <= sizes.keys():
        sizes = context.sizes.get(context.graph.read, fresh=True)
    return sizes


def _filtered(read: Reader, options: SearchOptions, scope: Scope) -> Scope:
    """The scope narrowed to the documents the filters allow (ids given in the filters are ids
    within the searched collections)."""
    parameters = {
        **options.filters.parameters(),
        "collections": scope.collection_filter,
        "document_ids": scoped_all(scope.collections, options.filters.document_ids) or None,
    }
    records = read(Query.FILTERED_DOCUMENTS, parameters)
    return replace(scope, documents=frozenset(record["id"] for record in records))


class _Paths:
    """The candidate paths of one search, started as soon as what each needs is known."""

    def __init__(
        self,
        context: SearchContext,
        trace: Trace,
        options: SearchOptions,
        scope: Scope,
        only: Collection[PathName] | None = None,
        stage: str = "paths",
    ) -> None:
        """Runs the request's paths, or those of them in ``only``; ``stage`` names the timing
        from construction until every result is in."""
        self._context, self._trace, self._options, self._scope = context, trace, options, scope
        names = options.active_paths()
        if options.mode is Mode.MULTISIGNAL and PathName.BM25 not in names:
            names.append(PathName.BM25)  # S_text is the document's full-text match
        names = [name for name in names if only is None or name in only]
        self._pending = [] if scope.empty else names  # nothing to search: nothing to run
        self._futures: dict[PathName, Future[list[Candidate]]] = {}
        self._started = time.perf_counter()
        self._stage = stage

    def start(self, paths: Mapping[PathName, CandidatePath[Q]], query: Q) -> None:
        """Start those of ``paths`` this search runs and has not started yet."""
        for name in [n for n in self._pending if n in paths]:
            self._pending.remove(name)
            run = propagating(self._run)  # within the request's deadline, if any
            self._futures[name] = self._context.executor.submit(run, paths[name], query)

    def _run(self, path: CandidatePath[Q], query: Q) -> list[Candidate]:
        with self._trace.stage(f"path:{path.name}"):
            return path.retrieve(self._trace.read, query, self._options.k_over, self._scope)

    def results(self) -> dict[PathName, list[Candidate]]:
        found = {name: future.result() for name, future in self._futures.items()}
        self._trace.record(self._stage, self._started)
        return found


# --- fuse ----------------------------------------------------------------------------------------
def fuse_candidates(retrieved: Retrieved, options: SearchOptions) -> Ranking:
    """Best chunk (or document) per path → normalise per path → fuse → hits, best first."""
    return Ranking(
        query=retrieved.query,
        found=retrieved.found,
        hits=rank_candidates(retrieved.found, options, query=retrieved.query),
        lexical_scale=lexical_scale_of(retrieved.found, options),
    )


def lexical_scale_of(found: Mapping[PathName, list[Candidate]], options: SearchOptions) -> float:
    """The factor on the lexical paths' weights (``query_weights.lexical_scale``) from the dense
    path's candidates, keyed as the ranking keys them (at document level, each document by its
    best chunk); 1.0 where ``options.lexical_exponent()`` is 0 or the dense path did not run."""
    if not options.lexical_exponent() or PathName.DENSE not in found:
        return 1.0  # nothing to key
    keyed = _keyed({PathName.DENSE: found[PathName.DENSE]}, document_level=options.document_level)
    return _lexical_scale(keyed[str(PathName.DENSE)], options)


def _lexical_scale(dense: Mapping[str, Candidate] | None, options: SearchOptions) -> float:
    """``lexical_scale_of`` from the dense path's candidates already keyed (``_keyed``)."""
    exponent = options.lexical_exponent()
    if not exponent or not dense:
        return 1.0
    return lexical_scale(dense_confidence(c.score for c in dense.values()), exponent)


def rank_candidates(
    found: Mapping[PathName, list[Candidate]],
    options: SearchOptions,
    signals: Mapping[str, Mapping[str, float]] | None = None,
    signal_weights: Mapping[str, float] | None = None,
    query: AnalyzedQuery | None = None,
) -> list[Ranked]:
    """The fused ranking of the paths' candidates (also what the tuning replay calls).

    ``query``, when given, moves the path weights by what it is made of
    (``query_weights.query_weights``: the dense paths step back for codes) and the dense path's
    confidence moves the lexical paths' (``lexical_scale_of``).

    ``signals`` are more scored lists over the candidates' ids (the priors of
    ``priors.FusedPriors``: FD*, PageRank), normalised and fused like paths with
    ``signal_weights``; they add no candidates (an id no path found is ignored), and each hit's
    share from them is in ``signal_contributions``."""
    keyed = _keyed(found, document_level=options.document_level)
    normalised = _normalised_by_path(keyed, options)
    extra = {
        name: normalise(
            {key: value for key, value in values.items() if _found_by_any(key, keyed)},
            _normalisation(options),
        )
        for name, values in (signals or {}).items()
    }
    scale = _lexical_scale(keyed.get(str(PathName.DENSE)), options)
    fused = _fuse(normalised | extra, options, signal_weights or {}, query, scale)
    return _rank(fused, keyed, normalised, explain=options.explain)


def _found_by_any(key: str, keyed: Mapping[str, Mapping[str, Candidate]]) -> bool:
    return any(key in candidates for candidates in keyed.values())


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
    normalised: Mapping[str, dict[str, float]],
    options: SearchOptions,
    signal_weights: Mapping[str, float],
    query: AnalyzedQuery | None,
    lexical: float,
) -> dict[str, FusedScore]:
    """Id → fused score over the paths that take part in the ranking (in multisignal mode BM25
    may have run only for S_text) and the extra signals."""
    ranking = {str(path) for path in options.active_paths()} | set(signal_weights)
    scores = {path: values for path, values in normalised.items() if path in ranking}
    weights = {
        str(path): weight
        for path, weight in query_weights(options.path_weights(), query, lexical).items()
    }
    if options.mode in SINGLE_PATH_MODES:  # one path alone keeps its raw score, unweighted
        weights = {str(path): 1.0 for path in options.active_paths()}
    return fuse(
        scores, options.fusion_method(), weights | dict(signal_weights), options.fusion.rrf_k
    )


def _rank(
    fused: Mapping[str, FusedScore],
    keyed: Mapping[str, Mapping[str, Candidate]],
    normalised: Mapping[str, dict[str, float]],
    *,
    explain: bool,
) -> list[Ranked]:
    """Hits, best first. A document hit shows the chunk of the path that contributed most.
    Each path's part in a hit is only written out when ``explain`` asks for it: for the few
    hundred candidates of a search that costs more than the fusion itself."""
    hits: list[Ranked] = []
    for key, score in fused.items():
        # One per path that found it, and the extra signals (which find nothing).
        parts = {p: c for p, c in score.contributions.items() if p in keyed and key in keyed[p]}
        strongest = next(iter(parts)) if len(parts) == 1 else max(parts, key=lambda p: parts[p])
        shown = keyed[strongest][key]
        hits.append(
            Ranked(
                chunk_id=shown.chunk_id,
                document_id=shown.document_id,
                score=score.score,
                paths=_explanation(key, score, keyed, normalised) if explain else {},
                signal_contributions={
                    name: share for name, share in score.contributions.items() if name not in keyed
                },
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
        if path in keyed
    }


def _normalisation(options: SearchOptions) -> Normalisation:
    # One path alone keeps its raw score: normalising a single list would turn every top hit
    # into 1.0 and make thresholds meaningless.
    return Normalisation.NONE if options.mode in SINGLE_PATH_MODES else options.fusion.normalisation


def _normalised_by_path(
    keyed: Mapping[str, Mapping[str, Candidate]], options: SearchOptions
) -> dict[str, dict[str, float]]:
    method = _normalisation(options)
    return {
        path: normalise({key: c.score for key, c in candidates.items()}, method)
        for path, candidates in keyed.items()
    }


# --- ranking stages ------------------------------------------------------------------------------
class Feedback:
    """Pseudo-relevance feedback: the embeddings of the first ranking's top documents move the
    query vector (``feedback.rocchio``), the dense paths run again with it, and the candidates
    are fused again."""

    name = "feedback"

    def wanted(self, options: SearchOptions) -> bool:
        return options.feedback_documents() > 0

    def __call__(self, run: SearchRun, ranking: Ranking) -> Ranking:
        options, trace = run.options, run.trace
        documents = dict.fromkeys(hit.document_id for hit in ranking.hits)
        top = list(documents)[: options.feedback_documents()]
        records = trace.read(Query.FEEDBACK_VECTORS, {"document_ids": top})
        vectors = [record["embedding"] for record in records]
        moved = replace(
            ranking.query, vector=rocchio(ranking.query.vector, vectors, options.feedback.weight)
        )
        dense = _Paths(
            run.context, trace, options, run.scope, only=DENSE_PATHS, stage="feedback paths"
        )
        dense.start(DENSE_PATHS, moved)
        found = {**ranking.found, **dense.results()}
        return Ranking(
            query=ranking.query,
            found=found,
            hits=rank_candidates(found, options, query=ranking.query),
            feedback_documents=[record["document_id"] for record in records],
            lexical_scale=lexical_scale_of(found, options),
        )


class MultiSignal:
    """Score the candidate documents with the five signals of docs/design.md §2 (one round
    trip for the signals of the pool, then ``multisignal_ranking``)."""

    name = "multisignal"

    def wanted(self, options: SearchOptions) -> bool:
        return options.mode is Mode.MULTISIGNAL

    def __call__(self, run: SearchRun, ranking: Ranking) -> Ranking:
        query = ranking.query
        parameters = {
            "document_ids": multisignal_pool(ranking, run.options),
            "vector": query.vector,
            "exact_entity_ids": query.exact_entity_ids,
        }
        rows = run.trace.read(Query.DOCUMENT_SIGNALS, parameters)
        fd = {}
        if run.options.signal_weights.fd > 0:  # S_fd: the documents' FD*, through a chunk each
            chunks = {row["best_chunk_id"]: row["document_id"] for row in rows}
            read = fd_scores(run.trace.read, [c for c in chunks if c], "document")
            fd = {chunks[chunk]: score for chunk, score in read.items()}
        return replace(ranking, hits=multisignal_ranking(rows, ranking, run.options, fd))


def multisignal_pool(ranking: Ranking, options: SearchOptions) -> list[str]:
    """The documents multi-signal scoring considers: those of the fused candidates (up to
    ``k_over``) plus every document of a detected entity (entity boosting: they join whatever
    their vector score)."""
    pool = [hit.document_id for hit in ranking.hits[: options.k_over]]
    pool += [c.document_id for c in ranking.found.get(PathName.ENTITY, [])]
    return list(dict.fromkeys(pool))


def multisignal_ranking(
    rows: Sequence[DocumentSignalsRow],
    ranking: Ranking,
    options: SearchOptions,
    fd: Mapping[str, FdScore] | None = None,
) -> list[Ranked]:
    """The pool's documents scored ``Σ w·S`` (``scoring.score_document``) from the rows of
    ``document_signals.cypher``, best first; S_text comes from the BM25 path's candidates and
    S_fd from ``fd`` (document id → FD*; a document without one counts 0.5, the mean)."""
    fd = fd or {}
    by_document = {hit.document_id: hit for hit in ranking.hits}
    s_text = document_text_scores(ranking.found.get(PathName.BM25, []))
    exact = ranking.query.exact_entity_ids
    weights = SignalWeights(**options.signal_weights.model_dump())
    scored: list[Ranked] = []
    for row in rows:
        document_id = row["document_id"]
        signals = DocumentSignals(
            s_doc=max(0.0, float(row["s_doc"])),
            s_segment=None if row["s_segment"] is None else max(0.0, row["s_segment"]),
            s_entity=entity_coverage(row["matched_entities"], exact),
            s_triple=max(0.0, float(row["s_triple"])),
            s_text=s_text.get(document_id, 0.0),
            s_fd=fd[document_id].rescaled if document_id in fd else 0.5,
        )
        breakdown = score_document(signals, weights)
        fused = by_document.get(document_id)
        own_fd = fd.get(document_id)
        scored.append(
            Ranked(
                chunk_id=row["best_chunk_id"] or (fused.chunk_id if fused else ""),
                document_id=document_id,
                score=breakdown.score,
                paths=fused.paths if fused else {},
                signals=Signals.from_breakdown(breakdown, row["matched_entities"]),
                fd=own_fd.model_copy(update={"contribution": breakdown.contributions["fd"]})
                if own_fd
                else None,
            )
        )
    scored.sort(key=lambda hit: (-hit.score, hit.document_id))
    return scored


def document_text_scores(bm25: list[Candidate]) -> dict[str, float]:
    """S_text: a document's best BM25 chunk score, min-max normalised over the candidates."""
    best: dict[str, float] = {}
    for candidate in bm25:
        best[candidate.document_id] = max(best.get(candidate.document_id, 0.0), candidate.score)
    return normalise(best, Normalisation.MIN_MAX)


class Cut:
    """Drop hits below the threshold, keep the top k."""

    name = "cut"

    def wanted(self, options: SearchOptions) -> bool:
        return True

    def __call__(self, run: SearchRun, ranking: Ranking) -> Ranking:
        threshold = run.options.threshold
        hits = [h for h in ranking.hits if threshold is None or h.score >= threshold]
        return replace(ranking, hits=hits[: run.options.k])


# --- hydrate -------------------------------------------------------------------------------------
def hydrate(
    read: Reader,
    ranked: list[Ranked],
    level: Level = "chunk",
    hydrated: Mapping[str, HydratedChunk] | None = None,
) -> list[Hit]:
    """The hits (and their supporting chunks) with their documents' titles, their chunks' texts
    and the FD* (at ``level``) of those no stage read it for, in one round trip, or none when
    ``hydrated`` (chunks a stage read as ``search/hydrate_chunks.cypher`` reads them, by key)
    holds them all. A hit shows its collection, and every id in it is the id within that
    collection (``anchorgraph.scope.local_id``)."""
    if not ranked:
        return []
    details = dict(hydrated or {})
    supporting = [s.chunk_id for hit in ranked for s in hit.supporting]
    chunk_ids = list(dict.fromkeys([hit.chunk_id for hit in ranked] + supporting))
    missing = [chunk_id for chunk_id in chunk_ids if chunk_id not in details]
    if missing:
        (row,) = read(Query.HYDRATE_CHUNKS, {"chunk_ids": missing})
        details |= {chunk["chunk_id"]: chunk for chunk in row["chunks"]}
    hits: list[Hit] = []
    for hit in ranked:
        detail = details.get(hit.chunk_id)
        collection, document_id = split_key(hit.document_id)
        signals = hit.signals
        if signals is not None:
            matched = [_local(entity) for entity in signals.matched_entities]
            signals = signals.model_copy(update={"matched_entities": matched})
        hits.append(
            Hit(
                rank=len(hits) + 1,
                score=hit.score,
                collection=collection,
                document_id=document_id,
                chunk_id=_local(hit.chunk_id),
                title=detail["title"] if detail else "",
                text=detail["text"] if detail else "",
                n_tokens=detail["n_tokens"] if detail else 0,
                start=detail["start"] if detail else None,
                end=detail["end"] if detail else None,
                pages=detail["pages"] if detail else [],
                ocr_confidence=detail["ocr_confidence"] if detail else None,
                paths=hit.paths,
                signals=signals,
                fd=hit.fd or (fd_of(detail, level) if detail else None),
                supporting=[_hydrated(s, details.get(s.chunk_id)) for s in hit.supporting],
                priors=hit.signal_contributions,
            )
        )
    return hits


def with_evidence(hits: list[Hit], ranking: Ranking, options: SearchOptions) -> list[Hit]:
    """The hydrated hits (``hydrate``: one per ranked hit, in its order), each with what speaks
    for it (``evidence.hit_evidence``) from what the paths found; a hit the expansion placed
    (its score's one part ``EXPANSION``) as a supporting chunk of a matched hit is matched too,
    by the graph (``Evidence.reached``)."""
    keyed = _keyed(ranking.found, document_level=options.document_level)

    def key(hit: Ranked | Supporting) -> str:
        return hit.document_id if options.document_level else hit.chunk_id

    own = [
        hit_evidence(ranking.query, key(ranked), hit.text, keyed, DEFAULT_NO_MATCH_RULE)
        for ranked, hit in zip(ranking.hits, hits, strict=True)
    ]
    reached = {
        key(supporting)
        for ranked, evidence in zip(ranking.hits, own, strict=True)
        if evidence.matched
        for supporting in ranked.supporting
    }
    return [
        hit.model_copy(
            update={
                "evidence": evidence.reached()
                if EXPANSION in ranked.signal_contributions and key(ranked) in reached
                else evidence
            }
        )
        for ranked, hit, evidence in zip(ranking.hits, hits, own, strict=True)
    ]


def _local(key: str) -> str:
    return split_key(key)[1]


def _hydrated(supporting: Supporting, detail: HydratedChunk | None) -> Supporting:
    """A supporting chunk with its title, text, span, pages and its document's length, its ids
    those within its collection."""
    path = [
        hop.model_copy(
            update={
                "from_chunk_id": _local(hop.from_chunk_id),
                "to_chunk_id": _local(hop.to_chunk_id),
            }
            | ({"entity_id": _local(hop.entity_id)} if isinstance(hop, EntityHop) else {})
        )
        for hop in supporting.path
    ]
    update: dict[str, object] = {
        "chunk_id": _local(supporting.chunk_id),
        "document_id": _local(supporting.document_id),
        "path": path,
    }
    if detail is not None:
        update |= {
            "title": detail["title"],
            "text": detail["text"],
            "start": detail["start"],
            "end": detail["end"],
            "pages": detail["pages"],
            "document_tokens": detail["document"]["n_tokens"] or 0,
        }
    return supporting.model_copy(update=update)
