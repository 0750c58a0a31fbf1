"""Fusion weights fitted to one collection's relevance judgments (``anchorgraph tune``).

The default weights were chosen on two public corpora; a collection whose users judged some
answers can have weights of its own. The fit is deliberately small, so that a few dozen judged
questions can choose it without learning their noise: one scale for the lexical paths against
the dense ones and one for the small paths (TF-IDF, metadata, entities), each a factor on the
level's default weights, chosen on a fixed ~70 % of the judged questions by NDCG@10 and reported
on the other ~30 % (``held_out``). Everything here is pure: ``anchorgraph.judgments`` runs the
searches and stores what it chose with the collection (``CollectionRanking``).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from anchorgraph.retrieval.defaults import (
    CHUNK_PATH_WEIGHTS,
    DEFAULT_NORMALISATION,
    DEFAULT_RANKING,
    DOCUMENT_PATH_WEIGHTS,
)
from anchorgraph.retrieval.fd_read import Level
from anchorgraph.retrieval.options import SearchOptions
from anchorgraph.retrieval.paths import DENSE_PATH_NAMES, SMALL_PATH_NAMES
from anchorgraph.retrieval.paths.base import PathName
from anchorgraph.retrieval.values import Scope

# Judged questions a fit needs, and the share of them it keeps aside to report on.
MIN_JUDGED_QUERIES = 10
HELD_OUT_SHARE = 0.3
# The factors tried on the default weights. Only ratios matter to a weighted sum of normalised
# scores, so the lexical factor is against the dense paths, and "lexical alone" is the dense
# paths at 0.
LEXICAL_SCALES = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0)
SMALL_PATH_SCALES = (0.0, 1.0, 4.0)
# A factor of 0 counts as this many doublings away from the default, for ties (Scales.distance).
_OFF_DOUBLINGS = 8.0

Judged = Mapping[str, int]  # document id → relevance (0: judged not relevant)


class LevelFit(BaseModel):
    """The weights fitted for one level of search, and how the judged queries rank with them
    and with the defaults (mean NDCG@10, on the part fitted on and on the part kept aside)."""

    model_config = ConfigDict(frozen=True)

    weights: dict[PathName, float]
    scales: dict[str, float] = Field(
        description="The factors on the default weights per family of paths: dense, lexical "
        "(BM25), small (TF-IDF, metadata, entities)."
    )
    fit_default: float
    fit_tuned: float
    held_default: float
    held_tuned: float


class CollectionRanking(BaseModel):
    """Fusion weights fitted to one collection's judgments (``anchorgraph.judgments`` fits them
    here and stores them with the collection); hybrid searches of it alone use them."""

    model_config = ConfigDict(frozen=True)

    name: str = Field(description='What answers call it: "<collection>/tuned-<date>".')
    chunk: LevelFit
    document: LevelFit
    queries: int = Field(description="Judged queries fitted on.")
    held_queries: int = Field(description="Judged queries kept aside and reported on.")
    fitted: str = Field(description="When (ISO 8601, UTC).")


@dataclass(frozen=True, order=True)
class Scales:
    """Factors on a level's default weights: ``small`` on the small paths (TF-IDF, metadata,
    entities: ``SearchPath.small``), ``dense`` on the other paths of the dense family (chunk and
    document vectors), ``lexical`` on the rest (BM25 of chunks and of whole documents)."""

    dense: float = 1.0
    lexical: float = 1.0
    small: float = 1.0

    def weights(self, level: Level) -> dict[PathName, float]:
        """The level's default weights, each times its family's factor."""
        defaults = DOCUMENT_PATH_WEIGHTS if level == "document" else CHUNK_PATH_WEIGHTS
        return {path: weight * self._factor(path) for path, weight in defaults.items()}

    @property
    def factors(self) -> dict[str, float]:
        return {"dense": self.dense, "lexical": self.lexical, "small": self.small}

    def _factor(self, path: PathName) -> float:
        if path in SMALL_PATH_NAMES:
            return self.small
        return self.dense if path in DENSE_PATH_NAMES else self.lexical

    @property
    def distance(self) -> float:
        """How far from the defaults, for preferring them on a tie: ``Σ |log2 factor|`` over
        the three factors, a factor of 0 counting as ``_OFF_DOUBLINGS``."""
        return sum(
            _OFF_DOUBLINGS if factor == 0.0 else abs(math.log2(factor))
            for factor in (self.dense, self.lexical, self.small)
        )


def grid() -> list[Scales]:
    """Every setting the fit tries, nearest the defaults first: each lexical factor against
    the dense paths, and the lexical paths alone, each with each factor on the small paths."""
    pairs = [(1.0, lexical) for lexical in LEXICAL_SCALES] + [(0.0, 1.0)]
    settings = [Scales(d, lexical, small) for d, lexical in pairs for small in SMALL_PATH_SCALES]
    return sorted(settings, key=lambda scales: (scales.distance, scales))


def ndcg_at(ranking: Sequence[str], judged: Judged, k: int = 10) -> float:
    """NDCG@k as trec_eval computes it (linear gains):
    ``DCG = Σ_{i=1..k} rel(d_i) / log2(i + 1)`` over the ranking, divided by the same sum over
    the judged documents sorted by relevance (the ideal ranking); a document met twice counts
    once. 0.0 when nothing judged is relevant."""
    unique = list(dict.fromkeys(ranking))[:k]
    dcg = sum(judged.get(doc, 0) / math.log2(rank + 2) for rank, doc in enumerate(unique))
    ideal_gains = sorted((g for g in judged.values() if g > 0), reverse=True)[:k]
    ideal = sum(gain / math.log2(rank + 2) for rank, gain in enumerate(ideal_gains))
    return dcg / ideal if ideal > 0 else 0.0


def held_out(queries: Iterable[str], share: float = HELD_OUT_SHARE) -> frozenset[str]:
    """The queries kept aside to report on: the ``ceil(share · n)`` whose SHA-256 comes first,
    so the same judgments always split alike, whatever their order."""
    ordered = sorted(set(queries), key=lambda q: hashlib.sha256(q.encode("utf-8")).digest())
    return frozenset(ordered[: math.ceil(share * len(ordered))])


@dataclass(frozen=True)
class Fitted:
    """What the fit chose and how the judged queries rank with it and with the defaults."""

    scales: Scales
    fit_default: float  # mean NDCG@10 on the fitted part, default weights
    fit_tuned: float


def fit(
    rank: Mapping[Scales, Mapping[str, Sequence[str]]], judgments: Mapping[str, Judged]
) -> Fitted:
    """The setting whose rankings of ``judgments``' queries have the best mean NDCG@10, the one
    nearest the defaults on a tie (``Scales.distance``).

    Args:
        rank: Each setting → query → the document ids it ranks, best first.
        judgments: The queries to fit on → their judged documents.
    """

    def mean_ndcg(scales: Scales) -> float:
        rankings = rank[scales]
        return math.fsum(ndcg_at(rankings[q], judged) for q, judged in judgments.items()) / len(
            judgments
        )

    scored = {scales: mean_ndcg(scales) for scales in rank}
    best = max(scored, key=lambda scales: (round(scored[scales], 9), -scales.distance))
    return Fitted(best, scored[Scales()], scored[best])


def ranking_for(options: SearchOptions, scope: Scope) -> tuple[str, SearchOptions]:
    """The ranking a search uses and the options that carry it: the request's own weights,
    normalisation, fusion or confidence exponent (``"custom"``); else, for a hybrid search of
    one collection that has weights of its own, those; else the defaults
    (``DEFAULT_RANKING``)."""
    own_fusion = options.fusion.method not in (None, options.default_fusion())
    own_exponent = options.fusion.confidence_exponent not in (None, options.default_exponent())
    if (
        options.fusion.weights
        or own_fusion
        or own_exponent
        or options.fusion.normalisation is not DEFAULT_NORMALISATION
    ):
        return "custom", options
    own = scope.ranking
    if own is None or options.mode != "hybrid":
        return DEFAULT_RANKING, options
    fitted = own.document if options.document_level else own.chunk
    fusion = options.fusion.model_copy(update={"weights": dict(fitted.weights)})
    return own.name, options.model_copy(update={"fusion": fusion})
