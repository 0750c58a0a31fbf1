"""The tuning replay ranks exactly as ``search()`` does on the same candidates: the engine runs
here over a recorded graph that answers every path with the first ``k`` of the cached
candidates, the query's entities and the cached document signals."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from anchorgraph.embedding import HashEmbedder
from anchorgraph.evaluation.tune import CachedQuery, Config, Found, Replay, Vectors, with_feedback
from anchorgraph.graph.queries import Query
from anchorgraph.retrieval.context import SearchContext
from anchorgraph.retrieval.feedback import rocchio
from anchorgraph.retrieval.fusion import Fusion
from anchorgraph.retrieval.normalise import Normalisation
from anchorgraph.retrieval.options import Mode
from anchorgraph.retrieval.paths.base import PathName
from anchorgraph.retrieval.pipeline import search
from anchorgraph.retrieval.stage_options import SignalWeightsIn
from anchorgraph.retrieval.values import AnalyzedQuery, Candidate, DetectedEntity
from anchorgraph.scope import local_id, scoped
from anchorgraph.text.language import Language

D, B, T, DD, DB = (PathName.DENSE, PathName.BM25, PathName.TFIDF, PathName.DOC_DENSE,
                   PathName.DOC_BM25)  # fmt: skip
TEXT = "interleukin levels in beta cells"  # gives the lexical paths a query and terms
PATH_QUERIES = {
    Query.DENSE_CHUNKS: PathName.DENSE,
    Query.BM25_CHUNKS: PathName.BM25,
    Query.TFIDF_CHUNKS: PathName.TFIDF,
    Query.METADATA_CHUNKS: PathName.METADATA,
    Query.ENTITY_CHUNKS: PathName.ENTITY,
    Query.DENSE_DOCUMENTS: PathName.DOC_DENSE,
    Query.BM25_DOCUMENTS: PathName.DOC_BM25,
}


COLLECTION = "x"


def key(local: str) -> str:
    """An id as the graph stores it, in the replay's one collection."""
    return scoped(COLLECTION, local)


def cached_query(seed: int) -> CachedQuery:
    """Forty chunks of twenty documents per path on its own scale, and every document's
    signals; one exact and one semantic entity (every id a key, as the engine passes them)."""
    rng = random.Random(seed)
    found: Found = {}
    for path in PathName:
        scale = {PathName.BM25: 20.0, PathName.TFIDF: 8.0, PathName.DOC_BM25: 15.0}.get(path, 1.0)
        rows = [
            Candidate(key(f"c{c:02d}"), key(f"d{c // 3:02d}"), round(rng.random() * scale, 4))
            for c in rng.sample(range(60), 40)
        ]
        found[path] = sorted(rows, key=lambda c: (-c.score, c.chunk_id))
    signals = {
        key(f"d{d:02d}"): {
            "document_id": key(f"d{d:02d}"),
            "s_doc": rng.uniform(-0.2, 1.0),
            "best_chunk_id": key(f"c{3 * d:02d}"),
            "s_segment": None if d % 7 == 0 else rng.uniform(-0.2, 1.0),
            "matched_entities": [key("e1")] if d % 3 == 0 else [],
            "s_triple": rng.uniform(0.0, 1.0),
        }
        for d in range(20)
    }
    entities = [
        DetectedEntity(id=key("e1"), name="IL-6", type="PROTEIN", how="exact", score=1.0),
        DetectedEntity(id=key("e2"), name="beta cell", type="CELL", how="semantic", score=0.7),
    ]
    query = AnalyzedQuery(
        text=TEXT, fulltext=None, terms=[], identifier_candidates=[], entity_candidates=[],
        vector=[], identifiers=[], entities=entities, language=Language.ENGLISH,
    )  # fmt: skip
    return CachedQuery(query, found, signals)


class RecordedGraph:
    """A graph that answers a search's reads from one cached query, as Neo4j would have: a
    path fetching ``k`` gets the first ``k`` of its deep candidates."""

    def __init__(self, cached: CachedQuery) -> None:
        self._cached = cached

    def read(
        self, query: Query, parameters: Mapping[str, Any] | None = None
    ) -> Sequence[Mapping[str, Any]]:
        parameters = parameters or {}
        if query in PATH_QUERIES:
            candidates = self._cached.found[PATH_QUERIES[query]][: parameters["k"]]
            return [{"candidates": [_row(c) for c in candidates]}]
        if query is Query.DETECT_ENTITIES:
            return [{**e.model_dump(), "keys": [e.id]} for e in self._cached.query.entities]
        if query is Query.DOCUMENT_SIGNALS:
            signals = self._cached.signals
            return [signals[d] for d in parameters["document_ids"] if d in signals]
        if query is Query.COLLECTION_SIZES:
            return [
                {
                    "name": COLLECTION,
                    "chunks": 60,
                    "shard": 0,
                    "languages": [["en", 6]],
                    "ranking": None,
                    "has_links": False,
                    "has_mentions": False,
                    "model": None,
                }
            ]
        if query is Query.HYDRATE_CHUNKS:
            return [{"chunks": []}]  # titles and texts do not rank
        if query is Query.FD_INPUTS:
            return []  # nor does FD* unless a search asks for it
        raise AssertionError(f"the replay does not record {query}")


def _row(candidate: Candidate) -> dict[str, Any]:
    return {
        "chunk_id": candidate.chunk_id,
        "document_id": candidate.document_id,
        "score": candidate.score,
    }


def engine(cached: CachedQuery, config: Config, k: int = 10) -> list[str]:
    """``search()`` itself, over the recorded graph."""
    context = SearchContext(RecordedGraph(cached), HashEmbedder(dimension=8))
    try:
        result = search(context, config.search_options(query=TEXT, k=k))
    finally:
        context.close()
    return [hit.document_id for hit in result.hits]


CONFIGS = [
    Config((D, B), Normalisation.MIN_MAX, Fusion.WEIGHTED_SUM, ((D, 0.6), (B, 0.4)), 30),
    Config((D, B, T), Normalisation.Z_SCORE, Fusion.WEIGHTED_SUM,
           ((D, 1.0), (B, 0.5), (T, 0.2)), 40),
    Config((D, B), Normalisation.L2, Fusion.WEIGHTED_SUM, ((D, 1.0), (B, 1.0)), 20),
    Config((D, DD, DB), Normalisation.L2, Fusion.WEIGHTED_SUM,
           ((D, 0.7), (DD, 0.2), (DB, 0.3)), 25),
    Config((D, B, T), Normalisation.NONE, Fusion.RRF, ((D, 1.5), (B, 1.0), (T, 0.5)), 40,
           rrf_k=10),
    # Multi-signal over every path (the entity path's documents join the pool) ...
    Config(tuple(PathName), Normalisation.MIN_MAX, Fusion.WEIGHTED_SUM,
           tuple((p, 1.0) for p in PathName), 15, mode=Mode.MULTISIGNAL),
    # ... and over two paths without BM25, which the engine runs anyway for S_text.
    Config((D, DB), Normalisation.Z_SCORE, Fusion.WEIGHTED_SUM, ((D, 0.7), (DB, 0.3)), 12,
           mode=Mode.MULTISIGNAL,
           signal_weights=SignalWeightsIn(doc=0.1, segment=0.3, entity=0.2, triple=0.1, text=0.4)),
]  # fmt: skip


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("config", CONFIGS, ids=lambda config: config.spec())
def test_the_replay_ranks_as_search_does(seed: int, config: Config) -> None:
    cached = cached_query(seed)
    replay = Replay("x", "dev", {}, {"q": cached}, {})
    ranked = engine(cached, config)
    assert len(ranked) == 10
    assert [local_id(document) for document in replay.rank("q", config, k=10)] == ranked


def test_the_cache_round_trips_through_json() -> None:
    cached = cached_query(4)
    assert CachedQuery.from_json(json.loads(json.dumps(cached.to_json()))) == cached


def test_the_spec_is_an_eval_condition() -> None:
    config = Config((D, B), Normalisation.Z_SCORE, Fusion.WEIGHTED_SUM, ((D, 0.6), (B, 0.4)))
    assert config.spec() == (
        "hybrid@paths=dense+bm25;k_over=100;normalisation=z_score;weights=dense:0.6+bm25:0.4;"
        "confidence_exponent=0;feedback=0;expand=0;bridge=0"
    )
    rrf = Config((D, B), Normalisation.NONE, Fusion.RRF, ((D, 1.5), (B, 1.0)), 200, rrf_k=30)
    assert rrf.spec() == "hybrid@paths=dense+bm25;k_over=200;fusion=rrf;rrf_k=30;" + (
        "weights=dense:1.5+bm25:1;confidence_exponent=0;feedback=0;expand=0;bridge=0"
    )
    assert (
        Config(mode=Mode.MULTISIGNAL)
        .spec()
        .endswith(
            ";signal_weights=doc:0.25+segment:0.3+entity:0.2+triple:0.15+text:0.1+fd:0;"
            "expand=0;bridge=0"
        )
    )


def test_feedback_replay_moves_the_query_as_the_engine_does() -> None:
    rng = np.random.default_rng(3)

    def unit(rows: int) -> npt.NDArray[np.float32]:
        vectors = rng.standard_normal((rows, 8)).astype(np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    documents = np.array([f"d{i:02d}" for i in range(12)])
    chunk_documents = np.repeat(documents, 2)
    vectors = Vectors(
        chunk_ids=np.array([f"{d}#{i % 2}" for i, d in enumerate(chunk_documents)]),
        chunk_documents=chunk_documents,
        chunks=unit(24),
        document_ids=documents,
        documents=unit(12),
        queries={"q": unit(1)[0]},
    )
    query = vectors.queries["q"].astype(np.float64)
    found: Found = {B: [Candidate(f"d{i:02d}#0", f"d{i:02d}", 12.0 - i) for i in range(12)]}
    found |= vectors.dense(query, 12)
    # Exact scores, best first, each chunk with its own document.
    scores = [c.score for c in found[D]]
    assert scores == sorted(scores, reverse=True)
    assert all(c.chunk_id.startswith(c.document_id) for c in found[D])
    config = Config((D, B, DD), Normalisation.L2, Fusion.WEIGHTED_SUM,
                    ((D, 0.7), (B, 0.3), (DD, 0.2)), 12)  # fmt: skip
    replay = Replay("x", "dev", {}, {"q": CachedQuery(cached_query(0).query, found, {})}, {})
    top = replay.rank("q", config, k=3)
    fed = with_feedback(replay, vectors, config, documents=3, weight=0.3)
    moved = rocchio(query.tolist(), [vectors.documents[int(d[1:])] for d in top], 0.3)
    assert fed.queries["q"].found[D] == vectors.dense(np.asarray(moved), 12)[D]
    assert fed.queries["q"].found[B] == found[B]  # lexical paths untouched
    unmoved = with_feedback(replay, vectors, config, documents=3, weight=0.0)
    assert unmoved.rank("q", config) == replay.rank("q", config)
