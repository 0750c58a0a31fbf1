"""The tuning replay ranks exactly as the engine's own best chunk → normalise → fuse does."""

from __future__ import annotations

import random

import pytest

from service.evaluation.tune import Config, Replay
from service.retrieval import pipeline
from service.retrieval.types import Candidate, PathName, SearchOptions


def candidates(seed: int) -> dict[str, list[tuple[str, str, float]]]:
    rng = random.Random(seed)
    found: dict[str, list[tuple[str, str, float]]] = {}
    for path, scale in (("dense", 1.0), ("bm25", 20.0), ("tfidf", 8.0)):
        chunks = rng.sample(range(60), 40)
        rows = [(f"c{c:02d}", f"d{c // 3:02d}", round(rng.random() * scale, 3)) for c in chunks]
        found[path] = sorted(rows, key=lambda row: (-row[2], row[0]))
    return found


def engine(found: dict[str, list[tuple[str, str, float]]], options: SearchOptions) -> list[str]:
    paths = {
        PathName(path): [Candidate(c, d, s) for c, d, s in rows[: options.k_over]]
        for path, rows in found.items()
        if PathName(path) in options.active_paths()
    }
    ranked = pipeline._ranking(paths, options)
    return [hit.document_id for hit in ranked[: options.k]]


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize(
    "config",
    [
        Config(("dense", "bm25"), "min_max", "weighted_sum", (("dense", 0.6), ("bm25", 0.4)), 30),
        Config(
            ("dense", "bm25", "tfidf"),
            "z_score",
            "weighted_sum",
            (("dense", 1.0), ("bm25", 0.5), ("tfidf", 0.2)),
            40,
        ),
        Config(("dense", "bm25"), "l2", "weighted_sum", (("dense", 1.0), ("bm25", 1.0)), 20),
        Config(
            ("dense", "bm25", "tfidf"),
            "none",
            "rrf",
            (("dense", 1.5), ("bm25", 1.0), ("tfidf", 0.5)),
            40,
            rrf_k=10,
        ),
    ],
)
def test_the_replay_matches_the_engine(seed: int, config: Config) -> None:
    found = candidates(seed)
    options = SearchOptions(
        query="q",
        level="document",
        k=10,
        k_over=config.k_over,
        paths=[PathName(p) for p in config.paths],
        normalisation=config.normalisation if config.fusion != "rrf" else "min_max",
        fusion=config.fusion,
        weights={PathName(p): w for p, w in config.weights},
        rrf_k=config.rrf_k,
    )
    replay = Replay("x", {}, {"q": found}, {})
    assert replay.rank("q", config, k=10) == engine(found, options)


def test_the_spec_is_an_eval_condition() -> None:
    config = Config(("dense", "bm25"), "z_score", "weighted_sum", (("dense", 0.6), ("bm25", 0.4)))
    assert config.spec() == (
        "hybrid@paths=dense+bm25;k_over=100;normalisation=z_score;weights=dense:0.6+bm25:0.4"
    )


def test_feedback_replay_moves_the_query_as_the_engine_does() -> None:
    import numpy as np

    from service.evaluation.tune import Vectors, with_feedback
    from service.retrieval.feedback import rocchio

    rng = np.random.default_rng(3)

    def unit(rows: int) -> np.ndarray:
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
    found = {"bm25": [(f"d{i:02d}#0", f"d{i:02d}", 12.0 - i) for i in range(12)]}
    found |= vectors.dense(query, 12)
    # Exact scores, best first, each chunk with its own document.
    assert [row[2] for row in found["dense"]] == sorted(
        (row[2] for row in found["dense"]), reverse=True
    )
    assert all(chunk.startswith(document) for chunk, document, _ in found["dense"])
    config = Config(("dense", "bm25", "doc_dense"), "l2", "weighted_sum",
                    (("dense", 0.7), ("bm25", 0.3), ("doc_dense", 0.2)), 12)  # fmt: skip
    replay = Replay("x", {}, {"q": found}, {})
    top = replay.rank("q", config, k=3)
    fed = with_feedback(replay, vectors, config, documents=3, weight=0.3)
    moved = rocchio(query.tolist(), [vectors.documents[int(d[1:])] for d in top], 0.3)
    assert fed.queries["q"]["dense"] == vectors.dense(np.asarray(moved), 12)["dense"]
    assert fed.queries["q"]["bm25"] == found["bm25"]  # lexical paths untouched
    unmoved = with_feedback(replay, vectors, config, documents=3, weight=0.0)
    assert unmoved.rank("q", config) == replay.rank("q", config)
