"""Expert-blindness audit for one query: which source types reach the top ``k`` under cosine,
BM25 and FD*-optimised retrieval?

Three retrieval conditions are compared over documents (docs/design.md §3, docs/audits.md):

* A, ``cosine``: dense search, documents ranked by their best chunk's cosine (MaxP);
* B, ``bm25``: BM25 over the chunks' full-text index, documents by their best chunk;
* C, ``fd_optimised``: the cosine top ``fd_pool`` (20) reranked by
  ``(1 − λ)·cos + λ·FD*_rescaled`` (``anchorgraph.retrieval.density.FdRerank``; λ = 0.1 by
  default, and ``FD*_rescaled = Φ(z)·a_source/a_max``).

What it looks for is the *expert blindness effect*: dense, well-sourced evidence (systematic
reviews, trials) that cosine ranks below long texts that only name the topic, and that the
FD*-optimised condition lifts into the top ``k``.

Every hit is shown with the same cosine whatever ranked it: its document's best-chunk cosine to
the query (``cypher/audit/document_cosines.cypher``, what plain cosine ranks by), its rank in
cosine's top ``fd_pool`` (None below it), and its document's FD* and FD*_rescaled.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from anchorgraph.audit.plotting import colours, figure, label, save
from anchorgraph.errors import InvalidInput
from anchorgraph.graph.queries import Query
from anchorgraph.retrieval.context import SearchContext
from anchorgraph.retrieval.defaults import DEFAULT_FD_LAMBDA
from anchorgraph.retrieval.options import Mode, SearchOptions
from anchorgraph.retrieval.pipeline import search
from anchorgraph.retrieval.results import Hit
from anchorgraph.scope import local_id, scoped

DEFAULT_K = 5
DEFAULT_LAMBDA = DEFAULT_FD_LAMBDA
DEFAULT_POOL = 20


class Condition(StrEnum):
    """The three retrieval conditions the audit compares (module docstring)."""

    COSINE = "cosine"
    BM25 = "bm25"
    FD_OPTIMISED = "fd_optimised"


class AuditHit(BaseModel):
    """One document of a condition's top ``k``."""

    model_config = ConfigDict(frozen=True)

    rank: int
    document_id: str
    title: str
    source_type: str = Field(description="'' for a document that declares none.")
    score: float = Field(description="What the condition ranked by (cosine, BM25, blend).")
    cosine: float | None = Field(description="The document's best-chunk cosine to the query.")
    cosine_rank: int | None = Field(description="Its rank under cosine; None below fd_pool.")
    fd_star: float | None = Field(description="The document's FD*; None: not binned.")
    fd_rescaled: float = Field(description="FD*_rescaled = Φ(z)·a_source/a_max.")


class ConditionTop(BaseModel):
    """A condition's top ``k`` and how many of each source type it holds."""

    model_config = ConfigDict(frozen=True)

    condition: Condition
    hits: list[AuditHit]
    composition: dict[str, int] = Field(description="Hits per source type, most first.")


class BlindnessAudit(BaseModel):
    model_config = ConfigDict(frozen=True)

    query: str
    k: int
    fd_lambda: float
    fd_pool: int
    conditions: list[ConditionTop]
    fd_only: list[str] = Field(
        description="Documents in the FD*-optimised top k that cosine's top k misses."
    )


def composition(source_types: Iterable[str]) -> dict[str, int]:
    """How many of each source type, most frequent first (ties by name)."""
    counts = Counter(source_types)
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def condition_options(
    condition: Condition, query: str, k: int, fd_lambda: float, fd_pool: int, collection: str
) -> SearchOptions:
    """The search a condition runs, at document level (module docstring).

    Raises:
        InvalidInput: options a search refuses (an empty query, k or fd_pool out of bounds).
    """
    fields: dict[str, object] = {
        "query": query,
        "collections": [collection],
        "level": "document",
        "k": k,
        "k_over": max(100, k, fd_pool),
        "mode": Mode.BM25 if condition is Condition.BM25 else Mode.DENSE,
    }
    if condition is Condition.FD_OPTIMISED:
        fields["fd"] = {"rerank": True, "weight": fd_lambda, "pool": fd_pool}
    try:
        return SearchOptions.model_validate(fields)
    except ValidationError as error:
        problems = "; ".join(
            f"{_AUDIT_NAMES.get(tuple(e['loc']), '.'.join(map(str, e['loc'])) or 'options')}: "
            f"{e['msg']}"
            for e in error.errors()
        )
        raise InvalidInput(problems) from None


# The audit's own names of the search options it sets, for its error messages.
_AUDIT_NAMES: dict[tuple[int | str, ...], str] = {
    ("fd", "weight"): "fd_lambda",
    ("fd", "pool"): "fd_pool",
}


def blindness_audit(
    context: SearchContext,
    query: str,
    collection: str,
    *,
    k: int = DEFAULT_K,
    fd_lambda: float = DEFAULT_LAMBDA,
    fd_pool: int = DEFAULT_POOL,
) -> BlindnessAudit:
    """The top ``k`` documents of ``collection`` in each condition for ``query``, each with its
    cosine, cosine rank and FD* (module docstring).

    Raises:
        InvalidInput: options a search refuses.
        NotFound: the collection does not exist.
    """
    pool = search(
        context,
        condition_options(Condition.COSINE, query, max(k, fd_pool), fd_lambda, fd_pool, collection),
    )
    tops: dict[Condition, list[Hit]] = {Condition.COSINE: pool.hits[:k]}
    for condition in (Condition.BM25, Condition.FD_OPTIMISED):
        options = condition_options(condition, query, k, fd_lambda, fd_pool, collection)
        tops[condition] = search(context, options).hits
    cosine_rank = {hit.document_id: hit.rank for hit in pool.hits}
    ids = list(dict.fromkeys(hit.document_id for hits in tops.values() for hit in hits))
    cosines = _document_cosines(context, query, collection, ids)
    conditions = [
        ConditionTop(
            condition=condition,
            hits=[_audit_hit(hit, cosines, cosine_rank) for hit in hits],
            composition=composition(_source_type(hit) for hit in hits),
        )
        for condition, hits in tops.items()
    ]
    shown_by_cosine = {hit.document_id for hit in tops[Condition.COSINE]}
    return BlindnessAudit(
        query=query,
        k=k,
        fd_lambda=fd_lambda,
        fd_pool=fd_pool,
        conditions=conditions,
        fd_only=[
            hit.document_id
            for hit in tops[Condition.FD_OPTIMISED]
            if hit.document_id not in shown_by_cosine
        ],
    )


def _document_cosines(
    context: SearchContext, query: str, collection: str, ids: list[str]
) -> dict[str, float]:
    """Each document's (MaxP) cosine to the query, by id within ``collection``."""
    if not ids:
        return {}
    vector = context.embedder.embed([query])[0].tolist()
    keys = [scoped(collection, id_) for id_ in ids]
    rows = context.graph.read(
        Query.AUDIT_DOCUMENT_COSINES, {"vector": vector, "document_ids": keys}
    )
    return {local_id(row["document_id"]): float(row["cosine"]) for row in rows}


def _source_type(hit: Hit) -> str:
    return hit.fd.source_type if hit.fd is not None else ""


def _audit_hit(hit: Hit, cosines: Mapping[str, float], cosine_rank: Mapping[str, int]) -> AuditHit:
    return AuditHit(
        rank=hit.rank,
        document_id=hit.document_id,
        title=hit.title,
        source_type=_source_type(hit),
        score=hit.score,
        cosine=cosines.get(hit.document_id),
        cosine_rank=cosine_rank.get(hit.document_id),
        fd_star=hit.fd.fd_star if hit.fd is not None else None,
        fd_rescaled=hit.fd.rescaled if hit.fd is not None else 0.5,
    )


def plot_blindness(audit: BlindnessAudit, path: Path) -> Path:
    """Left: each condition's top k as a bar stacked by source type. Right: every hit's cosine
    (x) against its FD* (y), one marker per condition, coloured by source type."""
    drawn = figure(12, 4.8)
    left, right = drawn.subplots(1, 2)
    types = sorted({hit.source_type for top in audit.conditions for hit in top.hits})
    palette = colours(types)
    names = [str(top.condition) for top in audit.conditions]
    for source_type in types:
        counts = [top.composition.get(source_type, 0) for top in audit.conditions]
        below = [
            sum(top.composition.get(other, 0) for other in types[: types.index(source_type)])
            for top in audit.conditions
        ]
        left.barh(names, counts, left=below, color=palette[source_type], label=label(source_type))
    left.invert_yaxis()
    left.set_xlabel(f"documents in the top {audit.k}")
    left.set_title("Source types in each condition's top k")
    left.legend(fontsize="small")

    markers = {Condition.COSINE: "o", Condition.BM25: "s", Condition.FD_OPTIMISED: "*"}
    for top in audit.conditions:
        hits = [hit for hit in top.hits if hit.cosine is not None]
        right.scatter(
            [hit.cosine for hit in hits],
            [hit.fd_star if hit.fd_star is not None else 0.0 for hit in hits],
            c=[palette[hit.source_type] for hit in hits],
            marker=markers[top.condition],
            s=90 if top.condition is Condition.FD_OPTIMISED else 45,
            alpha=0.75,
            label=str(top.condition),
        )
    right.axhline(0.0, color="grey", linewidth=0.8, linestyle="--")
    right.set_xlabel("cosine to the query (best chunk)")
    right.set_ylabel("FD* (document)")
    right.set_title("Each hit: cosine against FD*")
    legend = right.legend(fontsize="small")
    for handle in legend.legend_handles:  # the marker says the condition, not the colour
        if handle is not None:
            handle.set_color("grey")
    drawn.suptitle(f"Expert blindness: {audit.query!r}")
    return save(drawn, path)
