"""POST /search and GET /entities."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response

from anchorgraph.api.deadline import answered_by
from anchorgraph.api.deps import AccessDep, RuntimeDep
from anchorgraph.api.errors import EMBEDDED_WITH_ANOTHER_MODEL, problems
from anchorgraph.api.metrics import observe_search
from anchorgraph.api.schemas import EntityOut
from anchorgraph.graph.queries import Query as Cypher
from anchorgraph.retrieval.collections import search_scope
from anchorgraph.retrieval.lucene import fulltext_query
from anchorgraph.retrieval.options import SearchOptions, nested
from anchorgraph.retrieval.paths.base import FILTER_OVERFETCH
from anchorgraph.retrieval.pipeline import search as run_search
from anchorgraph.retrieval.results import SearchResult
from anchorgraph.runtime import Runtime
from anchorgraph.scope import Access, CollectionName, local_id, scoped_all
from anchorgraph.text.identifiers import entity_keys

router = APIRouter(tags=["search"])

SEARCH_EXAMPLE: dict[str, Any] = {
    "query": "AG-2048 battery life",
    "mode": "hybrid",
    "level": "chunk",
    "collections": ["sample"],
    "hits": [
        {
            "rank": 1,
            "score": 0.8123,
            "collection": "sample",
            "document_id": "climate/ag-2048.md",
            "chunk_id": "climate/ag-2048.md#1",
            "title": "Aerograph AG-2048 wireless sensor",
            "text": "Specifications. Battery life: about 4 years at one reading every 5 minutes.",
            "n_tokens": 96,
            "paths": {
                "dense": {"raw": 0.61, "normalised": 0.52, "rank": 1, "contribution": 0.364},
                "bm25": {"raw": 7.9, "normalised": 0.71, "rank": 1, "contribution": 0.213},
            },
            "signals": None,
            "fd": None,
            "supporting": [],
            "priors": {},
            "evidence": {
                "matched": True,
                "kinds": ["terms", "dense"],
                "terms": ["2048", "ag", "battery", "life"],
                "cosine": 0.61,
            },
        }
    ],
    "matched": True,
    "entities": [
        {
            "id": "ag-2048",
            "collection": "sample",
            "name": "AG-2048",
            "type": "PRODUCT",
            "how": "exact",
            "score": 1.0,
        }
    ],
    "identifiers": ["ag-2048"],
    "candidates": {"dense": 31, "bm25": 12, "tfidf": 9, "metadata": 3, "entity": 3},
    "feedback_documents": [],
    "tokens": None,
    "timings": [{"stage": "analyse", "ms": 6.1}, {"stage": "paths", "ms": 14.2}],
    "round_trips": 5,
    "total_ms": 23.4,
}
ENTITIES_EXAMPLE: list[dict[str, Any]] = [
    {
        "id": "museu de arte contemporânea",
        "collection": "sample",
        "name": "Museu de Arte Contemporânea",
        "type": "ORG",
        "aliases": ["MAC"],
        "exact": True,
        "score": 1.0,
        "mentions": 9,
        "documents": 5,
    }
]


# When the flat request shape (API 0.1) was deprecated, written as RFC 9745's Deprecation header
# has it: "@" and the Unix time.
FLAT_REQUEST_DEPRECATED = f"@{int(datetime(2026, 12, 4, tzinfo=UTC).timestamp())}"


@router.post(
    "/search",
    response_model=SearchResult,
    responses={
        200: {"content": {"application/json": {"example": SEARCH_EXAMPLE}}},
        **problems(400, 404, 409, 413, 415, 422, 502, 503, said={409: EMBEDDED_WITH_ANOTHER_MODEL}),
    },
)
async def search(
    options: SearchOptions,
    runtime: RuntimeDep,
    access: AccessDep,
    request: Request,
    response: Response,
) -> SearchResult:
    """Hybrid search with every score explained.

    `mode` picks dense, bm25 or tfidf alone, `hybrid` (the chosen `paths`, normalised and fused)
    or `multisignal` (documents scored on S_doc, S_segment, S_entity, S_triple and S_text).
    Filters apply to every path. It searches `collections`, by default every collection the
    key may read (404 for one it may not, as for one that does not exist). The answer lists
    detected entities, per-stage timings and the number of database round trips; each hit says
    what speaks for it beside its nearness to the query (`evidence`), and `matched` is false
    when no hit has any: nothing the collections hold matches the query.

    It answers within the request deadline (`ANCHORGRAPH_REQUEST_DEADLINE_S`): its result, 503
    when Neo4j cannot be reached, or 504 when Neo4j did not answer in time. A collection
    embedded with another model than the API's is refused with 409 (`model-mismatch`), since
    its vectors and the query's would not compare (docs/embeddings.md).

    The options of each stage are grouped (`fusion`, `feedback`, `fd`, `expand`) since API
    version 0.2. A request of the 0.1 shape, every option at the top (`expand_depth`,
    `fd_lambda`, ...), is still answered, with a `Deprecation` header (RFC 9745), until 0.3.
    """
    body = await request.json()  # parsed once already, for ``options``: read from the cache
    if isinstance(body, dict) and nested(body)[1]:
        response.headers["Deprecation"] = FLAT_REQUEST_DEPRECATED
    result = await answered_by(lambda: run_search(runtime.search, options, access))
    observe_search(result)  # its stage timings into GET /metrics
    return result


@router.get(
    "/entities",
    response_model=list[EntityOut],
    responses={
        200: {"content": {"application/json": {"example": ENTITIES_EXAMPLE}}},
        **problems(404, 422, 503),
    },
)
async def entities(
    runtime: RuntimeDep,
    access: AccessDep,
    q: Annotated[
        str, Query(min_length=1, max_length=512, description="Name or alias.", examples=["MAC"])
    ],
    collection: Annotated[
        list[CollectionName] | None,
        Query(
            description="Only in these collections (repeatable); default: every one the key "
            "may read.",
            examples=[["sample"]],
        ),
    ] = None,
    limit: Annotated[int, Query(ge=1, le=200, examples=[20])] = 20,
) -> list[EntityOut]:
    """Entities whose name or alias matches `q` (an exact name or alias first), with how often
    documents mention them; each entity belongs to one collection."""
    lucene = fulltext_query(q)
    if lucene is None:
        return []
    return await answered_by(lambda: _entities(runtime, access, q, lucene, collection, limit))


def _entities(
    runtime: Runtime,
    access: Access,
    q: str,
    lucene: str,
    collection: list[str] | None,
    limit: int,
) -> list[EntityOut]:
    """What ``entities`` answers, read in a worker thread it waits for until the deadline."""
    known = runtime.search.sizes.get(runtime.graph.read, fresh=True)
    scope = search_scope(known, collection, access)
    if scope.empty:
        return []
    parameters = {
        "exact_ids": scoped_all(scope.collections, entity_keys(q)),
        "query": lucene,
        "k_index": limit * FILTER_OVERFETCH,
        "limit": limit,
        "collections": scope.collection_filter,
    }
    found = runtime.graph.models(Cypher.FIND_ENTITIES, EntityOut, parameters)
    return [entity.model_copy(update={"id": local_id(entity.id)}) for entity in found]
