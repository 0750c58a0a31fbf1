"""/judgments: relevance judgments, recorded from the search page's buttons or any client, which
``anchorgraph tune`` fits a collection's fusion weights to (service/judgments.py)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.concurrency import run_in_threadpool

from anchorgraph.api.deps import AccessDep, RuntimeDep, readable, writable
from anchorgraph.api.errors import problems
from anchorgraph.api.schemas import JudgmentIn
from anchorgraph.judgments import Judgment, collection_judgments, record_judgment
from anchorgraph.scope import COLLECTION_PATTERN, DEFAULT_COLLECTION

router = APIRouter(prefix="/judgments", tags=["judgments"])
_EXAMPLE = {
    "collection": "sample",
    "query": "AG-2048 battery life",
    "document_id": "climate/ag-2048.md",
    "relevance": 1,
    "created": "2026-12-02T10:00:00Z",
    "updated": "2026-12-02T10:00:00Z",
}


@router.post(
    "",
    status_code=201,
    response_model=Judgment,
    responses={
        201: {"content": {"application/json": {"example": _EXAMPLE}}},
        **problems(400, 403, 404, 415, 422, 503),
    },
)
async def judge(judgment: JudgmentIn, runtime: RuntimeDep, access: AccessDep) -> Judgment:
    """Record whether a document answers a query (judging it again replaces the judgment). The
    key must be allowed to write the collection; 404 when it holds no such document."""
    collection = writable(access, judgment.collection)
    return await run_in_threadpool(
        record_judgment,
        runtime.graph,
        collection,
        judgment.query,
        judgment.document_id,
        judgment.grade,
    )


@router.get(
    "",
    responses={
        200: {
            "content": {
                "application/json": {"example": {_EXAMPLE["query"]: {_EXAMPLE["document_id"]: 1}}}
            }
        },
        **problems(404, 422, 503),
    },
)
def judgments(
    runtime: RuntimeDep,
    access: AccessDep,
    collection: Annotated[
        str, Query(pattern=COLLECTION_PATTERN, description="The collection.", examples=["sample"])
    ] = DEFAULT_COLLECTION,
) -> dict[str, dict[str, int]]:
    """A collection's judgments: query → judged document → relevance (0: not relevant)."""
    return collection_judgments(runtime.graph, readable(access, collection))
