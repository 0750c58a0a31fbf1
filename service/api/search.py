"""POST /search and GET /entities."""

from __future__ import annotations

from typing import Annotated

import neo4j
from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from service.api.deps import ResourcesDep
from service.graph.queries import Query as Cypher
from service.graph.queries import cypher
from service.retrieval.lucene import fulltext_query
from service.retrieval.pipeline import search as run_search
from service.retrieval.types import SearchOptions, SearchResult

router = APIRouter(tags=["search"])


@router.post("/search", response_model=SearchResult)
def search(options: SearchOptions, resources: ResourcesDep) -> SearchResult:
    """Hybrid search with every score explained.

    `mode` picks dense, bm25 or tfidf alone, `hybrid` (the chosen `paths`, normalised and fused)
    or `multisignal` (documents scored on S_doc, S_segment, S_entity, S_triple and S_text).
    Filters apply to every path. The answer lists detected entities, per-stage timings and the
    number of database round trips.
    """
    return run_search(resources.search, options)


class EntityOut(BaseModel):
    id: str
    name: str
    type: str
    aliases: list[str]
    exact: bool = Field(description="The query names this entity (or one of its aliases).")
    score: float
    mentions: int
    documents: int


@router.get("/entities", response_model=list[EntityOut])
def entities(
    resources: ResourcesDep,
    q: Annotated[str, Query(min_length=1, max_length=512, description="Name or alias.")],
    limit: Annotated[int, Query(ge=1, le=200)] = 20,
) -> list[EntityOut]:
    """Entities whose name or alias matches `q` (an exact name or alias first), with how often
    documents mention them."""
    lucene = fulltext_query(q)
    if lucene is None:
        return []
    records = resources.driver.execute_query(
        cypher(Cypher.FIND_ENTITIES),
        {"exact_id": resources.search.extractor.entity_id(q), "query": lucene, "limit": limit},
        database_=resources.settings.neo4j_database,
        routing_=neo4j.RoutingControl.READ,
    ).records
    return [
        EntityOut(
            id=r["id"],
            name=r["name"] or r["id"],
            type=r["type"] or "",
            aliases=r["aliases"] or [],
            exact=r["exact"],
            score=r["score"],
            mentions=r["mentions"],
            documents=r["documents"],
        )
        for r in records
    ]
