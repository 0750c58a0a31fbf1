"""/audit: the FD* audits of the graph (``anchorgraph.audit``; docs/audits.md), as the CLI's
``anchorgraph audit`` computes them, without the plots."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from anchorgraph.api.deps import AccessDep, RuntimeDep, readable
from anchorgraph.api.errors import EMBEDDED_WITH_ANOTHER_MODEL, problems
from anchorgraph.api.schemas import VISIBLE_CHARACTER
from anchorgraph.audit import (
    BlindnessAudit,
    CoverageAudit,
    LengthAudit,
    TierAudit,
    blindness_audit,
    coverage_audit,
    length_audit,
    read_nodes,
    tier_audit,
)
from anchorgraph.audit.blindness import DEFAULT_K, DEFAULT_LAMBDA, DEFAULT_POOL
from anchorgraph.audit.coverage import (
    DEFAULT_MIN_COSINE,
    DEFAULT_MIN_SHARED,
    DEFAULT_NEIGHBOURS,
    DEFAULT_SAMPLE_SIZE,
)
from anchorgraph.audit.length import DEFAULT_ALPHA
from anchorgraph.audit.tiers import DEFAULT_THRESHOLD
from anchorgraph.retrieval.fields import UTF8, Integer, Number
from anchorgraph.scope import COLLECTION_PATTERN, DEFAULT_COLLECTION, CollectionName

CollectionQuery = Annotated[
    str,
    Query(pattern=COLLECTION_PATTERN, description="The collection audited.", examples=["sample"]),
]

router = APIRouter(prefix="/audit", tags=["audit"])

Claim = Annotated[
    str,
    StringConstraints(
        strip_whitespace=True, min_length=1, max_length=4096, pattern=VISIBLE_CHARACTER
    ),
    UTF8,
]
# Claims one request may hold; `anchorgraph audit coverage` takes a benchmark's thousands.
MAX_CLAIMS = 100
# The largest seed: what numpy's and Python's generators take without a second thought.
MAX_SEED = 2**32 - 1


class CoverageRequest(BaseModel):
    """The claims (or queries) of a benchmark, and the double filter's thresholds."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        json_schema_extra={
            "examples": [{"claims": ["The AG-2048 battery lasts about four years."], "k": 5}]
        },
    )

    claims: list[Claim] = Field(min_length=1, max_length=MAX_CLAIMS)
    collection: CollectionName = Field(DEFAULT_COLLECTION, description="The collection checked.")
    min_cosine: Number = Field(DEFAULT_MIN_COSINE, ge=-1, le=1)
    min_shared: Integer = Field(DEFAULT_MIN_SHARED, ge=0, le=50)
    sample_size: Integer = Field(DEFAULT_SAMPLE_SIZE, ge=1, le=10_000)
    seed: Integer = Field(0, ge=0, le=MAX_SEED)
    k: Integer = Field(DEFAULT_NEIGHBOURS, ge=1, le=100, description="Nearest chunks per claim.")


# Examples of the answers, from the sample corpus (shortened). FastAPI leaves null values out
# of the OpenAPI document, so an example holds none where a field is required.
_LENGTH: dict[str, Any] = {
    "alpha": 0.05,
    "levels": [
        {
            "level": "chunk",
            "n": 31,
            "unbinned": 0,
            "raw": {"r": -0.242, "p": 0.189, "n": 31},
            "star": {"r": -0.110, "p": 0.556, "n": 31},
            "raw_confounded": False,
            "star_confounded": False,
        }
    ],
}
_TIERS: dict[str, Any] = {
    "threshold": 0.1,
    "levels": [
        {
            "level": "document",
            "n": 12,
            "tiers": [{"source_type": "markdown", "n": 12, "mean": 0.0, "sd": 1.0}],
            "sd_between": 0.0,
            "flagged": True,
        }
    ],
}
_COVERAGE: dict[str, Any] = {
    "min_cosine": 0.75,
    "min_shared": 2,
    "k": 2,
    "sample_size": 3,
    "seed": 0,
    "full": {
        "scope": "full",
        "chunks": 31,
        "claims": 1,
        "covered": 1,
        "share": 1.0,
        "aligned_chunks": 1,
        "aligned_share": 0.032,
    },
    "sample": {
        "scope": "sample",
        "chunks": 3,
        "claims": 1,
        "covered": 0,
        "share": 0.0,
        "aligned_chunks": 0,
        "aligned_share": 0.0,
    },
    "sample_ids": ["climate/incident-2022.md#2", "people/rafael-okabe.md#1", "timeline.md#2"],
    "claims": [
        {
            "claim": "The AG-2048 battery lasts about four years at the default interval.",
            "best_cosine": 0.78,
            "covered": True,
            "chunk_id": "climate/ag-2048.md#1",
            "cosine": 0.78,
            "shared": ["ag-2048", "battery", "years"],
            "sample_best_cosine": 0.221,
            "sample_covered": False,
        }
    ],
}
_HIT: dict[str, Any] = {
    "rank": 1,
    "document_id": "climate/ag-2048.md",
    "title": "Aerograph AG-2048 wireless sensor",
    "source_type": "markdown",
    "score": 0.331,
    "cosine": 0.331,
    "cosine_rank": 1,
    "fd_star": -1.473,
    "fd_rescaled": 0.070,
}
_BLINDNESS: dict[str, Any] = {
    "query": "battery life",
    "k": 1,
    "fd_lambda": 0.1,
    "fd_pool": 5,
    "conditions": [
        {"condition": condition, "hits": [_HIT], "composition": {"markdown": 1}}
        for condition in ("cosine", "bm25", "fd_optimised")
    ],
    "fd_only": [],
}


def _example(value: dict[str, Any]) -> dict[str, Any]:
    return {"content": {"application/json": {"example": value}}}


@router.get(
    "/length",
    response_model=LengthAudit,
    responses={200: _example(_LENGTH), **problems(404, 422, 503)},
)
def length(
    runtime: RuntimeDep,
    access: AccessDep,
    collection: CollectionQuery = DEFAULT_COLLECTION,
    alpha: Annotated[float, Query(gt=0, lt=1, examples=[DEFAULT_ALPHA])] = DEFAULT_ALPHA,
) -> LengthAudit:
    """Length confound in a collection: Pearson r and p of FD_raw and of FD* against n_tokens,
    per level (chunks, documents); ``*_confounded`` when p < alpha."""
    return length_audit(read_nodes(runtime.graph, readable(access, collection)), alpha)


@router.get(
    "/tiers", response_model=TierAudit, responses={200: _example(_TIERS), **problems(404, 422, 503)}
)
def tiers(
    runtime: RuntimeDep,
    access: AccessDep,
    collection: CollectionQuery = DEFAULT_COLLECTION,
    threshold: Annotated[float, Query(ge=0, le=10, examples=[DEFAULT_THRESHOLD])] = (
        DEFAULT_THRESHOLD
    ),
) -> TierAudit:
    """Tier variance in a collection (does FD* tell the source tiers apart?): n, mean and SD
    of FD* per source type, and the SD across the types' means, flagged below ``threshold``."""
    return tier_audit(read_nodes(runtime.graph, readable(access, collection)), threshold)


@router.post(
    "/coverage",
    response_model=CoverageAudit,
    responses={200: _example(_COVERAGE), **problems(400, 404, 413, 415, 422, 502, 503)},
)
def coverage(request: CoverageRequest, runtime: RuntimeDep, access: AccessDep) -> CoverageAudit:
    """Corpus–benchmark coverage: the share of the claims some chunk covers (cosine ≥
    ``min_cosine`` and ≥ ``min_shared`` shared keywords), over the full corpus (each claim's
    ``k`` nearest chunks) and over a seeded random sample of ``sample_size`` chunks."""
    return coverage_audit(
        runtime.graph,
        runtime.embedder,
        request.claims,
        readable(access, request.collection),
        min_cosine=request.min_cosine,
        min_shared=request.min_shared,
        sample_size=request.sample_size,
        seed=request.seed,
        k=request.k,
    )


@router.get(
    "/blindness",
    response_model=BlindnessAudit,
    responses={
        200: _example(_BLINDNESS),
        **problems(404, 409, 422, 502, 503, said={409: EMBEDDED_WITH_ANOTHER_MODEL}),
    },
)
def blindness(
    runtime: RuntimeDep,
    access: AccessDep,
    query: Annotated[str, Query(min_length=1, max_length=4096, examples=["battery life"])],
    collection: CollectionQuery = DEFAULT_COLLECTION,
    k: Annotated[int, Query(ge=1, le=50, examples=[DEFAULT_K])] = DEFAULT_K,
    fd_lambda: Annotated[float, Query(ge=0, le=1, examples=[DEFAULT_LAMBDA])] = DEFAULT_LAMBDA,
    fd_pool: Annotated[int, Query(ge=1, le=1000, examples=[DEFAULT_POOL])] = DEFAULT_POOL,
) -> BlindnessAudit:
    """Expert blindness for one query: the top k documents under cosine, BM25 and FD*-optimised
    retrieval (cosine top fd_pool reranked by (1 − λ)·score + λ·FD*_rescaled), each with its source
    type, cosine, cosine rank and FD*, and the source-type composition of each top k."""
    return blindness_audit(
        runtime.search,
        query,
        readable(access, collection),
        k=k,
        fd_lambda=fd_lambda,
        fd_pool=fd_pool,
    )
