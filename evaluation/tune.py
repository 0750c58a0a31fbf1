"""Tuning on train/dev splits only: fusion, weights and ``k_over`` chosen on cached candidates.

``collect`` runs the engine's ``retrieve`` once per query against the dataset's evaluation graph,
every candidate path at a deep ``k_max``, and stores what it found (the analysed query, each
path's candidates, the ``document_signals.cypher`` row of every document found) with the qrels
and the in-memory references' per-query NDCG@10 (plain hybrid, rank-bm25, MiniLM, RRF). ``grid``
then ranks offline for many settings through the engine's own ranking functions
(``rank_candidates``; ``multisignal_pool`` and ``multisignal_ranking`` over the cached rows), so
that a grid of hundreds of settings needs no Neo4j run each and ranks as ``search()`` would on
those candidates (a unit test checks it against ``search()`` itself). Truncating a deep
candidate list to ``k_over`` stands for fetching ``k_over``; the chosen settings are then
confirmed by ``anchorgraph eval`` through the real ``search()``.

Everything is replayed at document level, as ``search(level="document")`` ranks, and without
pseudo-relevance feedback (so a setting's spec says ``feedback=0``):

    # a BEIR folder:
    python -m anchorgraph.evaluation.tune collect --dataset datasets/scifact --split train
    python -m anchorgraph.evaluation.tune grid benchmarks/out/tune/scifact-train.json.gz \\
        benchmarks/out/tune/nfcorpus-dev.json.gz

``feedback`` replays pseudo-relevance feedback on top of the engine's default document-level
setting: for each (documents, weight) the query vector moves towards the first ranking's top
documents (``rocchio``, as the engine moves it) and the dense paths are scored again exactly, in
memory, from every chunk and document vector of the evaluation graph (fetched once into
``<cache>.vectors.npz`` beside the cache, with the query vectors the cache holds):

    python -m anchorgraph.evaluation.tune feedback benchmarks/out/tune/scifact-train.json.gz \\
        benchmarks/out/tune/nfcorpus-dev.json.gz

Every path is an argument, relative to the current folder; the defaults are under
``benchmarks/out/tune``.
"""

from __future__ import annotations

import argparse
import functools
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

from anchorgraph import Runtime, SearchOptions, open_runtime
from anchorgraph.engine import (
    DOCUMENT_PATH_WEIGHTS,
    AnalyzedQuery,
    Candidate,
    DetectedEntity,
    DocumentSignalsRow,
    ExpandOptions,
    FeedbackOptions,
    Fusion,
    FusionOptions,
    Language,
    Mode,
    Normalisation,
    PathName,
    Query,
    Ranking,
    SchemaMode,
    SignalWeightsIn,
    local_id,
    multisignal_pool,
    multisignal_ranking,
    rank_candidates,
    retrieve,
    rocchio,
)
from anchorgraph.evaluation import conditions as conds
from anchorgraph.evaluation.datasets import BeirSplit, Qrels, load_split
from anchorgraph.evaluation.metrics import NDCG10, RECALL100, aggregate, mean, per_query
from anchorgraph.evaluation.run import (
    EvalConfig,
    EvalError,
    Heartbeat,
    eval_home,
    eval_server,
    stop_eval_server,
)

TUNE_DIR = Path("benchmarks/out/tune")
ALL_PATHS = tuple(PathName)
Found = dict[PathName, list[Candidate]]  # a path's candidates, best first


# --- the cache ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class CachedQuery:
    """One query as ``collect`` found it: everything a document-level ranking is made from."""

    query: AnalyzedQuery
    found: Found  # every path, ``k_max`` deep
    signals: dict[str, DocumentSignalsRow]  # document id → its row, for every document found

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CachedQuery:
        fields = dict(data["query"])
        entities = [DetectedEntity.model_validate(e) for e in fields.pop("entities")]
        # Caches written before languages hold English queries.
        fields["language"] = Language(fields.get("language", Language.ENGLISH))
        found = {
            PathName(path): [Candidate(c, d, float(s)) for c, d, s in rows]
            for path, rows in data["found"].items()
        }
        signals = {row["document_id"]: row for row in data["signals"]}
        return cls(AnalyzedQuery(**fields, entities=entities), found, signals)

    def to_json(self) -> dict[str, Any]:
        query = {**vars(self.query), "entities": [e.model_dump() for e in self.query.entities]}
        found = {
            str(path): [[c.chunk_id, c.document_id, c.score] for c in candidates]
            for path, candidates in self.found.items()
        }
        return {"query": query, "found": found, "signals": list(self.signals.values())}


def collect_query(runtime: Runtime, text: str, k_max: int) -> CachedQuery:
    """Every path's first ``k_max`` candidates for one query, as ``search()`` retrieves them,
    and the multi-signal row of every document they found (any setting's pool is among them)."""
    options = SearchOptions(query=text, level="document", k_over=k_max, paths=list(ALL_PATHS))
    retrieved = retrieve(runtime.search, options)
    found = retrieved.found
    pool = list(dict.fromkeys(c.document_id for rows in found.values() for c in rows))
    parameters = {
        "document_ids": pool,
        "vector": retrieved.query.vector,
        "exact_entity_ids": retrieved.query.exact_entity_ids,
    }
    rows = runtime.graph.read(Query.DOCUMENT_SIGNALS, parameters)
    return CachedQuery(
        retrieved.query, found, {row["document_id"]: DocumentSignalsRow(**row) for row in rows}
    )


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
    """Deep candidates of every path for every query, and the references, into ``out``.

    The graph is the one ``anchorgraph eval`` ingested for the dataset; ``entities`` says how it
    was ingested (it is recorded, nothing here extracts entities)."""
    split = load_split(dataset, split_name, max_queries=max_queries)
    config = EvalConfig(dataset=dataset, split=split_name, keep_server=True, entities=entities)
    heartbeat = Heartbeat(console)
    queries: dict[str, CachedQuery] = {}
    with (
        eval_server(config, split.name, console) as (server, _),
        open_runtime(config.runtime_settings(server), schema=SchemaMode.VERIFY) as runtime,
    ):
        (counts,) = runtime.graph.read(Query.GRAPH_COUNTS)
        if counts["documents"] != len(split.corpus):
            raise EvalError(
                f"The evaluation graph holds {counts['documents']} documents, not the "
                f"{len(split.corpus)} of {split.name}: run `anchorgraph eval` on it first."
            )
        for number, query in enumerate(split.queries, start=1):
            queries[query.id] = collect_query(runtime, query.text, k_max)
            heartbeat(f"collect {number}/{len(split.queries)}")
        references = _previous_references(out, split.qrels)
        if references is None:
            resources = conds.Resources(split, runtime, runtime.settings.cache_dir / "eval")
            references = {
                str(name): _reference_ndcg(conds.build(name, resources), split)
                for name in conds.BASELINES
            }
    payload = {
        "dataset": split.name,
        "split": split.split,
        "k_max": k_max,
        "entities": entities,
        "qrels": split.qrels,
        "references": references,
        "queries": {query_id: cached.to_json() for query_id, cached in queries.items()},
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


def _reference_ndcg(condition: conds.Condition, split: BeirSplit) -> dict[str, float]:
    rankings = {q.id: [r.doc_id for r in condition.rank(q.id, q.text)] for q in split.queries}
    return per_query(split.qrels, rankings)[NDCG10]


# --- replay -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Config:
    """One document-level setting: what ``SearchOptions`` would carry."""

    paths: tuple[PathName, ...] = (PathName.DENSE, PathName.BM25)
    normalisation: Normalisation = Normalisation.MIN_MAX
    fusion: Fusion = Fusion.WEIGHTED_SUM
    weights: tuple[tuple[PathName, float], ...] = ((PathName.DENSE, 1.0), (PathName.BM25, 1.0))
    k_over: int = 100
    rrf_k: int = 60
    mode: Mode = Mode.HYBRID
    # Multi-signal weights; the defaults of docs/design.md §2.
    signal_weights: SignalWeightsIn = field(default_factory=SignalWeightsIn)
    # The lexical paths' scaling by the dense path's confidence (query_weights); 0: none, so
    # that a setting is the weights it names.
    confidence_exponent: float = 0.0

    def search_options(self, query: str = "replay", k: int = 10) -> SearchOptions:
        """The search this setting stands for. No feedback: the ``feedback`` replay moves the
        cached candidates itself; no expansion: the replay is of the fusion, the graph's hops
        are not cached."""
        return SearchOptions(
            query=query,
            mode=self.mode,
            level="document",
            k=k,
            k_over=self.k_over,
            paths=list(self.paths),
            fusion=FusionOptions(
                method=self.fusion,
                normalisation=self.normalisation,
                weights=dict(self.weights),
                rrf_k=self.rrf_k,
                confidence_exponent=self.confidence_exponent,
            ),
            signal_weights=self.signal_weights,
            feedback=FeedbackOptions(documents=0),
            expand=ExpandOptions(links=False, bridges=False),
        )

    def spec(self) -> str:
        """The ``anchorgraph eval`` condition spec."""
        weights = "+".join(f"{p}:{w:g}" for p, w in self.weights if p in self.paths)
        parts = [f"paths={'+'.join(self.paths)}", f"k_over={self.k_over}"]
        if self.fusion is not Fusion.WEIGHTED_SUM:
            parts.append(f"fusion={self.fusion}")
        if self.fusion is Fusion.RRF:
            parts.append(f"rrf_k={self.rrf_k}")  # ranks only: the normalisation does not matter
        else:
            parts.append(f"normalisation={self.normalisation}")
        parts.append(f"weights={weights}")
        if self.mode is Mode.HYBRID:
            parts.append(f"confidence_exponent={self.confidence_exponent:g}")
        if self.mode is Mode.MULTISIGNAL:
            signals = self.signal_weights.model_dump()
            parts.append("signal_weights=" + "+".join(f"{n}:{w:g}" for n, w in signals.items()))
        else:
            parts.append("feedback=0")  # a hybrid document-level search has it on by default
        parts.append("expand=0;bridge=0")  # on by default (default-v4)
        return f"{self.mode}@" + ";".join(parts)


@functools.cache
def _options(config: Config) -> SearchOptions:
    """Built once per setting: the grid ranks every query with each."""
    return config.search_options()


@dataclass(frozen=True)
class Replay:
    """One dataset's cached queries, ranked offline as the engine ranks them."""

    dataset: str
    split: str
    qrels: Qrels
    queries: dict[str, CachedQuery]
    references: dict[str, dict[str, float]]  # condition name → query id → NDCG@10

    @property
    def name(self) -> str:
        return f"{self.dataset}-{self.split}"

    @classmethod
    def load(cls, path: Path) -> Replay:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            data = json.load(handle)
        queries = {q: CachedQuery.from_json(cached) for q, cached in data["queries"].items()}
        return cls(data["dataset"], data["split"], data["qrels"], queries, data["references"])

    def rank(self, query_id: str, config: Config, k: int = 100) -> list[str]:
        """Document ids, best first, as ``search(level="document")`` would return them from
        the paths' first ``k_over`` candidates."""
        cached = self.queries[query_id]
        options = _options(config)
        ran = set(options.active_paths())
        if options.mode is Mode.MULTISIGNAL:
            ran.add(PathName.BM25)  # the engine runs it for S_text whatever the paths
        found = {
            path: candidates[: options.k_over]
            for path, candidates in cached.found.items()
            if path in ran
        }
        hits = rank_candidates(found, options, query=cached.query)
        if options.mode is Mode.MULTISIGNAL and hits:
            ranking = Ranking(query=cached.query, found=found, hits=hits)
            pool = multisignal_pool(ranking, options)
            rows = [cached.signals[document] for document in pool if document in cached.signals]
            hits = multisignal_ranking(rows, ranking, options)
        return [hit.document_id for hit in hits[:k]]

    def evaluate(self, config: Config) -> dict[str, dict[str, float]]:
        # The replay ranks by the graph's keys; the qrels name documents by their ids.
        rankings = {q: [local_id(key) for key in self.rank(q, config)] for q in self.queries}
        return per_query(self.qrels, rankings)


# --- grid ---------------------------------------------------------------------------------------
def default_grid() -> Iterable[Config]:
    """The settings ``grid`` replays.

    Weighted sums: dense against one lexical path (chunk or whole-document BM25) with convex
    weights, alone or beside the document paths and the other paths at small weights; three
    normalisations; three candidate depths. RRF with three ``k``. Multi-signal: the engine's
    pool (default path weights) with signal weights around the defaults of docs/design.md §2.
    """
    dense_path, bm25, doc_bm25 = PathName.DENSE, PathName.BM25, PathName.DOC_BM25
    extra = {
        PathName.BM25: (0.1, 0.2),
        PathName.DOC_DENSE: (0.2, 0.4),
        PathName.TFIDF: (0.2,),
        PathName.METADATA: (0.5,),
        PathName.ENTITY: (0.25,),
    }
    path_sets: list[tuple[PathName, tuple[PathName, ...]]] = [
        (bm25, (dense_path, bm25)),
        (doc_bm25, (dense_path, doc_bm25)),
        (doc_bm25, (dense_path, doc_bm25, bm25)),
        (doc_bm25, (dense_path, PathName.DOC_DENSE, doc_bm25)),
        (doc_bm25, (dense_path, PathName.DOC_DENSE, doc_bm25, bm25)),
        (doc_bm25, ALL_PATHS),
    ]
    normalisations = (Normalisation.MIN_MAX, Normalisation.Z_SCORE, Normalisation.L2)
    for k_over, (lexical, paths) in itertools.product((100, 200, 400), path_sets):
        others = [p for p in paths if p not in (dense_path, lexical)]
        for normalisation in normalisations:
            for dense in (0.5, 0.6, 0.7, 0.8):
                base = ((dense_path, dense), (lexical, round(1 - dense, 2)))
                for combo in itertools.product(*(extra[p] for p in others)):
                    weights = base + tuple(zip(others, combo, strict=True))
                    yield Config(paths, normalisation, Fusion.WEIGHTED_SUM, weights, k_over)
        for rrf_k, dense in itertools.product((10, 30, 60), (1.0, 1.5)):
            weights = ((dense_path, dense), (lexical, 1.0), *((p, 0.5) for p in others))
            yield Config(paths, Normalisation.NONE, Fusion.RRF, weights, k_over, rrf_k)
    default_weights = (
        (PathName.DENSE, 1.0), (PathName.BM25, 1.0), (PathName.TFIDF, 0.5),
        (PathName.METADATA, 0.5), (PathName.ENTITY, 0.25), (PathName.DOC_DENSE, 1.0),
        (PathName.DOC_BM25, 1.0),
    )  # fmt: skip
    for normalisation, k_over in itertools.product(
        (Normalisation.MIN_MAX, Normalisation.Z_SCORE), (100, 200)
    ):
        for doc, segment, text in itertools.product((0.1, 0.25), (0.2, 0.3), (0.1, 0.2, 0.3, 0.4)):
            signals = SignalWeightsIn(doc=doc, segment=segment, entity=0.2, triple=0.15, text=text)
            yield Config(
                ALL_PATHS, normalisation, Fusion.WEIGHTED_SUM, default_weights, k_over,
                mode=Mode.MULTISIGNAL, signal_weights=signals,
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
    heartbeat = Heartbeat(console)
    plain = {r.name: mean(r.references[conds.PLAIN_HYBRID]) for r in replays}
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
    for reference in conds.BASELINES:
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

    def dense(self, vector: npt.NDArray[np.float64], k: int) -> Found:
        """The ``dense`` and ``doc_dense`` candidates of a query vector, scored exactly."""
        chunk_scores = self.chunks @ vector
        document_scores = self.documents @ vector
        chunks = np.argsort(-chunk_scores)[:k]
        documents = np.argsort(-document_scores)[:k]
        return {
            PathName.DENSE: [
                Candidate(
                    str(self.chunk_ids[i]), str(self.chunk_documents[i]), float(chunk_scores[i])
                )
                for i in chunks
            ],
            PathName.DOC_DENSE: [
                Candidate(
                    str(self.document_ids[i]), str(self.document_ids[i]), float(document_scores[i])
                )
                for i in documents
            ],
        }


def fetch_vectors(replay: Replay, out: Path, console: Console) -> Path:
    """Read every chunk and document vector from the dataset's evaluation graph and save them,
    with the cache's query vectors (embedded as ``search()`` embeds), to ``out`` (``.npz``)."""
    # The dataset folder is not read: the server is found by the dataset's name.
    config = EvalConfig(dataset=Path(replay.dataset), split=replay.split)
    with eval_server(config, replay.dataset, console) as (server, _):
        # Every vector of the graph in one read: more than a search's timeout allows.
        settings = server.model_copy(update={"neo4j_query_timeout_s": 600.0})
        with open_runtime(settings, schema=SchemaMode.VERIFY) as runtime:
            chunks = runtime.graph.read(Query.CHUNK_VECTORS)
            documents = runtime.graph.read(Query.DOCUMENT_VECTORS)
    query_ids = list(replay.queries)
    np.savez(
        out,
        chunk_ids=np.array([r["id"] for r in chunks]),
        chunk_documents=np.array([r["document_id"] for r in chunks]),
        chunks=np.array([r["embedding"] for r in chunks], dtype=np.float32),
        document_ids=np.array([r["id"] for r in documents]),
        documents=np.array([r["embedding"] for r in documents], dtype=np.float32),
        query_ids=np.array(query_ids),
        queries=np.array([replay.queries[q].query.vector for q in query_ids], dtype=np.float32),
    )
    return out


def with_feedback(
    replay: Replay, vectors: Vectors, config: Config, documents: int, weight: float
) -> Replay:
    """The replay as ``search()`` sees it with feedback: the dense paths' candidates are those
    of the query vector moved towards ``config``'s top ``documents`` (first ranking)."""
    depth = max(len(rows) for rows in next(iter(replay.queries.values())).found.values())
    index = {str(d): i for i, d in enumerate(vectors.document_ids)}
    queries: dict[str, CachedQuery] = {}
    for query_id, cached in replay.queries.items():
        top = replay.rank(query_id, config, k=documents)
        feedback = [vectors.documents[index[d]] for d in top if d in index]
        moved = rocchio(vectors.queries[query_id].tolist(), feedback, weight)
        dense = vectors.dense(np.asarray(moved), depth)
        queries[query_id] = replace(cached, found={**cached.found, **dense})
    return replace(replay, queries=queries)


def feedback_grid(
    replays: Sequence[Replay], vectors: Sequence[Vectors], console: Console
) -> list[tuple[int, float, dict[str, float]]]:
    """(documents, weight, dataset → NDCG@10) over a small grid on the engine's defaults."""
    heartbeat = Heartbeat(console)
    weights = tuple(DOCUMENT_PATH_WEIGHTS.items())
    config = Config(ALL_PATHS, Normalisation.L2, Fusion.WEIGHTED_SUM, weights, k_over=100)
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


# --- the command line ---------------------------------------------------------------------------
def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m anchorgraph.evaluation.tune")
    commands = parser.add_subparsers(dest="command", required=True)
    c = commands.add_parser("collect", help="cache deep candidates of one train/dev split")
    c.add_argument("--dataset", type=Path, required=True, help="a BEIR folder")
    c.add_argument("--split", required=True, help="a qrels file stem (not test)")
    c.add_argument("--k-max", type=int, default=400, help="candidates per path (default 400)")
    c.add_argument(
        "--entities",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="the graph was ingested with spaCy NER (recorded in the cache)",
    )
    c.add_argument("--max-queries", type=int, default=None)
    c.add_argument(
        "--out", type=Path, default=None, help=f"default: {TUNE_DIR}/<dataset>-<split>.json.gz"
    )
    s = commands.add_parser("stop", help="stop a dataset's evaluation Neo4j left running")
    s.add_argument("dataset", help="the dataset name, e.g. scifact")
    g = commands.add_parser("grid", help="replay the grid on cached splits")
    g.add_argument("caches", type=Path, nargs="+", help="caches written by collect")
    g.add_argument("--top", type=int, default=25)
    g.add_argument(
        "--out",
        type=Path,
        default=TUNE_DIR / "grid",
        help=f"writes OUT.md and OUT.json (default: {TUNE_DIR / 'grid'})",
    )
    f = commands.add_parser("feedback", help="replay pseudo-relevance feedback on cached splits")
    f.add_argument(
        "caches",
        type=Path,
        nargs="+",
        help="caches written by collect; the graph's vectors are kept beside each",
    )
    f.add_argument(
        "--out",
        type=Path,
        default=TUNE_DIR / "feedback.md",
        help=f"default: {TUNE_DIR / 'feedback.md'}",
    )
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
        stopped = stop_eval_server(eval_home(args.dataset))
        console.print("stopped" if stopped else "not running")
        return
    replays = [Replay.load(path) for path in args.caches]
    if args.command == "feedback":
        _feedback(args.caches, replays, args.out, console)
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
        f"({best.config.spec()}); {sum(1 for s in scored if s.worst_margin >= 0.02)} "
        "settings reach +0.02 on every split."
    )


def _feedback(
    caches: Sequence[Path], replays: Sequence[Replay], out: Path, console: Console
) -> None:
    vectors = []
    for path, replay in zip(caches, replays, strict=True):
        stored = path.with_name(path.name.removesuffix(".json.gz") + ".vectors.npz")
        if not stored.exists():
            fetch_vectors(replay, stored, console)
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
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(markdown)
    console.print(markdown)


if __name__ == "__main__":
    main()
