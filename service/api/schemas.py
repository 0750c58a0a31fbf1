"""Request and response models of the REST API."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints
from pydantic.config import JsonDict
from pydantic_core import PydanticCustomError

from anchorgraph.loaders.formats import (
    DOCUMENT_FORMAT_NAMES,
    TEXT_FORMAT_NAMES,
    media_types,
    names,
    suffixes,
)
from anchorgraph.retrieval.fields import JSON_INTEGER, UTF8, VISIBLE, QueryText, Rule, Text
from anchorgraph.retrieval.fields import VISIBLE_CHARACTER as VISIBLE_CHARACTER
from anchorgraph.scope import (
    DEFAULT_COLLECTION,
    ID_RULE,
    MAX_ID_CHARS,
    CollectionName,
    document_id_pattern,
)

CollectionField = Field(
    DEFAULT_COLLECTION,
    description="The collection the document belongs to; its id is unique within it.",
    examples=["default"],
)
ReplaceField = Field(
    False,
    strict=True,
    description="Replace a document of the collection with this id whatever it holds (as "
    "If-Match: * does); without it a write over other content from another origin, or from a "
    "request without a uri, is refused with 409.",
)


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
# An id is a path segment of /documents/{id}: over REST it holds no "%" either, so that it can
# never be taken for a percent-escape (clients that unquote before they quote, as schemathesis
# does, would).
REST_DOCUMENT_ID = document_id_pattern("%")
_REST_DOCUMENT_ID = re.compile(REST_DOCUMENT_ID)


def _document_id(value: str) -> str:
    if _REST_DOCUMENT_ID.match(value) is None:
        raise PydanticCustomError("document_id", "{rule}, and holds no '%'", {"rule": ID_RULE})
    return value


DocumentId = Annotated[
    str,
    StringConstraints(min_length=1, max_length=MAX_ID_CHARS, strip_whitespace=True),
    Rule(_document_id, pattern=REST_DOCUMENT_ID),
    UTF8,
]
Label = Annotated[Text, StringConstraints(max_length=1000)]
Tag = Annotated[Text, StringConstraints(max_length=200)]
# The multipart form of a list of tags: the same bounds, comma-separated.
# (Checked in Python: the Rust regex engine finds the repetition of a Unicode class too large.)
TAG_LIST = r"^[^,]{0,200}(?:,[^,]{0,200}){0,99}$"


def _tag_list(tags: str) -> str:
    parts = tags.split(",")
    if len(parts) > 100 or any(len(part) > 200 for part in parts):
        raise PydanticCustomError(
            "tag_list", "At most 100 comma-separated tags of at most 200 characters each"
        )
    return tags


# Inline rather than the Language enum's $ref: the multipart schema is written out by hand.


def _text_format(value: str) -> str:
    if value not in TEXT_FORMAT_NAMES:
        expected = names(repr(name) for name in TEXT_FORMAT_NAMES)
        raise PydanticCustomError(
            "literal_error", "Input should be {expected}", {"expected": expected}
        )
    return value


# A text format's name (anchorgraph.loaders.formats), checked and listed in the schema as a
# Literal of them would be.
TextFormatName = Annotated[
    str, Field(json_schema_extra={"enum": list(TEXT_FORMAT_NAMES)}), AfterValidator(_text_format)
]
_FILE_ONLY = [name for name in DOCUMENT_FORMAT_NAMES if name not in TEXT_FORMAT_NAMES]

LanguageCode = Literal["en", "pt", "it"]
LanguageField = Field(
    None,
    description="The document's language (ISO 639-1), whose analyzer its full-text search uses: "
    "en, pt or it. Default: its front matter's `language:`, else detected from its text.",
)


# A document's text holds no NUL character: the reader refuses one with 400 (no text holds one;
# UTF-16 without its mark reads as UTF-8 with a NUL in every other byte). Said in the schema, so
# that a request it calls well formed is one the API takes (schemathesis checks exactly that).
# A `not` of a one-character pattern, which a validator reads in one pass, where a pattern
# matching the whole text would backtrack over a long one.
NO_NUL: JsonDict = {"not": {"pattern": "\\x00"}}


class DocumentIn(BaseModel):
    """A document sent as JSON. ``format`` says how to read ``text``."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "id": "notes/sensor.md",
                    "text": "# Sensor note\n\nThe AG-2048 sensor logs every 5 minutes.",
                    "format": "markdown",
                    "tags": ["sensors"],
                }
            ]
        },
    )

    id: DocumentId = Field(
        description="Its id within its collection, without '%'; an id shaped like a path "
        "(notes/a.md) files it in that folder."
    )
    collection: CollectionName = CollectionField
    replace: bool = ReplaceField
    text: Annotated[str, VISIBLE, UTF8] = Field(
        description="The content, at most max_document_bytes in UTF-8 (else 413), without a "
        "NUL character (else 400).",
        json_schema_extra=NO_NUL,
    )
    format: TextFormatName = "text"
    title: Label = Field("", description="Default: from the document (front matter, H1, ...).")
    uri: Label = ""
    source: Label = ""
    source_type: Label = ""
    folder: Label = Field("", description="Default: the folder part of a path-shaped id.")
    tags: list[Tag] = Field(default_factory=list, max_length=100)
    language: LanguageCode | None = LanguageField


class UploadFields(BaseModel):
    """The form fields beside the ``file`` part of a multipart upload."""

    model_config = ConfigDict(extra="forbid")

    id: DocumentId | None = Field(None, description="Default: the file part's file name.")
    collection: CollectionName = CollectionField
    replace: Literal["true", "false"] = Field(
        "false",
        description="'true': replace the document of this id whatever it holds (else 409 when "
        "it holds other content from another origin or from a request without a uri).",
    )
    language: LanguageCode | None = LanguageField
    format: TextFormatName | None = Field(
        None,
        description="How to read a text part. Default: by the file name "
        f"({suffixes(TEXT_FORMAT_NAMES)}), else by the part's content type "
        f"({media_types(TEXT_FORMAT_NAMES)}). A file part of a file format is known by its "
        f"name ({suffixes(_FILE_ONLY)}) or content type ({media_types(_FILE_ONLY)}).",
    )
    title: Label = ""
    source: Label = ""
    source_type: Label = ""
    folder: Label = Field("", description="Default: the folder part of a path-shaped id.")
    tags: Annotated[str, UTF8, AfterValidator(_tag_list)] = Field(
        "",
        description="Comma-separated: at most 100 tags of at most 200 characters.",
        json_schema_extra={"pattern": TAG_LIST},
    )

    def tag_list(self) -> list[str]:
        return [tag.strip() for tag in self.tags.split(",") if tag.strip()]


class IngestResult(BaseModel):
    id: str
    collection: str
    status: Literal["written", "replaced", "unchanged"] = Field(
        description="written: new to the collection; replaced: an earlier version (or, with "
        "replace or If-Match, another origin's) is gone; unchanged: the graph held exactly this."
    )
    etag: str = Field(
        description="The document's version as stored (its content hash), also the response's "
        "ETag header: name it in If-Match to replace this version.",
        examples=["9f2c…"],
    )
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
    pages: list[int] = Field(
        default_factory=list,
        description="The page numbers its text covers (PDF, scans, Word files with page breaks).",
    )
    ocr_confidence: float | None = Field(
        None, description="The mean confidence of the OCR that read its pages, in [0, 1]."
    )


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
    """A document as stored; a property the graph does not hold takes its default. Every id in
    it is an id within its collection."""

    collection: str
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
    n_pages: int = Field(0, description="Its pages (PDF, TIFF, image); 0 for other formats.")
    ocr_confidence: float | None = Field(
        None, description="The mean confidence of the OCR that read its scanned pages, in [0, 1]."
    )
    language: str = Field(
        "en",
        description="Its language (ISO 639-1: en, pt, it), declared or detected; its "
        "full-text search uses that language's analyzer.",
    )
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
    collection: str
    total: int
    offset: int
    limit: int
    items: list[DocumentSummary]


class CollectionOut(BaseModel):
    """A collection and what it holds."""

    name: str
    documents: int
    chunks: int
    entities: int
    created: datetime | None = None
    ranking: str | None = Field(
        None,
        description="The name of its own fusion weights (anchorgraph tune), which hybrid "
        "searches of it alone use; null: the defaults.",
    )


# --- judgments ------------------------------------------------------------------------------------
class JudgmentIn(BaseModel):
    """Whether a document answers a query: what a relevant / not relevant button sends."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "query": "AG-2048 battery life",
                    "document_id": "climate/ag-2048.md",
                    "collection": "sample",
                    "relevant": True,
                }
            ]
        },
    )

    query: QueryText = Field(description="The query's text, as it was searched.")
    document_id: DocumentId = Field(description="The judged document's id in its collection.")
    collection: CollectionName = Field(
        DEFAULT_COLLECTION, description="The document's collection.", examples=["sample"]
    )
    relevant: bool = Field(strict=True, description="Whether the document answers the query.")
    relevance: Annotated[int, Field(ge=0, le=3), JSON_INTEGER] | None = Field(
        None,
        description="A graded judgment, which then counts instead of `relevant` (0 not "
        "relevant … 3 highly relevant); default: 1 when relevant, else 0.",
    )

    @property
    def grade(self) -> int:
        return self.relevance if self.relevance is not None else int(self.relevant)


# --- entities -------------------------------------------------------------------------------------
class EntityOut(BaseModel):
    id: str = Field(description="The entity's id within its collection.")
    collection: str
    name: str = ""
    type: str = ""
    aliases: list[str] = Field(default_factory=list)
    exact: bool = Field(description="The query names this entity (or one of its aliases).")
    score: float
    mentions: int
    documents: int
