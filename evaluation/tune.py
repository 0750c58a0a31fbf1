"""Tuning on train/dev splits only: fusion, weights and ``k_over`` chosen on cached candidates.

``collect`` runs every candidate path of the engine once per query (``analyse`` and the path
classes of ``service.retrieval``, at a deep ``k_max``) against the dataset's evaluation graph, and
stores the candidates with the qrels and the in-memory references' per-query NDCG@10 (plain
hybrid, rank-bm25, MiniLM, RRF). ``grid`` then replays normalisation and fusion offline for many
configurations with the engine's own ``normalise`` and the fusion formulas of
``service.retrieval.fusion`` (re-implemented lean here; a unit test checks they agree), so that a
grid of hundreds of settings costs seconds per setting instead of a Neo4j run each. Truncating a
deep candidate list to ``k_over`` stands for fetching ``k_over``; the chosen settings are then
confirmed by ``anchorgraph eval`` through the real ``search()``.

Everything is replayed at document level, as ``search(level="document")`` ranks: each path
keeps a document's best chunk among its first ``k_over`` candidates, then documents are
normalised and fused.

    python -m service.evaluation.tune collect --dataset ../shared/datasets/scifact --split train
    python -m service.evaluation.tune grid benchmarks/out/tune/scifact-train.json.gz \\
        benchmarks/out/tune/nfcorpus-dev.json.gz

``feedback`` replays pseudo-relevance feedback on top of the engine's default document-level
setting: for each (documents, weight) the query vector moves towards the first ranking's top
documents (``service.retrieval.feedback.rocchio``) and the dense paths are scored again exactly,
in memory, from every chunk and document vector of the evaluation graph (fetched once into
``<cache>.vectors.npz``, with the queries embedded as the engine embeds them).

    python -m service.evaluation.tune feedback benchmarks/out/tune/scifact-train.json.gz \\
        benchmarks/out/tune/nfcorpus-dev.json.gz
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from rich.console import Console

from service.evaluation.datasets import Qrels
from service.evaluation.metrics import NDCG10, RECALL100, aggregate, mean, per_query
from service.retrieval.normalise import Normalisation, normalise

TUNE_DIR = Path("benchmarks/out/tune")
ALL_PATHS = ("dense", "bm25", "tfidf", "metadata", "entity", "doc_dense", "doc_bm25")
# A path's candidates: (chunk id, document id, raw score), best first.
Candidates = list[tuple[str, str, float]]


# --- collect ------------------------------------------------------------------------------------
def collect(
    dataset: Path,
    split_name: str,
    *,
    k_max: int,
    entities: bool,
    out: Path,
    console: Console,
    max_queries: int | None = None,
) -> Path:
    """Deep candidates of every path for every query, and the references, into ``out``."""
    from loaders.entities import EntityExtractor
    from service.app import default_embedder
    from service.evaluation import conditions as conds
    from service.evaluation.datasets import load_split
    from service.evaluation.run import EvalConfig, Heartbeat, eval_server
    from service.graph.driver import connect
    from service.graph.queries import Query
    from service.retrieval.analysis import analyse, embed, prepare
    from service.retrieval.paths import PATHS
    from service.retrieval.pipeline import SearchContext, Trace
    from service.retrieval.types import PathName

    split = load_split(dataset, split_name, max_queries=max_queries)
    config = EvalConfig(dataset=dataset, split=split_name, keep_server=True, entities=entities)
    heartbeat = Heartbeat(console)
    queries: dict[str, dict[str, Candidates]] = {}
    signals: dict[str, dict[str, Any]] = {}
    with eval_server(config, split.name, console) as (settings, _):
        embedder = default_embedder(settings)
        spacy_model = (settings.spacy_model or None) if entities else None
        extractor = EntityExtractor(spacy_model)
        with connect(settings) as driver:
            count = driver.execute_query("MATCH (d:Document) RETURN count(d) AS n").records[0]
            if count["n"] != len(split.corpus):
                raise RuntimeError(
                    f"The evaluation graph holds {count['n']} documents, not the "
                    f"{len(split.corpus)} of {split.name}: run `anchorgraph eval` on it first."
                )
            context = SearchContext(driver, embedder, extractor, settings.neo4j_database)
            try:
                for number, query in enumerate(split.queries, start=1):
                    trace = Trace(context)
                    lexical = prepare(query.text, extractor)
                    analysed = analyse(embed(lexical, embedder), trace.read)
                    found = {
                        str(path): [
                            (c.chunk_id, c.document_id, c.score)
                            for c in PATHS[PathName(path)].retrieve(
                                trace.read, analysed, k_max, None
                            )
                        ]
                        for path in ALL_PATHS
                    }
                    queries[query.id] = found
                    pool = list(dict.fromkeys(d for rows in found.values() for _, d, _ in rows))
                    exact = analysed.exact_entity_ids
                    parameters = {"document_ids": pool, "vector": analysed.vector}
                    parameters["exact_entity_ids"] = exact
                    records = trace.read(Query.DOCUMENT_SIGNALS, parameters)
                    signals[query.id] = {
                        "exact": exact,
                        "documents": {
                            r["document_id"]: [
                                float(r["s_doc"]),
                                None if r["s_segment"] is None else float(r["s_segment"]),
                                float(r["s_triple"]),
                                list(r["matched_entities"]),
                            ]
                            for r in records
                        },
                    }
                    heartbeat(f"collect {number}/{len(split.queries)}")
            finally:
                context.close()
            references = _previous_references(out, split.qrels)
            if references is None:
                resources = conds.Resources(split, context, embedder, settings.cache_dir / "eval")
                references = {
                    name: _reference_ndcg(conds.build(name, resources), split)
                    for name in ("plain-hybrid", "mem-bm25", "mem-minilm", "mem-rrf")
                }
    payload = {
        "dataset": split.name,
        "split": split.split,
        "k_max": k_max,
        "entities": entities,
        "qrels": split.qrels,
        "references": references,
        "queries": queries,
        "signals": signals,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(out, "wt", encoding="utf-8") as handle:
        json.dump(payload, handle)
    return out


def _previous_references(path: Path, qrels: Qrels) -> dict[str, dict[str, float]] | None:
    """The in-memory references of an earlier cache of the same queries (they do not depend
    on the graph), to save recomputing them."""
    if not path.exists():
        return None
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        data = json.load(handle)
    same = set(data.get("qrels", {})) == set(qrels)
    references: dict[str, dict[str, float]] | None = data.get("references") if same else None
    return references


def _reference_ndcg(condition: Any, split: Any) -> dict[str, float]:
    rankings = {q.id: [r.doc_id for r in condition.rank(q.id, q.text)] for q in split.queries}
    return per_query(split.qrels, rankings)[NDCG10]


# --- replay -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Config:
    """One document-level setting, as ``SearchOptions`` would carry it."""

    paths: tuple[str, ...] = ("dense", "bm25")
    normalisation: str = "min_max"
    fusion: str = "weighted_sum"  # weighted_sum | rrf
    weights: tuple[tuple[str, float], ...] = (("dense", 1.0), ("bm25", 1.0))
    k_over: int = 100
    rrf_k: int = 60
    mode: str = "hybrid"  # hybrid | multisignal
    # Multi-signal weights (doc, segment, entity, triple, text); seed 002's by default.
    signal_weights: tuple[float, float, float, float, float] = (0.25, 0.30, 0.20, 0.15, 0.10)

    def weight(self, path: str) -> float:
        return dict(self.weights).get(path, 1.0)

    def spec(self) -> str:
        """The ``anchorgraph eval`` condition spec."""
        weights = "+".join(f"{p}:{w:g}" for p, w in self.weights if p in self.paths)
        parts = [f"paths={'+'.join(self.paths)}", f"k_over={self.k_over}"]
        if self.fusion == "rrf":
            parts += ["fusion=rrf", f"rrf_k={self.rrf_k}"]
        else:
            parts.append(f"normalisation={self.normalisation}")
        parts.append(f"weights={weights}")
        if self.mode == "multisignal":
            names = ("doc", "segment", "entity", "triple", "text")
            pairs = "+".join(f"{n}:{w:g}" for n, w in zip(names, self.signal_weights, strict=True))
            parts.append(f"signal_weights={pairs}")
        return f"{self.mode}@" + ";".join(parts)


@dataclass
class Replay:
    """One dataset's cached candidates, with memoised normalised lists."""

    name: str
    qrels: Qrels
    queries: dict[str, dict[str, Candidates]]
    references: dict[str, dict[str, float]]
    signals: dict[str, dict[str, Any]] = field(default_factory=dict)
    _memo: dict[tuple[Any, ...], dict[str, float]] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> Replay:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            data = json.load(handle)
        queries = {
            q: {p: [(c, d, float(s)) for c, d, s in rows] for p, rows in paths.items()}
            for q, paths in data["queries"].items()
        }
        name = f"{data['dataset']}-{data['split']}"
        return cls(name, data["qrels"], queries, data["references"], data.get("signals", {}))

    def normalised(self, query_id: str, path: str, config: Config) -> dict[str, float]:
        """Key (chunk or document id) → normalised score of one path, memoised."""
        key = (query_id, path, config.k_over, config.normalisation)
        if key not in self._memo:
            if len(self._memo) > 50_000:  # bounded: a grid varies these slowly
                self._memo.clear()
            rows = self.queries[query_id].get(path, [])[: config.k_over]
            scores: dict[str, float] = {}
            for _, document, score in rows:  # best first: the first is the best chunk
                scores.setdefault(document, score)
            method = Normalisation(config.normalisation)
            self._memo[key] = normalise(scores, method) if config.fusion != "rrf" else scores
        return self._memo[key]

    def rank(self, query_id: str, config: Config, k: int = 100) -> list[str]:
        """Document ids, best first, as ``search(level="document")`` would return them."""
        if config.mode == "multisignal":
            return self.multisignal(query_id, config)[:k]
        return self.fused_documents(query_id, config, k)

    def multisignal(self, query_id: str, config: Config) -> list[str]:
        """``pipeline._multisignal``: the pool is the fused ranking's first ``k_over`` documents
        plus the entity path's; each scores ``Σ w·S`` over the cached signals."""
        found = self.queries[query_id]
        pool = self.fused_documents(query_id, config, config.k_over)
        pool += [d for _, d, _ in found.get("entity", [])[: config.k_over]]
        best_text: dict[str, float] = {}
        for _, document, score in found.get("bm25", [])[: config.k_over]:
            best_text[document] = max(best_text.get(document, 0.0), score)
        s_text = normalise(best_text, Normalisation.MIN_MAX)
        cached = self.signals[query_id]
        exact = set(cached["exact"])
        w_doc, w_segment, w_entity, w_triple, w_text = config.signal_weights
        scores: dict[str, float] = {}
        for document in dict.fromkeys(pool):
            if document not in cached["documents"]:
                continue
            s_doc, s_segment, s_triple, matched = cached["documents"][document]
            s_doc = max(0.0, s_doc)
            s_segment = s_doc if s_segment is None else max(0.0, s_segment)
            s_entity = len(exact.intersection(matched)) / len(exact) if exact else 0.0
            scores[document] = math.fsum(
                (
                    w_doc * s_doc,
                    w_segment * s_segment,
                    w_entity * s_entity,
                    w_triple * max(0.0, s_triple),
                    w_text * s_text.get(document, 0.0),
                )
            )
        return sorted(scores, key=lambda d: (-scores[d], d))

    def fused_documents(self, query_id: str, config: Config, k: int) -> list[str]:
        lists = {p: self.normalised(query_id, p, config) for p in config.paths}
        fused = fuse_lean(lists, config)
        return sorted(fused, key=lambda key: (-fused[key], key))[:k]

    def evaluate(self, config: Config) -> dict[str, dict[str, float]]:
        rankings = {q: self.rank(q, config) for q in self.queries}
        return per_query(self.qrels, rankings)


def fuse_lean(lists: Mapping[str, Mapping[str, float]], config: Config) -> dict[str, float]:
    """``service.retrieval.fusion.fuse`` for weighted_sum and rrf, without the explanations:
    ``Σ w_p·s_p`` or ``Σ w_p / (k + rank_p)`` with ranks by (score desc, id asc)."""
    fused: dict[str, float] = {}
    for path, scores in lists.items():
        weight = config.weight(path)
        if config.fusion == "rrf":
            ordered = sorted(scores, key=lambda key: (-scores[key], key))
            for position, key in enumerate(ordered, start=1):
                fused[key] = fused.get(key, 0.0) + weight / (config.rrf_k + position)
        else:
            for key, score in scores.items():
                fused[key] = fused.get(key, 0.0) + weight * score
    return fused


# --- grid ---------------------------------------------------------------------------------------
def default_grid() -> Iterable[Config]:
    """The settings ``grid`` replays.

    Weighted sums: dense against one lexical path (chunk or whole-document BM25) with convex
    weights, alone or beside the document paths and the other paths at small weights; three
    normalisations; three candidate depths. RRF with three ``k``. Multi-signal: the engine's
    pool (default path weights) with signal weights around seed 002's.
    """
    extra = {
        "bm25": (0.1, 0.2),
        "doc_dense": (0.2, 0.4),
        "tfidf": (0.2,),
        "metadata": (0.5,),
        "entity": (0.25,),
    }
    path_sets: list[tuple[str, tuple[str, ...]]] = [
        ("bm25", ("dense", "bm25")),
        ("doc_bm25", ("dense", "doc_bm25")),
        ("doc_bm25", ("dense", "doc_bm25", "bm25")),
        ("doc_bm25", ("dense", "doc_dense", "doc_bm25")),
        ("doc_bm25", ("dense", "doc_dense", "doc_bm25", "bm25")),
        ("doc_bm25", ALL_PATHS),
    ]
    for k_over, (lexical, paths) in itertools.product((100, 200, 400), path_sets):
        others = [p for p in paths if p not in ("dense", lexical)]
        for normalisation in ("min_max", "z_score", "l2"):
            for dense in (0.5, 0.6, 0.7, 0.8):
                base = (("dense", dense), (lexical, round(1 - dense, 2)))
                for combo in itertools.product(*(extra[p] for p in others)):
                    weights = base + tuple(zip(others, combo, strict=True))
                    yield Config(paths, normalisation, "weighted_sum", weights, k_over)
        for rrf_k, dense in itertools.product((10, 30, 60), (1.0, 1.5)):
            weights = (("dense", dense), (lexical, 1.0), *((p, 0.5) for p in others))
            yield Config(paths, "none", "rrf", weights, k_over, rrf_k)
    default_weights = (("dense", 1.0), ("bm25", 1.0), ("tfidf", 0.5), ("metadata", 0.5),
                       ("entity", 0.25), ("doc_dense", 1.0), ("doc_bm25", 1.0))  # fmt: skip
    for normalisation, k_over in itertools.product(("min_max", "z_score"), (100, 200)):
        for doc, segment, text in itertools.product((0.1, 0.25), (0.2, 0.3), (0.1, 0.2, 0.3, 0.4)):
            yield Config(
                ALL_PATHS, normalisation, "weighted_sum", default_weights, k_over,
                mode="multisignal", signal_weights=(doc, segment, 0.2, 0.15, text),
            )  # fmt: skip


@dataclass(frozen=True)
class Scored:
    config: Config
    ndcg: dict[str, float]  # dataset → mean NDCG@10
    recall: dict[str, float]
    margin: dict[str, float]  # dataset → NDCG@10 - plain hybrid's

    @property
    def worst_margin(self) -> float:
        return min(self.margin.values())


def run_grid(
    replays: Sequence[Replay], configs: Iterable[Config], console: Console
) -> list[Scored]:
    from service.evaluation.run import Heartbeat

    heartbeat = Heartbeat(console)
    plain = {r.name: mean(r.references["plain-hybrid"]) for r in replays}
    scored: list[Scored] = []
    for number, config in enumerate(configs, start=1):
        values = {r.name: aggregate(r.evaluate(config)) for r in replays}
        ndcg = {name: v[NDCG10] for name, v in values.items()}
        scored.append(
            Scored(
                config,
                ndcg,
                {name: v[RECALL100] for name, v in values.items()},
                {name: ndcg[name] - plain[name] for name in ndcg},
            )
        )
        heartbeat(f"grid {number}: best worst-margin {max(s.worst_margin for s in scored):+.4f}")
    return sorted(scored, key=lambda s: -s.worst_margin)


def table(replays: Sequence[Replay], scored: Sequence[Scored], top: int) -> str:
    names = [r.name for r in replays]
    lines = ["| setting | " + " | ".join(f"{n} NDCG@10 (Δ plain)" for n in names) + " |"]
    lines.append("|---|" + "---:|" * len(names))
    for reference in ("plain-hybrid", "mem-bm25", "mem-minilm", "mem-rrf"):
        cells = [f"{mean(r.references[reference]):.4f}" for r in replays]
        lines.append(f"| `{reference}` (in memory) | " + " | ".join(cells) + " |")
    for s in scored[:top]:
        cells = [f"{s.ndcg[n]:.4f} ({s.margin[n]:+.4f})" for n in names]
        lines.append(f"| `{s.config.spec()}` | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


# --- feedback -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Vectors:
    """Every chunk and document vector of an evaluation graph, and the split's query vectors."""

    chunk_ids: npt.NDArray[np.str_]
    chunk_documents: npt.NDArray[np.str_]
    chunks: npt.NDArray[np.float32]
    document_ids: npt.NDArray[np.str_]
    documents: npt.NDArray[np.float32]
    queries: dict[str, npt.NDArray[np.float32]]

    @classmethod
    def load(cls, path: Path) -> Vectors:
        data = np.load(path)
        queries = dict(zip(data["query_ids"].tolist(), data["queries"], strict=True))
        return cls(
            data["chunk_ids"], data["chunk_documents"], data["chunks"],
            data["document_ids"], data["documents"], queries,
        )  # fmt: skip

    def dense(self, vector: npt.NDArray[np.float64], k: int) -> dict[str, Candidates]:
        """The ``dense`` and ``doc_dense`` candidates of a query vector, scored exactly."""
        chunk_scores = self.chunks @ vector
        document_scores = self.documents @ vector
        chunks = np.argsort(-chunk_scores)[:k]
        documents = np.argsort(-document_scores)[:k]
        return {
            "dense": [
                (str(self.chunk_ids[i]), str(self.chunk_documents[i]), float(chunk_scores[i]))
                for i in chunks
            ],
            "doc_dense": [
                (str(self.document_ids[i]), str(self.document_ids[i]), float(document_scores[i]))
                for i in documents
            ],
        }


def fetch_vectors(replay: Replay, datasets: Path, out: Path, console: Console) -> Path:
    """Read every chunk and document vector from the dataset's evaluation graph and embed the
    split's queries as ``search()`` does; saved to ``out`` (numpy ``.npz``)."""
    from loaders.entities import EntityExtractor
    from service.app import default_embedder
    from service.evaluation.datasets import load_split
    from service.evaluation.run import EvalConfig, eval_server
    from service.graph.driver import connect
    from service.graph.queries import Query, cypher
    from service.retrieval.analysis import embed, prepare

    name, split_name = replay.name.rsplit("-", 1)
    split = load_split(datasets / name, split_name)
    config = EvalConfig(dataset=datasets / name, split=split_name)
    with eval_server(config, split.name, console) as (settings, _):
        with connect(settings) as driver:
            chunks = driver.execute_query(cypher(Query.CHUNK_VECTORS)).records
            documents = driver.execute_query(cypher(Query.DOCUMENT_VECTORS)).records
        embedder = default_embedder(settings)
    extractor = EntityExtractor(None)
    queries = [embed(prepare(q.text, extractor), embedder).vector for q in split.queries]
    np.savez(
        out,
        chunk_ids=np.array([r["id"] for r in chunks]),
        chunk_documents=np.array([r["document_id"] for r in chunks]),
        chunks=np.array([r["embedding"] for r in chunks], dtype=np.float32),
        document_ids=np.array([r["id"] for r in documents]),
        documents=np.array([r["embedding"] for r in documents], dtype=np.float32),
        query_ids=np.array([q.id for q in split.queries]),
        queries=np.array(queries, dtype=np.float32),
    )
    return out


def with_feedback(
    replay: Replay, vectors: Vectors, config: Config, documents: int, weight: float
) -> Replay:
    """The replay as ``search()`` sees it with feedback: the dense paths' candidates are those
    of the query vector moved towards ``config``'s top ``documents`` (first ranking)."""
    from service.retrieval.feedback import rocchio

    depth = max(len(rows) for rows in next(iter(replay.queries.values())).values())
    index = {str(d): i for i, d in enumerate(vectors.document_ids)}
    queries: dict[str, dict[str, Candidates]] = {}
    for query_id, found in replay.queries.items():
        top = replay.rank(query_id, config, k=documents)
        feedback = [vectors.documents[index[d]] for d in top if d in index]
        moved = rocchio(vectors.queries[query_id].tolist(), feedback, weight)
        queries[query_id] = {**found, **vectors.dense(np.asarray(moved), depth)}
    return replace(replay, queries=queries, _memo={})


def feedback_grid(
    replays: Sequence[Replay], vectors: Sequence[Vectors], console: Console
) -> list[tuple[int, float, dict[str, float]]]:
    """(documents, weight, dataset → NDCG@10) over a small grid on the engine's defaults."""
    from service.evaluation.run import Heartbeat
    from service.retrieval.types import DOCUMENT_PATH_WEIGHTS

    heartbeat = Heartbeat(console)
    weights = tuple((str(path), weight) for path, weight in DOCUMENT_PATH_WEIGHTS.items())
    config = Config(ALL_PATHS, "l2", "weighted_sum", weights, k_over=100)
    rows: list[tuple[int, float, dict[str, float]]] = []
    for documents, weight in [
        (0, 0.0),
        *itertools.product((1, 2, 3, 4, 5), (0.1, 0.2, 0.3, 0.5, 0.7, 1.0)),
    ]:
        ndcg = {
            replay.name: aggregate(
                (
                    with_feedback(replay, v, config, documents, weight) if documents else replay
                ).evaluate(config)
            )[NDCG10]
            for replay, v in zip(replays, vectors, strict=True)
        }
        rows.append((documents, weight, ndcg))
        heartbeat(f"feedback {documents} documents, weight {weight}")
    return rows


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m service.evaluation.tune")
    commands = parser.add_subparsers(dest="command", required=True)
    c = commands.add_parser("collect", help="cache deep candidates of one train/dev split")
    c.add_argument("--dataset", type=Path, required=True)
    c.add_argument("--split", required=True)
    c.add_argument("--k-max", type=int, default=400)
    c.add_argument("--entities", action=argparse.BooleanOptionalAction, default=False)
    c.add_argument("--max-queries", type=int, default=None)
    c.add_argument("--out", type=Path, default=None)
    s = commands.add_parser("stop", help="stop a dataset's evaluation Neo4j left running")
    s.add_argument("dataset", help="the dataset name, e.g. scifact")
    g = commands.add_parser("grid", help="replay the grid on cached splits")
    g.add_argument("caches", type=Path, nargs="+")
    g.add_argument("--top", type=int, default=25)
    g.add_argument("--out", type=Path, default=TUNE_DIR / "grid")
    f = commands.add_parser("feedback", help="replay pseudo-relevance feedback on cached splits")
    f.add_argument("caches", type=Path, nargs="+")
    f.add_argument("--datasets", type=Path, default=Path("../shared/datasets"))
    f.add_argument("--out", type=Path, default=TUNE_DIR / "feedback.md")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = _parse(argv)
    console = Console()
    if args.command == "collect":
        if args.split == "test":
            raise SystemExit("Tuning on a test split is not allowed.")
        name = args.dataset.resolve().name
        out = args.out or TUNE_DIR / f"{name}-{args.split}.json.gz"
        path = collect(
            args.dataset,
            args.split,
            k_max=args.k_max,
            entities=args.entities,
            out=out,
            console=console,
            max_queries=args.max_queries,
        )
        console.print(f"Candidates cached in {path}")
        return
    if args.command == "stop":
        from service.evaluation.run import EVAL_ROOT, stop_eval_server

        stopped = stop_eval_server(EVAL_ROOT / args.dataset)
        console.print("stopped" if stopped else "not running")
        return
    replays = [Replay.load(path) for path in args.caches]
    if args.command == "feedback":
        _feedback(args, replays, console)
        return
    configs = list(default_grid())
    console.print(f"{len(configs)} settings on {', '.join(r.name for r in replays)}")
    scored = run_grid(replays, configs, console)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    markdown = table(replays, scored, args.top)
    args.out.with_suffix(".md").write_text(markdown)
    rows = [
        {
            "setting": s.config.spec(),
            "spec": s.config.spec(),
            "ndcg@10": s.ndcg,
            "recall@100": s.recall,
            "margin_vs_plain": s.margin,
        }
        for s in scored
    ]
    args.out.with_suffix(".json").write_text(json.dumps(rows, indent=1))
    console.print(markdown)
    best = scored[0]
    console.print(
        f"best worst-case margin over the plain hybrid: {best.worst_margin:+.4f} "
        f"({best.config.spec()}); {math.fsum(1 for s in scored if s.worst_margin >= 0.02)} "
        "settings reach +0.02 on every split."
    )


def _feedback(args: argparse.Namespace, replays: Sequence[Replay], console: Console) -> None:
    vectors = []
    for path, replay in zip(args.caches, replays, strict=True):
        stored = path.with_name(path.name.removesuffix(".json.gz") + ".vectors.npz")
        if not stored.exists():
            fetch_vectors(replay, args.datasets, stored, console)
        vectors.append(Vectors.load(stored))
    rows = feedback_grid(replays, vectors, console)
    names = [r.name for r in replays]
    base = rows[0][2]
    lines = ["| documents | weight | " + " | ".join(f"{n} NDCG@10 (Δ none)" for n in names) + " |"]
    lines.append("|---:|---:|" + "---:|" * len(names))

    def order(row: tuple[int, float, dict[str, float]]) -> tuple[bool, float]:
        """Settings that lose on no split first, then by their mean gain."""
        gains = [row[2][n] - base[n] for n in names]
        return (min(gains) < 0, -math.fsum(gains) / len(gains))

    for documents, weight, ndcg in sorted(rows, key=order):
        cells = [f"{ndcg[n]:.4f} ({ndcg[n] - base[n]:+.4f})" for n in names]
        lines.append(f"| {documents} | {weight:g} | " + " | ".join(cells) + " |")
    markdown = "\n".join(lines) + "\n"
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(markdown)
    console.print(markdown)


if __name__ == "__main__":
    main()
