"""POST /search and GET /entities."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from service.api.deps import RuntimeDep
from service.api.schemas import EntityOut
from service.graph.queries import Query as Cypher
from service.retrieval.lucene import fulltext_query
from service.retrieval.pipeline import search as run_search
from service.retrieval.types import SearchOptions, SearchResult
from service.text.identifiers import normalise_entity_id

router = APIRouter(tags=["search"])


@router.post("/search", response_model=SearchResult)
def search(options: SearchOptions, runtime: RuntimeDep) -> SearchResult:
    """Hybrid search with every score explained.

    `mode` picks dense, bm25 or tfidf alone, `hybrid` (the chosen `paths`, normalised and fused)
    or `multisignal` (documents scored on S_doc, S_segment, S_entity, S_triple and S_text).
    Filters apply to every path. The answer lists detected entities, per-stage timings and the
    number of database round trips.
    """
    return run_search(runtime.search, options)


@router.get("/entities", response_model=list[EntityOut])
def entities(
    runtime: RuntimeDep,
    q: Annotated[str, Query(min_length=1, max_length=512, description="Name or alias.")],
    limit: Annotated[int, Query(ge=1, le=200)] = 20,
) -> list[EntityOut]:
    """Entities whose name or alias matches `q` (an exact name or alias first), with how often
    documents mention them."""
    lucene = fulltext_query(q)
    if lucene is None:
        return []
    parameters = {"exact_id": normalise_entity_id(q), "query": lucene, "limit": limit}
    return runtime.graph.models(Cypher.FIND_ENTITIES, EntityOut, parameters)
