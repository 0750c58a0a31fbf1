"""Multi-signal document scoring: one score from five named signals, each kept for the answer.

The score of a document is the weighted sum of five signals (docs/design.md §2):

    score = W_doc·S_doc + W_segment·S_segment + W_entity·S_entity + W_triple·S_triple
            + W_text·S_text

====================  ==============================================================
signal                meaning
====================  ==============================================================
``S_doc``             similarity of the query to the whole document
``S_segment``         similarity of the query to the document's best chunk
``S_entity``          coverage of the query's exactly matched entities
``S_triple``          similarity of the query to the document's relation triples
``S_text``            full-text (keyword) match
``S_fd``              FD*_rescaled of the document (docs/design.md §3)
====================  ==============================================================

The default weights (``anchorgraph.retrieval.defaults.SIGNAL_WEIGHTS``) sum to 1, so the score
stays in [0, 1] when every signal does. ``S_fd`` is not one of the five and is off by default:
factual density can serve as a ranking signal, and a caller who wants it in the document score
gives it a weight.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass, fields
from types import MappingProxyType


@dataclass(frozen=True, slots=True)
class SignalWeights:
    """The weight of each signal in the document score (the defaults:
    ``anchorgraph.retrieval.defaults.SIGNAL_WEIGHTS``).

    Attributes:
        doc: Weight of ``S_doc``.
        segment: Weight of ``S_segment``.
        entity: Weight of ``S_entity``.
        triple: Weight of ``S_triple``.
        text: Weight of ``S_text``.
        fd: Weight of ``S_fd``.

    Raises:
        ValueError: If a weight is negative or not finite, or all weights are 0.
    """

    doc: float
    segment: float
    entity: float
    triple: float
    text: float
    fd: float = 0.0

    def __post_init__(self) -> None:
        values = {field.name: float(getattr(self, field.name)) for field in fields(self)}
        for name, value in values.items():
            if not math.isfinite(value) or value < 0.0:
                raise ValueError(f"signal weight {name!r} must be finite and >= 0, got {value!r}")
        if math.fsum(values.values()) <= 0.0:
            raise ValueError("at least one signal weight must be > 0")


@dataclass(frozen=True, slots=True)
class DocumentSignals:
    """The raw signals of one candidate document.

    Attributes:
        s_doc: Query similarity of the whole document.
        s_segment: Query similarity of the document's best chunk; ``None`` when the document
            has no chunks at all. A document whose chunks exist but did not match must pass a
            number (0.0 if nothing better is known), not ``None``.
        s_entity: Entity coverage, usually from ``entity_coverage``.
        s_triple: Query similarity of the document's triples.
        s_text: Full-text match score, normalised.
        s_fd: FD*_rescaled of the document, in [0, 1].

    Raises:
        ValueError: If a signal is NaN or infinite.
    """

    s_doc: float
    s_segment: float | None
    s_entity: float
    s_triple: float
    s_text: float
    s_fd: float = 0.0

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if value is not None and not math.isfinite(value):
                raise ValueError(f"signal {field.name!r} is not finite: {value!r}")


@dataclass(frozen=True, slots=True)
class SignalBreakdown:
    """A document's score with every signal that produced it.

    Attributes:
        s_doc: ``S_doc`` as given.
        s_segment: ``S_segment`` as used: ``S_doc`` when ``segment_fallback`` is set.
        s_entity: ``S_entity`` as given.
        s_triple: ``S_triple`` as given.
        s_text: ``S_text`` as given.
        s_fd: ``S_fd`` as given.
        segment_fallback: Whether ``s_segment`` was taken from ``s_doc`` because the document
            has no chunks.
        contributions: Signal name (``"doc"``, ``"segment"``, ``"entity"``, ``"triple"``,
            ``"text"``, ``"fd"``) → weight × signal. ``math.fsum(contributions.values()) == score``.
        score: The document score.
    """

    s_doc: float
    s_segment: float
    s_entity: float
    s_triple: float
    s_text: float
    s_fd: float
    segment_fallback: bool
    contributions: Mapping[str, float]
    score: float


def score_document(signals: DocumentSignals, weights: SignalWeights) -> SignalBreakdown:
    """Score one document as the weighted sum of its five signals.

    ``score = Σ_i w_i·S_i`` over doc, segment, entity, triple and text and fd (FD*, weight 0
    unless asked for), with the fallback ``S_segment := S_doc`` when the document has no chunks:
    without it a chunkless document would lose the segment weight (30 % by default) for a
    reason that says nothing about its relevance.

    Only a document with no chunks (``s_segment is None``) falls back, not one whose chunks
    exist but were not retrieved or did not match (``S_segment == 0``): a document whose chunks
    all miss the query keeps its low ``S_segment`` instead of borrowing ``S_doc``.

    Args:
        signals: The document's raw signals.
        weights: The weight of each signal.

    Returns:
        The score with its per-signal breakdown; the contributions add up to the score.
    """
    fallback = signals.s_segment is None
    s_segment = signals.s_doc if signals.s_segment is None else signals.s_segment
    contributions = {
        "doc": weights.doc * signals.s_doc,
        "segment": weights.segment * s_segment,
        "entity": weights.entity * signals.s_entity,
        "triple": weights.triple * signals.s_triple,
        "text": weights.text * signals.s_text,
        "fd": weights.fd * signals.s_fd,
    }
    return SignalBreakdown(
        s_doc=signals.s_doc,
        s_segment=s_segment,
        s_entity=signals.s_entity,
        s_triple=signals.s_triple,
        s_text=signals.s_text,
        s_fd=signals.s_fd,
        segment_fallback=fallback,
        contributions=MappingProxyType(contributions),
        score=math.fsum(contributions.values()),
    )


def entity_coverage(matched: Collection[str], exact_query_entities: Collection[str]) -> float:
    """The share of the query's exactly matched entities that a document contains.

    ``S_entity = |matched ∩ exact| / |exact|``. Only entities found
    in the query by exact match form the denominator: entities found semantically or through
    triples would dilute it, so a document holding every entity the user actually named could
    not reach 1. Entities are compared as given (normalise ids before
    calling) and counted once each; a matched entity that is not an exact query entity is
    ignored, so the result is always in [0, 1] (dividing ``len(matched)`` directly would not be).

    Args:
        matched: Ids of the query entities found in the document.
        exact_query_entities: Ids of the entities detected in the query by exact match.

    Returns:
        The coverage in [0, 1]; 0.0 when the query has no exactly matched entities.
    """
    exact = set(exact_query_entities)
    if not exact:
        return 0.0
    return len(exact.intersection(matched)) / len(exact)
