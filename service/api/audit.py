"""/audit: the FD* audits of the graph (``service.audit``; docs/audits.md), as the CLI's
``anchorgraph audit`` computes them, without the plots."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from service.api.deps import RuntimeDep
from service.audit import (
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
from service.audit.blindness import DEFAULT_K, DEFAULT_LAMBDA, DEFAULT_POOL
from service.audit.coverage import (
    DEFAULT_MIN_COSINE,
    DEFAULT_MIN_SHARED,
    DEFAULT_NEIGHBOURS,
    DEFAULT_SAMPLE_SIZE,
)
from service.audit.length import DEFAULT_ALPHA
from service.audit.tiers import DEFAULT_THRESHOLD

router = APIRouter(prefix="/audit", tags=["audit"])

Claim = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=4096)]


class CoverageRequest(BaseModel):
    """The claims (or queries) of a benchmark, and the double filter's thresholds."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    claims: list[Claim] = Field(min_length=1, max_length=2000)
    min_cosine: float = Field(DEFAULT_MIN_COSINE, ge=-1, le=1)
    min_shared: int = Field(DEFAULT_MIN_SHARED, ge=0, le=50)
    sample_size: int = Field(DEFAULT_SAMPLE_SIZE, ge=1, le=10_000)
    seed: int = 0
    k: int = Field(DEFAULT_NEIGHBOURS, ge=1, le=100, description="Nearest chunks per claim.")


@router.get("/length", response_model=LengthAudit)
def length(
    runtime: RuntimeDep,
    alpha: Annotated[float, Query(gt=0, lt=1)] = DEFAULT_ALPHA,
) -> LengthAudit:
    """Length confound: Pearson r and p of FD_raw and of FD* against n_tokens, per level
    (chunks, documents); ``*_confounded`` when p < alpha."""
    return length_audit(read_nodes(runtime.graph), alpha)


@router.get("/tiers", response_model=TierAudit)
def tiers(
    runtime: RuntimeDep,
    threshold: Annotated[float, Query(ge=0, le=10)] = DEFAULT_THRESHOLD,
) -> TierAudit:
    """Tier variance (the seed's ghost audit): n, mean and SD of FD* per source type, and the SD
    across the types' means, flagged below ``threshold``."""
    return tier_audit(read_nodes(runtime.graph), threshold)


@router.post("/coverage", response_model=CoverageAudit)
def coverage(request: CoverageRequest, runtime: RuntimeDep) -> CoverageAudit:
    """Corpus–benchmark coverage: the share of the claims some chunk covers (cosine ≥
    ``min_cosine`` and ≥ ``min_shared`` shared keywords), over the full corpus (each claim's
    ``k`` nearest chunks) and over a seeded random sample of ``sample_size`` chunks."""
    return coverage_audit(
        runtime.graph,
        runtime.embedder,
        request.claims,
        min_cosine=request.min_cosine,
        min_shared=request.min_shared,
        sample_size=request.sample_size,
        seed=request.seed,
        k=request.k,
    )


@router.get("/blindness", response_model=BlindnessAudit)
def blindness(
    runtime: RuntimeDep,
    query: Annotated[str, Query(min_length=1, max_length=4096)],
    k: Annotated[int, Query(ge=1, le=50)] = DEFAULT_K,
    fd_lambda: Annotated[float, Query(ge=0, le=1)] = DEFAULT_LAMBDA,
    fd_pool: Annotated[int, Query(ge=1, le=1000)] = DEFAULT_POOL,
) -> BlindnessAudit:
    """Expert blindness for one query: the top k documents under cosine, BM25 and FD*-optimised
    retrieval (cosine top fd_pool reranked by (1 − λ)·score + λ·FD*_rescaled), each with its source
    type, cosine, cosine rank and FD*, and the source-type composition of each top k."""
    return blindness_audit(runtime.search, query, k=k, fd_lambda=fd_lambda, fd_pool=fd_pool)
