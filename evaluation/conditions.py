"""Conditions: whatever ranks documents for a query. One protocol, one thin class each.

* **ours**: ``search()`` at document level (a document scores by its best chunk), one mode or
  fusion setting per condition;
* **peers**: neo4j-graphrag's ``VectorRetriever`` and ``HybridRetriever`` (naive and linear
  rankers) on the same Neo4j, the same indexes (``chunk_embedding``, ``chunk_text``) and the
  same model; they return chunks, mapped to documents by their best chunk;
* **in-memory references**: rank-bm25 (BM25Okapi), MiniLM alone, a "plain hybrid" (each
  side min-max normalised over its own top 100, 0.5/0.5 sum: the baseline a hybrid retriever
  is usually measured against) and RRF(60) of the
  two, over whole documents (title and text).

A new condition is a ``ConditionName`` member, a class with ``name`` and ``rank``, and one
``@register`` line; the harness does not change. A spec on the command line is a condition name,
optionally followed by ``@key=value;...`` overrides
(``hybrid@k_over=300;paths=dense+bm25;weights=dense:1+bm25:0.5``), or a ``Group`` name
(``ours``, ``fusions``, ``peers``, ``baselines``, ``all``); a list of specs is separated by
commas.
"""

from __future__ import annotations

import hashlib
import re
import time
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

import numpy as np
import numpy.typing as npt

from anchorgraph import Runtime, SearchOptions
from anchorgraph.engine import (
    Embedder,
    Fusion,
    Mode,
    Normalisation,
    PathName,
    SearchContext,
    escape_lucene,
    local_id,
    search,
)
from anchorgraph.evaluation.datasets import BeirSplit

if TYPE_CHECKING:
    import neo4j

# Documents every condition returns: enough for Recall@100.
DEPTH = 100
PLAIN_HYBRID_DEPTH = 100  # "each side min-max normalised over its top 100"
RRF_K = 60


class ConditionName(StrEnum):
    """Every registered condition; a spec starts with one (``hybrid@k_over=400``)."""

    # ours: search() at document level
    COSINE = "cosine"
    BM25 = "bm25"
    TFIDF = "tfidf"
    HYBRID = "hybrid"
    MULTISIGNAL = "multisignal"
    # ours: FD* (docs/design.md §3): the cosine top 20 reranked by FD*, the hybrid with FD*
    # fused as a signal, and the hybrid's top 20 reranked
    FD_RERANK = "fd-rerank"
    HYBRID_FD = "hybrid+fd"
    HYBRID_FD_RERANK = "hybrid+fd-rerank"
    # ours: the expansion along links, entity bridges or both, its supporting documents ranked
    # (expand_rank)
    HYBRID_EXPAND = "hybrid+expand"
    COSINE_EXPAND = "cosine+expand"
    HYBRID_BRIDGE = "hybrid+bridge"
    HYBRID_EXPAND_BRIDGE = "hybrid+expand+bridge"
    HYBRID_WALK = "hybrid+walk"  # Personalized PageRank fused as a prior
    HYBRID_WALK_EXPAND_BRIDGE = "hybrid+walk+expand+bridge"
    # ours: the hybrid with each normalisation × fusion, and RRF
    HYBRID_MIN_MAX_WEIGHTED_SUM = "hybrid:min_max:weighted_sum"
    HYBRID_MIN_MAX_MAX = "hybrid:min_max:max"
    HYBRID_MIN_MAX_MEAN = "hybrid:min_max:mean"
    HYBRID_L2_WEIGHTED_SUM = "hybrid:l2:weighted_sum"
    HYBRID_L2_MAX = "hybrid:l2:max"
    HYBRID_L2_MEAN = "hybrid:l2:mean"
    HYBRID_Z_SCORE_WEIGHTED_SUM = "hybrid:z_score:weighted_sum"
    HYBRID_Z_SCORE_MAX = "hybrid:z_score:max"
    HYBRID_Z_SCORE_MEAN = "hybrid:z_score:mean"
    HYBRID_RRF = "hybrid:rrf"
    # peers: neo4j-graphrag's retrievers
    GRAPHRAG_VECTOR = "graphrag-vector"
    GRAPHRAG_HYBRID_NAIVE = "graphrag-hybrid-naive"
    GRAPHRAG_HYBRID_LINEAR = "graphrag-hybrid-linear"
    GRAPHRAG_HYBRID_LINEAR_UNIONALL = "graphrag-hybrid-linear-unionall"  # a diagnostic
    # in-memory references
    MEM_BM25 = "mem-bm25"
    MEM_MINILM = "mem-minilm"
    PLAIN_HYBRID = "plain-hybrid"
    MEM_RRF = "mem-rrf"


class Group(StrEnum):
    """Names that stand for several conditions in ``--conditions``."""

    OURS = "ours"
    FUSIONS = "fusions"
    PEERS = "peers"
    BASELINES = "baselines"
    DIAGNOSTICS = "diagnostics"
    ALL = "all"


class Ranked(NamedTuple):
    """One ranked document; ``tokens`` is the whitespace-token count of the text the condition
    returns for it (a chunk, or the whole document), ``None`` for "the whole document"."""

    doc_id: str
    score: float
    tokens: int | None = None


class Condition(Protocol):
    """Ranks documents for a query, best first (up to ``DEPTH``)."""

    name: str

    def rank(self, query_id: str, text: str) -> Sequence[Ranked]: ...


@dataclass
class Resources:
    """What conditions are built from: the split and the runtime over the evaluation graph;
    the expensive parts are built once, on first use."""

    split: BeirSplit
    runtime: Runtime
    cache_dir: Path | None = None  # in-memory document embeddings are cached here
    depth: int = DEPTH
    _memory: MemoryIndex | None = field(default=None, repr=False)

    @property
    def context(self) -> SearchContext:
        return self.runtime.search

    @property
    def embedder(self) -> Embedder:
        return self.runtime.embedder

    @property
    def driver(self) -> neo4j.Driver:
        """The raw driver, for neo4j-graphrag (which takes one)."""
        return self.runtime.graph.driver

    @property
    def database(self) -> str:
        return self.runtime.graph.database

    def memory(self) -> MemoryIndex:
        if self._memory is None:
            self._memory = MemoryIndex.build(self.split, self.embedder, self.cache_dir)
        return self._memory


Overrides = Mapping[str, str]  # the ``key=value`` pairs of a spec, as text
Factory = Callable[[Resources, Overrides], Condition]
REGISTRY: dict[ConditionName, Factory] = {}
GROUPS: dict[Group, list[ConditionName]] = {}


def register(
    name: ConditionName, *groups: Group, in_all: bool = True
) -> Callable[[Factory], Factory]:
    """Register a condition factory under ``name``, in ``groups`` and (unless told) in "all"."""

    def decorate(factory: Factory) -> Factory:
        REGISTRY[name] = factory
        for group in (*groups, *([Group.ALL] if in_all else [])):
            GROUPS.setdefault(group, []).append(name)
        return factory

    return decorate


@dataclass(frozen=True)
class Spec:
    """One condition as asked for: its name and the overrides after ``@``."""

    name: ConditionName
    overrides: Overrides
    text: str  # as written, which names the condition in every output

    @classmethod
    def parse(cls, text: str) -> Spec:
        """``name`` or ``name@key=value;...``.

        Raises:
            ValueError: the name is not a condition, or an override is not ``key=value``.
        """
        name, _, raw = text.partition("@")
        try:
            condition = ConditionName(name)
        except ValueError:
            known = ", ".join([*ConditionName, *Group])
            raise ValueError(f"unknown condition {name!r}; known: {known}") from None
        overrides: dict[str, str] = {}
        for item in filter(None, (part.strip() for part in raw.split(";"))):
            key, sep, value = item.partition("=")
            if not sep:
                raise ValueError(f"override {item!r} is not key=value")
            overrides[key.strip()] = value.strip()
        return cls(condition, overrides, str(text))


def expand(specs: Iterable[str]) -> list[str]:
    """Comma-separated specs, group names replaced by their members, duplicates dropped."""
    groups = {str(group): group for group in Group}
    names: list[str] = []
    for spec in specs:
        for part in (p.strip() for p in spec.split(",")):
            names.extend(GROUPS.get(groups[part], []) if part in groups else [part])
    return list(dict.fromkeys(name for name in names if name))


def build(spec: str | Spec, resources: Resources) -> Condition:
    """The condition a spec names (``name`` or ``name@key=value;...``)."""
    parsed = spec if isinstance(spec, Spec) else Spec.parse(spec)
    condition = REGISTRY[parsed.name](resources, parsed.overrides)
    condition.name = parsed.text
    return condition


def search_options(overrides: Overrides) -> dict[str, Any]:
    """``SearchOptions`` fields from text overrides: lists join with ``+``, maps use ``:``
    (``paths=dense+bm25``, ``weights=dense:1+bm25:0.5``, ``signal_weights=doc:0.2+text:0.3``).
    Names are checked here (``PathName``, ``Mode``, ...), values by ``SearchOptions``. The keys
    are the options' flat names (``fd_lambda``, ``expand_depth``: the command line's, and
    ``SearchOptions`` reads them into their groups), so that a spec stays one short word."""
    options: dict[str, Any] = {}
    for key, value in overrides.items():
        if key == "paths":
            options[key] = [PathName(path) for path in _items(value)]
        elif key == "weights":
            options[key] = {PathName(path): weight for path, weight in _pairs(value)}
        elif key == "signal_weights":
            options[key] = dict(_pairs(value))
        elif key in {"k_over", "rrf_k", "feedback", "fd_pool"}:
            options[key] = int(value)
        elif key in {
            "threshold",
            "feedback_weight",
            "fd_lambda",
            "fd_weight",
            "pagerank_weight",
            "walk_weight",
            "confidence_exponent",
        }:
            options[key] = float(value)
        elif key in {
            "fd_rerank",
            "expand",
            "expand_rank",
            "bridge",
            "bridge_beside_links",
            "bridge_without_links",
        }:
            options[key] = _flag(value)
        elif key in {"expand_depth", "expand_per_hit", "expand_tokens", "bridge_max_mentions"}:
            options[key] = int(value)
        elif key in {"expand_threshold", "expand_decay", "expand_fd_weight", "expand_query_weight"}:
            options[key] = float(value)
        elif key == "mode":
            options[key] = Mode(value)
        elif key == "normalisation":
            options[key] = Normalisation(value)
        elif key == "fusion":
            options[key] = Fusion(value)
        else:
            raise ValueError(f"unknown search option {key!r}")
    return options  # a partial weight map keeps the level's defaults for the other paths


def _flag(value: str) -> bool:
    if value.lower() not in {"true", "false", "1", "0"}:
        raise ValueError(f"expected true or false, got {value!r}")
    return value.lower() in {"true", "1"}


def _items(value: str) -> list[str]:
    return [item for item in value.split("+") if item]


def _pairs(value: str) -> list[tuple[str, float]]:
    split = (item.partition(":") for item in _items(value))
    return [(key, float(number)) for key, _, number in split]


# --- ours ---------------------------------------------------------------------------------------
class SearchCondition:
    """``search()`` at document level with fixed options."""

    def __init__(
        self, name: str, context: SearchContext, k: int, options: Mapping[str, Any]
    ) -> None:
        self.name = name
        self._context = context
        self._k = k
        self._options = options
        SearchOptions(query="check", level="document", k=k, **options)  # fail early if invalid

    def rank(self, query_id: str, text: str) -> list[Ranked]:
        result = search(
            self._context, SearchOptions(query=text, level="document", k=self._k, **self._options)
        )
        return [Ranked(hit.document_id, hit.score, len(hit.text.split())) for hit in result.hits]


def _ours(name: ConditionName, base: Mapping[str, Any]) -> Factory:
    def factory(resources: Resources, overrides: Overrides) -> Condition:
        options = {**base, **search_options(overrides)}
        k_over = max(int(options.get("k_over", 100)), resources.depth)
        options["k_over"] = k_over
        return SearchCondition(name, resources.context, resources.depth, options)

    return factory


register(ConditionName.COSINE, Group.OURS)(_ours(ConditionName.COSINE, {"mode": Mode.DENSE}))
register(ConditionName.BM25, Group.OURS)(_ours(ConditionName.BM25, {"mode": Mode.BM25}))
register(ConditionName.TFIDF, Group.OURS)(_ours(ConditionName.TFIDF, {"mode": Mode.TFIDF}))
register(ConditionName.HYBRID, Group.OURS)(_ours(ConditionName.HYBRID, {"mode": Mode.HYBRID}))
register(ConditionName.MULTISIGNAL, Group.OURS)(
    _ours(ConditionName.MULTISIGNAL, {"mode": Mode.MULTISIGNAL})
)
# FD*'s weight in the fusion, chosen on the tune parts of SciFact train and NFCorpus dev:
# the best there on SciFact, within 0.001 of the best on NFCorpus (docs/benchmarks.md, "FD* (λ
# and a_source)").
HYBRID_FD_WEIGHT = 0.1
register(ConditionName.FD_RERANK, Group.OURS)(
    _ours(ConditionName.FD_RERANK, {"mode": Mode.DENSE, "fd_rerank": True})
)
register(ConditionName.HYBRID_FD, Group.OURS)(
    _ours(ConditionName.HYBRID_FD, {"mode": Mode.HYBRID, "fd_weight": HYBRID_FD_WEIGHT})
)
register(ConditionName.HYBRID_FD_RERANK, Group.OURS)(
    _ours(ConditionName.HYBRID_FD_RERANK, {"mode": Mode.HYBRID, "fd_rerank": True})
)
# Each part of the expansion named, on or off (the default search, ``hybrid``, has both since
# default-v4): links alone, bridges alone, both; supporting documents ranked (expand_rank).
_EXPAND = {"expand": True, "bridge": False, "expand_rank": True}
# Bridges wherever the collection holds entity mentions, linked or not (the default bridges only
# in linked collections), so that these conditions measure the bridges on every corpus.
_BRIDGE = {"expand": False, "bridge": True, "bridge_without_links": True, "expand_rank": True}
_BOTH = {"expand": True, "bridge": True, "bridge_without_links": True, "expand_rank": True}
register(ConditionName.HYBRID_EXPAND, Group.OURS)(
    _ours(ConditionName.HYBRID_EXPAND, {"mode": Mode.HYBRID, **_EXPAND})
)
register(ConditionName.COSINE_EXPAND, Group.OURS)(
    _ours(ConditionName.COSINE_EXPAND, {"mode": Mode.DENSE, **_EXPAND})
)
register(ConditionName.HYBRID_BRIDGE, Group.OURS)(
    _ours(ConditionName.HYBRID_BRIDGE, {"mode": Mode.HYBRID, **_BRIDGE})
)
register(ConditionName.HYBRID_EXPAND_BRIDGE, Group.OURS)(
    _ours(ConditionName.HYBRID_EXPAND_BRIDGE, {"mode": Mode.HYBRID, **_BOTH})
)
# The walk's weight as a prior of the fusion (Personalized PageRank, anchorgraph.retrieval.walk),
# chosen on MuSiQue dev's tune part among 0.05–1.6 (0.4: 0.6740 against flat 0.6668; held part
# 0.6800 against 0.6680); on HotpotQA dev500 it gave 0.848 against 0.843 (tune), 0.854 against
# 0.853 (held). docs/benchmarks.md, "Entity bridges" ("The walk").
WALK_WEIGHT = 0.4
register(ConditionName.HYBRID_WALK, Group.OURS)(
    _ours(
        ConditionName.HYBRID_WALK,
        {"mode": Mode.HYBRID, "walk_weight": WALK_WEIGHT, "expand": False, "bridge": False},
    )
)
register(ConditionName.HYBRID_WALK_EXPAND_BRIDGE, Group.OURS)(
    _ours(
        ConditionName.HYBRID_WALK_EXPAND_BRIDGE,
        {"mode": Mode.HYBRID, "walk_weight": WALK_WEIGHT, **_BOTH},
    )
)
for _norm in (Normalisation.MIN_MAX, Normalisation.L2, Normalisation.Z_SCORE):
    for _fusion in (Fusion.WEIGHTED_SUM, Fusion.MAX, Fusion.MEAN):
        _name = ConditionName(f"hybrid:{_norm}:{_fusion}")
        register(_name, Group.FUSIONS)(
            _ours(_name, {"mode": Mode.HYBRID, "normalisation": _norm, "fusion": _fusion})
        )
register(ConditionName.HYBRID_RRF, Group.FUSIONS)(
    _ours(ConditionName.HYBRID_RRF, {"mode": Mode.HYBRID, "fusion": Fusion.RRF})
)


# --- peers: neo4j-graphrag ----------------------------------------------------------------------
VECTOR_INDEX = "chunk_embedding"
FULLTEXT_INDEX = "chunk_text"


class EmbedderAdapter:
    """Our ``Embedder`` behind neo4j-graphrag's ``Embedder`` interface: the same loaded model
    (all-MiniLM-L6-v2 from its package), the raw query text, a unit-length vector."""

    def __new__(cls, embedder: Embedder) -> Any:
        from neo4j_graphrag.embeddings.base import Embedder as GraphragEmbedder

        class _Adapter(GraphragEmbedder):
            def embed_query(self, text: str) -> list[float]:
                return [float(x) for x in embedder.embed([text])[0]]

        return _Adapter()


class GraphragCondition:
    """A neo4j-graphrag retriever: ``top_k`` chunks, mapped to documents by their best chunk.

    The full-text leg gets the raw query, as a user of the library would pass it. Lucene syntax
    in it fails: ``SearchQueryParseError`` for a ``ParseException``, but a bare
    ``neo4j.exceptions.ClientError`` for a ``TokenMgrError`` (e.g. a claim ending in "/CD40."),
    which the library does not wrap. Either way the query is retried with Lucene's special
    characters escaped (counted in ``escaped``), the vector leg keeping the raw text's vector.
    """

    def __init__(
        self, name: str, retriever: Any, top_k: int, search_kwargs: dict[str, Any]
    ) -> None:
        self.name = name
        self._retriever = retriever
        self._top_k = top_k
        self._kwargs = search_kwargs
        self.escaped = 0

    def rank(self, query_id: str, text: str) -> list[Ranked]:
        from neo4j.exceptions import ClientError
        from neo4j_graphrag.exceptions import SearchQueryParseError

        with warnings.catch_warnings():
            # Every query build warns that the 'id' field goes away in 2.0; we read elementId-free
            # node properties only.
            warnings.filterwarnings("ignore", "The default returned 'id' field", DeprecationWarning)
            try:
                result = self._retriever.get_search_results(
                    query_text=text, top_k=self._top_k, **self._kwargs
                )
            except (SearchQueryParseError, ClientError) as error:
                if isinstance(error, ClientError) and "lucene.queryparser" not in str(error):
                    raise
                self.escaped += 1
                result = self._retriever.get_search_results(
                    query_text=escape_lucene(text),
                    query_vector=self._retriever.embedder.embed_query(text),
                    top_k=self._top_k,
                    **self._kwargs,
                )
        return best_chunk_per_document(
            (local_id(r["node"]["document_id"]), float(r["score"]), str(r["node"]["text"] or ""))
            for r in result.records
        )

    @property
    def notes(self) -> dict[str, Any]:
        return {"escaped_retries": self.escaped}


def best_chunk_per_document(chunks: Iterable[tuple[str, float, str]]) -> list[Ranked]:
    """(document id, score, chunk text) rows → documents by their best chunk, best first."""
    best: dict[str, Ranked] = {}
    for doc_id, score, text in chunks:
        if doc_id not in best or score > best[doc_id].score:
            best[doc_id] = Ranked(doc_id, score, len(text.split()))
    return sorted(best.values(), key=lambda r: (-r.score, r.doc_id))


def _graphrag(name: ConditionName, search_kwargs: Mapping[str, Any]) -> Factory:
    def factory(resources: Resources, overrides: Overrides) -> Condition:
        from neo4j_graphrag.retrievers import HybridRetriever, VectorRetriever

        embedder = EmbedderAdapter(resources.embedder)
        database = resources.database
        properties = ["document_id", "text"]
        retriever: Any
        if name is ConditionName.GRAPHRAG_VECTOR:
            retriever = VectorRetriever(
                resources.driver, VECTOR_INDEX, embedder, properties, neo4j_database=database
            )
        else:
            retriever = HybridRetriever(
                resources.driver,
                VECTOR_INDEX,
                FULLTEXT_INDEX,
                embedder,
                properties,
                neo4j_database=database,
            )
        kwargs = dict(search_kwargs)
        if "alpha" in overrides:
            kwargs["alpha"] = float(overrides["alpha"])
        top_k = int(overrides.get("top_k", resources.depth))
        return GraphragCondition(name, retriever, top_k, kwargs)

    return factory


for _name, _kwargs in (
    (ConditionName.GRAPHRAG_VECTOR, {}),
    (ConditionName.GRAPHRAG_HYBRID_NAIVE, {"ranker": "naive"}),
    (ConditionName.GRAPHRAG_HYBRID_LINEAR, {"ranker": "linear", "alpha": 0.5}),
):
    register(_name, Group.PEERS)(_graphrag(_name, _kwargs))


class UnionAllDiagnostic:
    """neo4j-graphrag's own linear hybrid Cypher with ``UNION`` replaced by ``UNION ALL``: how
    much the de-duplication of equal ``(node, score)`` rows costs (the query is
    ``_get_hybrid_query`` in ``src/neo4j_graphrag/neo4j_queries.py``). A diagnostic, not a
    peer: it is in the "diagnostics" group only. The full-text leg gets the escaped query (no
    parse failures to retry)."""

    def __init__(self, name: str, driver: neo4j.Driver, database: str, embedder: Embedder,
                 top_k: int, alpha: float) -> None:  # fmt: skip
        from neo4j_graphrag.neo4j_queries import get_search_query
        from neo4j_graphrag.types import HybridSearchRanker, SearchType

        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "The default returned 'id' field", DeprecationWarning)
            query, _ = get_search_query(
                search_type=SearchType.HYBRID,
                return_properties=["document_id", "text"],
                neo4j_version_is_5_23_or_above=True,
                ranker=HybridSearchRanker.LINEAR,
                alpha=alpha,
            )
        if " UNION " not in query:
            raise ValueError("neo4j-graphrag's hybrid query has no UNION any more")
        self.name = name
        self._query = query.replace(" UNION ", " UNION ALL ")
        self._driver, self._database, self._embedder = driver, database, embedder
        self._top_k, self._alpha = top_k, alpha

    def rank(self, query_id: str, text: str) -> list[Ranked]:
        parameters = {
            "vector_index_name": VECTOR_INDEX,
            "fulltext_index_name": FULLTEXT_INDEX,
            "top_k": self._top_k,
            "effective_search_ratio": 1,
            "query_vector": [float(x) for x in self._embedder.embed([text])[0]],
            "query_text": escape_lucene(text),
            "alpha": self._alpha,
        }
        records = self._driver.execute_query(
            self._query, parameters, database_=self._database
        ).records
        return best_chunk_per_document(
            (local_id(r["node"]["document_id"]), float(r["score"]), str(r["node"]["text"] or ""))
            for r in records
        )


@register(ConditionName.GRAPHRAG_HYBRID_LINEAR_UNIONALL, Group.DIAGNOSTICS, in_all=False)
def _union_all(resources: Resources, overrides: Overrides) -> Condition:
    return UnionAllDiagnostic(
        ConditionName.GRAPHRAG_HYBRID_LINEAR_UNIONALL,
        resources.driver,
        resources.database,
        resources.embedder,
        int(overrides.get("top_k", resources.depth)),
        float(overrides.get("alpha", 0.5)),
    )


# --- in-memory references -----------------------------------------------------------------------
_WORD = re.compile(r"\w+")


def tokenize(text: str) -> list[str]:
    """The in-memory BM25's tokenisation: lower-cased ``\\w+`` runs (Unicode word characters);
    no stemming, no stop words."""
    return _WORD.findall(text.lower())


class MemoryIndex:
    """Whole documents (title and text) in memory: BM25Okapi and MiniLM document vectors."""

    def __init__(
        self, ids: list[str], tokens: list[int], bm25: Any, vectors: npt.NDArray[np.float32],
        embedder: Embedder,
    ) -> None:  # fmt: skip
        self.ids = ids
        self.tokens = tokens
        self.bm25 = bm25
        self.vectors = vectors
        self.embedder = embedder

    @classmethod
    def build(cls, split: BeirSplit, embedder: Embedder, cache_dir: Path | None) -> MemoryIndex:
        from rank_bm25 import BM25Okapi

        ids = list(split.corpus)
        texts = [split.corpus[i].full_text for i in ids]
        bm25 = BM25Okapi([tokenize(t) for t in texts])  # k1=1.5, b=0.75, epsilon=0.25
        vectors = _document_vectors(ids, texts, embedder, cache_dir)
        return cls(ids, [len(t.split()) for t in texts], bm25, vectors, embedder)

    def bm25_scores(self, text: str) -> npt.NDArray[np.float64]:
        return np.asarray(self.bm25.get_scores(tokenize(text)), dtype=np.float64)

    def dense_scores(self, text: str) -> npt.NDArray[np.float64]:
        vector = self.embedder.embed([text])[0]
        return np.asarray(self.vectors @ vector, dtype=np.float64)

    def top(self, scores: npt.NDArray[np.float64], n: int) -> list[tuple[int, float]]:
        """The ``n`` best (index, score), best first; ties by document order."""
        n = min(n, len(scores))
        candidates = np.argpartition(-scores, n - 1)[:n] if n < len(scores) else np.arange(n)
        order = sorted(candidates.tolist(), key=lambda i: (-scores[i], i))
        return [(i, float(scores[i])) for i in order]

    def ranked(self, pairs: list[tuple[int, float]]) -> list[Ranked]:
        return [Ranked(self.ids[i], score, self.tokens[i]) for i, score in pairs]


def _document_vectors(
    ids: list[str], texts: list[str], embedder: Embedder, cache_dir: Path | None
) -> npt.NDArray[np.float32]:
    """Document embeddings, cached on disk by model and content."""
    digest = hashlib.sha256()
    digest.update(embedder.name.encode())
    for doc_id, text in zip(ids, texts, strict=True):
        digest.update(doc_id.encode() + b"\0" + text.encode() + b"\0")
    path = cache_dir / f"docvectors-{digest.hexdigest()[:20]}.npy" if cache_dir else None
    if path is not None and path.exists():
        cached: npt.NDArray[np.float32] = np.load(path)
        return cached
    vectors = embedder.embed(texts)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, vectors)
    return vectors


def min_max_top(pairs: list[tuple[int, float]]) -> dict[int, float]:
    """Min-max over one side's own top list; all equal → 1.0."""
    if not pairs:
        return {}
    low, high = min(s for _, s in pairs), max(s for _, s in pairs)
    span = high - low
    return {i: (s - low) / span if span > 0 else 1.0 for i, s in pairs}


def plain_hybrid_scores(
    bm25: list[tuple[int, float]], dense: list[tuple[int, float]], weight: float = 0.5
) -> list[tuple[int, float]]:
    """The plain hybrid baseline: each side min-max normalised over its own top list, then
    ``weight·dense + (1 - weight)·bm25``; a document missing from a side gets 0 there."""
    lexical, semantic = min_max_top(bm25), min_max_top(dense)
    fused = {
        i: weight * semantic.get(i, 0.0) + (1 - weight) * lexical.get(i, 0.0)
        for i in {*lexical, *semantic}
    }
    return sorted(fused.items(), key=lambda item: (-item[1], item[0]))


def rrf_scores(*rankings: list[tuple[int, float]], k: int = RRF_K) -> list[tuple[int, float]]:
    """Reciprocal rank fusion, ``Σ 1/(k + rank)`` over the rankings (ranks from 1)."""
    fused: dict[int, float] = {}
    for ranking in rankings:
        for position, (i, _) in enumerate(ranking, start=1):
            fused[i] = fused.get(i, 0.0) + 1.0 / (k + position)
    return sorted(fused.items(), key=lambda item: (-item[1], item[0]))


class MemoryCondition:
    """One of the in-memory references (``kind``) over a shared ``MemoryIndex``."""

    def __init__(
        self, name: str, index: MemoryIndex, kind: ConditionName, depth: int, weight: float
    ) -> None:
        self.name = name
        self._index = index
        self._kind = kind
        self._depth = depth
        self._weight = weight

    def rank(self, query_id: str, text: str) -> list[Ranked]:
        index, depth = self._index, self._depth
        if self._kind is ConditionName.MEM_BM25:
            return index.ranked(index.top(index.bm25_scores(text), depth))
        if self._kind is ConditionName.MEM_MINILM:
            return index.ranked(index.top(index.dense_scores(text), depth))
        bm25 = index.top(index.bm25_scores(text), PLAIN_HYBRID_DEPTH)
        dense = index.top(index.dense_scores(text), PLAIN_HYBRID_DEPTH)
        if self._kind is ConditionName.PLAIN_HYBRID:
            return index.ranked(plain_hybrid_scores(bm25, dense, self._weight)[:depth])
        return index.ranked(rrf_scores(bm25, dense)[:depth])


def _memory(kind: ConditionName) -> Factory:
    def factory(resources: Resources, overrides: Overrides) -> Condition:
        weight = float(overrides.get("weight", 0.5))
        return MemoryCondition(kind, resources.memory(), kind, resources.depth, weight)

    return factory


for _name in (
    ConditionName.MEM_BM25,
    ConditionName.MEM_MINILM,
    ConditionName.PLAIN_HYBRID,
    ConditionName.MEM_RRF,
):
    register(_name, Group.BASELINES)(_memory(_name))

PLAIN_HYBRID = ConditionName.PLAIN_HYBRID
PEERS = tuple(GROUPS[Group.PEERS])
BASELINES = tuple(GROUPS[Group.BASELINES])


def timed(condition: Condition, query_id: str, text: str) -> tuple[Sequence[Ranked], float]:
    """The ranking and the wall-clock milliseconds it took."""
    started = time.perf_counter()
    ranked = condition.rank(query_id, text)
    return ranked, (time.perf_counter() - started) * 1000
