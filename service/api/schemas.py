"""Request and response models of the REST API."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints


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
    query_runtime: str = Field(
        "torch", description='What embeds a query: "onnx" (ONNX Runtime) or "torch".'
    )


class HealthResponse(BaseModel):
    status: Literal["ok", "degraded", "unavailable"]
    neo4j: Neo4jHealth
    indexes: list[IndexHealth]
    model: ModelHealth


# --- documents ------------------------------------------------------------------------------------
DocumentId = Annotated[str, StringConstraints(min_length=1, max_length=512, strip_whitespace=True)]


class DocumentIn(BaseModel):
    """A document sent as JSON. ``format`` says how to read ``text``."""

    model_config = ConfigDict(extra="forbid")

    id: DocumentId
    text: str
    format: Literal["text", "markdown", "html"] = "text"
    title: str = ""
    uri: str = ""
    source: str = ""
    source_type: str = ""
    folder: str = ""
    tags: list[str] = Field(default_factory=list, max_length=100)


class IngestResult(BaseModel):
    id: str
    status: Literal["written", "unchanged"]
    chunks: int
    mentions: int
    triples: int
    links: int


class ChunkOut(BaseModel):
    id: str
    ordinal: int
    text: str
    start: int
    end: int
    n_tokens: int
    heading_slugs: list[str] = Field(default_factory=list)


class LinkOut(BaseModel):
    chunk_id: str
    href: str
    anchor_text: str = ""
    fragment: str = ""
    target_document: str
    target_chunk: str | None = None
    resolved: bool


class EntityCount(BaseModel):
    id: str
    name: str = ""
    type: str = ""
    count: int


class DocumentOut(BaseModel):
    """A document as stored; a property the graph does not hold takes its default."""

    id: str
    title: str = ""
    uri: str = ""
    source: str = ""
    source_type: str = ""
    folder: str = ""
    tags: list[str] = Field(default_factory=list)
    identifiers: list[str] = Field(default_factory=list)
    n_tokens: int = 0
    content_hash: str = ""
    modified: datetime | None = None
    chunks: list[ChunkOut]
    links: list[LinkOut]
    entities: list[EntityCount]


class DocumentSummary(BaseModel):
    id: str
    title: str = ""
    source: str = ""
    source_type: str = ""
    folder: str = ""
    tags: list[str] = Field(default_factory=list)
    n_tokens: int = 0
    chunks: int


class DocumentPage(BaseModel):
    total: int
    offset: int
    limit: int
    items: list[DocumentSummary]


# --- entities -------------------------------------------------------------------------------------
class EntityOut(BaseModel):
    id: str
    name: str = ""
    type: str = ""
    aliases: list[str] = Field(default_factory=list)
    exact: bool = Field(description="The query names this entity (or one of its aliases).")
    score: float
    mentions: int
    documents: int
