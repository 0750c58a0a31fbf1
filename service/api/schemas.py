"""Request and response models of the REST API."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel


class Neo4jHealth(BaseModel):
    reachable: bool
    uri: str
    database: str
    version: str | None = None
    edition: str | None = None
    browser_url: str | None = None
    error: str | None = None


class IndexHealth(BaseModel):
    name: str
    type: str
    state: str
    population_percent: float


class ModelHealth(BaseModel):
    name: str
    dimension: int


class HealthResponse(BaseModel):
    status: Literal["ok", "degraded", "unavailable"]
    neo4j: Neo4jHealth
    indexes: list[IndexHealth]
    model: ModelHealth
