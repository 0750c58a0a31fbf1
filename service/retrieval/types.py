"""The typed values a search passes from the request to the JSON answer.

``SearchOptions`` is what a caller asks for (the REST body and the Python call alike);
``SearchResult`` is what comes back, every hit carrying the scores that made it.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    StringConstraints,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, PydanticCustomError, core_schema

from anchorgraph.factual_density import LengthBin
from anchorgraph.retrieval.defaults import (
    DEFAULT_BRIDGE_MAX_MENTIONS,
    DEFAULT_BRIDGE_THRESHOLD,
    DEFAULT_DOCUMENT_FUSION,
    DEFAULT_EXPAND_QUERY_WEIGHT,
    DEFAULT_FD_LAMBDA,
    DEFAULT_FEEDBACK_WEIGHT,
    DEFAULT_NORMALISATION,
    DEFAULT_RANKING,
    DOCUMENT_CONFIDENCE_EXPONENT,
    SIGNAL_WEIGHTS,
)
from anchorgraph.retrieval.evidence import Evidence
from anchorgraph.retrieval.fusion import Fusion
from anchorgraph.retrieval.normalise import Normalisation
from anchorgraph.retrieval.paths import CHUNK_PATH_WEIGHTS as CHUNK_PATH_WEIGHTS
from anchorgraph.retrieval.paths import DENSE_PATH_NAMES as DENSE_PATH_NAMES
from anchorgraph.retrieval.paths import DOCUMENT_PATH_WEIGHTS as DOCUMENT_PATH_WEIGHTS
from anchorgraph.retrieval.paths import DOCUMENT_PATHS as DOCUMENT_PATHS
from anchorgraph.retrieval.paths.base import PathName as PathName
from anchorgraph.retrieval.rules import (
    AllOf,
    AnyOf,
    Requires,
    any_in,
    differs,
    equals,
    none_in,
    one_of,
    positive,
)
from anchorgraph.retrieval.scoring import SignalBreakdown
from anchorgraph.retrieval.values import EVERYWHERE as EVERYWHERE
from anchorgraph.retrieval.values import AnalyzedQuery as AnalyzedQuery
from anchorgraph.retrieval.values import Candidate as Candidate
from anchorgraph.retrieval.values import CollectionSize as CollectionSize
from anchorgraph.retrieval.values import DetectedEntity as DetectedEntity
from anchorgraph.retrieval.values import EmbeddedQuery as EmbeddedQuery
from anchorgraph.retrieval.values import LexicalQuery as LexicalQuery
from anchorgraph.retrieval.values import Scope as Scope
from anchorgraph.scope import CollectionName


class Mode(StrEnum):
    """What a search runs: one path alone, fused paths, or multi-signal document scoring."""

    DENSE = "dense"
    BM25 = "bm25"
    TFIDF = "tfidf"
    HYBRID = "hybrid"
    MULTISIGNAL = "multisignal"


class LevelFit(BaseModel):
    """The weights fitted for one level of search, and how the judged queries rank with them
    and with the defaults (mean NDCG@10, on the part fitted on and on the part kept aside)."""

    model_config = ConfigDict(frozen=True)

    weights: dict[PathName, float]
    scales: dict[str, float] = Field(
        description="The factors on the default weights per family of paths: dense, lexical "
        "(BM25), small (TF-IDF, metadata, entities)."
    )
    fit_default: float
    fit_tuned: float
    held_default: float
    held_tuned: float


class CollectionRanking(BaseModel):
    """Fusion weights fitted to one collection's judgments (``anchorgraph.retrieval.tuning``),
    stored with the collection; hybrid searches of it alone use them."""

    model_config = ConfigDict(frozen=True)

    name: str = Field(description='What answers call it: "<collection>/tuned-<date>".')
    chunk: LevelFit
    document: LevelFit
    queries: int = Field(description="Judged queries fitted on.")
    held_queries: int = Field(description="Judged queries kept aside and reported on.")
    fitted: str = Field(description="When (ISO 8601, UTC).")


# --- request values -------------------------------------------------------------------------------
def _json_integer(value: object) -> object:
    """Only numbers pass: pydantic's lax mode would also read ``true`` as 1 and ``"10"`` as 10.
    (Strict mode is not used for integers: it refuses ``10.0``, which JSON Schema calls one.)"""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise PydanticCustomError("int_type", "Input should be a valid integer")
    return value


def _valid_unicode(text: str) -> str:
    """Refuse lone surrogates (JSON's ``"\\ud800"``): they cannot be encoded as UTF-8, so Neo4j
    and the answer could not take them."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise PydanticCustomError(
            "unicode_surrogate",
            "Text holds a lone surrogate at position {position}, which is not a character",
            {"position": error.start},
        ) from None
    return text


# Request numbers: JSON numbers only (no booleans, no strings) and always finite; every field
# that takes one also has bounds, so no request can push a score to infinity. (Bounds of an
# optional integer go before the validator, or they stay out of the JSON schema.)
JSON_INTEGER = BeforeValidator(_json_integer)
Integer = Annotated[int, JSON_INTEGER]
Number = Annotated[float, Field(strict=True, allow_inf_nan=False)]
Flag = Annotated[bool, Field(strict=True)]
# Request text: any Unicode string that UTF-8 can carry.
UTF8 = AfterValidator(_valid_unicode)
Text = Annotated[str, UTF8]
ShortText = Annotated[Text, StringConstraints(max_length=512)]

# A character that is neither whitespace (as Python's str.strip and JSON Schema's \s see it) nor
# invisible (what text normalisation removes): a query, an id or a text must hold one to mean
# anything.
VISIBLE_CHARACTER = r"[^\s\x1c-\x1f\x85\u00ad\u180e\u200b-\u200d\u2060\ufeff]"
_VISIBLE = re.compile(VISIBLE_CHARACTER)
BLANK_TEXT = "String should hold a visible character, not only whitespace"


EMPTY_PATHS = (
    "List should name at least one path: an empty list fuses nothing (leave paths out, or "
    "send null, to fuse every path of the level)"
)


class Rule:
    """In ``Annotated[...]``: a rule checked in Python after the type's own checks, which
    refuses in words of its own, and the JSON Schema keywords that say the same rule, so that
    the REST schema and the MCP tool's (both made from the type) publish what is checked."""

    def __init__(self, check: Callable[[Any], Any], **keywords: Any) -> None:
        self.check = check
        self.keywords = keywords

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        return core_schema.no_info_after_validator_function(self.check, handler(source))

    def __get_pydantic_json_schema__(
        self, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {**handler(schema), **self.keywords}


def _visible(text: str) -> str:
    if _VISIBLE.search(text) is None:
        raise PydanticCustomError("string_blank", BLANK_TEXT)
    return text


def _some_path(paths: list[PathName]) -> list[PathName]:
    # Left out (or null) means every path; an empty list would silently be taken for that too.
    if not paths:
        raise PydanticCustomError("paths_empty", EMPTY_PATHS)
    return paths


# The text holds a VISIBLE_CHARACTER: checked with Python's re, as JSON Schema validators (and
# schemathesis) read the pattern, and refused in words (BLANK_TEXT) rather than by quoting it.
VISIBLE = Rule(_visible, pattern=VISIBLE_CHARACTER)
# A visible character and no NUL anywhere: what a query holds. A NUL is no character of any
# language; Lucene and Neo4j would take it as part of a term that nothing can contain.
QUERY_TEXT = "^[^\\x00]*" + VISIBLE_CHARACTER.replace("[^", "[^\\x00", 1) + "[^\\x00]*$"
NUL_IN_TEXT = "String should not hold a NUL character"


def _query_text(text: str) -> str:
    if "\x00" in text:
        raise PydanticCustomError("string_nul", NUL_IN_TEXT)
    return _visible(text)


# What a search looks for: at most 4096 characters, at least one of them visible (whitespace
# alone would rank every chunk on nothing), and no NUL.
QueryText = Annotated[
    str,
    StringConstraints(min_length=1, max_length=4096),
    Rule(_query_text, pattern=QUERY_TEXT),
    UTF8,
]
# The paths a hybrid or multisignal search fuses, when given: at least one.
PathList = Annotated[list[PathName], Rule(_some_path, minItems=1)]


# Upper bound of every fusion weight: the defaults are below 1, and with at most a handful of
# lists fused, scores stay far from float overflow.
MAX_WEIGHT = 100.0


class Filters(BaseModel):
    """Restrictions every path honours; a field left empty does not restrict."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    sources: list[ShortText] = Field(default_factory=list, max_length=100)
    source_types: list[ShortText] = Field(default_factory=list, max_length=100)
    folders: list[ShortText] = Field(
        default_factory=list, max_length=100, description="A folder and everything below it."
    )
    tags: list[ShortText] = Field(
        default_factory=list, max_length=100, description="Documents with any of these tags."
    )
    document_ids: list[ShortText] = Field(default_factory=list, max_length=10_000)
    metadata: dict[ShortText, Annotated[list[ShortText], Field(min_length=1, max_length=100)]] = (
        Field(
            default_factory=dict,
            max_length=20,
            description="Documents whose metadata holds, for every key named, one of its "
            "values: what the file system knows of their files (owner, content_type, etag, an "
            "object's user metadata; docs/sources.md) and what they say of themselves (front "
            "matter, a JSON Lines record's metadata).",
            examples=[{"department": ["legal"], "content_type": ["application/pdf"]}],
        )
    )

    @property
    def active(self) -> bool:
        return bool(
            self.sources
            or self.source_types
            or self.folders
            or self.tags
            or self.document_ids
            or self.metadata
        )

    def parameters(self) -> dict[str, object]:
        """Cypher parameters: ``None`` for "no restriction", as the .cypher files expect."""
        metadata = [{"key": key, "values": values} for key, values in self.metadata.items()]
        return {
            "sources": self.sources or None,
            "source_types": self.source_types or None,
            "folders": [folder.strip("/") for folder in self.folders] or None,
            "tags": self.tags or None,
            "document_ids": self.document_ids or None,
            "metadata": metadata or None,
        }


class SignalWeightsIn(BaseModel):
    """Multi-signal weights (docs/design.md §2; defaults: ``defaults.SIGNAL_WEIGHTS``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    doc: Number = Field(SIGNAL_WEIGHTS.doc, ge=0, le=MAX_WEIGHT)
    segment: Number = Field(SIGNAL_WEIGHTS.segment, ge=0, le=MAX_WEIGHT)
    entity: Number = Field(SIGNAL_WEIGHTS.entity, ge=0, le=MAX_WEIGHT)
    triple: Number = Field(SIGNAL_WEIGHTS.triple, ge=0, le=MAX_WEIGHT)
    text: Number = Field(SIGNAL_WEIGHTS.text, ge=0, le=MAX_WEIGHT)
    fd: Number = Field(
        SIGNAL_WEIGHTS.fd,
        ge=0,
        le=MAX_WEIGHT,
        description="S_fd: the document's FD*_rescaled (off by default).",
    )


class FusionOptions(BaseModel):
    """How the fuse stage combines the candidate paths, and the signals fused beside them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    method: Fusion | None = Field(
        None,
        description="How the paths' normalised scores combine. Default: floor_sum for hybrid "
        "searches at document level (a path that did not find a document counts as its "
        "weakest candidate, not as 0), weighted_sum otherwise.",
    )
    normalisation: Normalisation = Field(
        DEFAULT_NORMALISATION, description="How each path's scores are rescaled before fusion."
    )
    weights: dict[PathName, Annotated[Number, Field(ge=0, le=MAX_WEIGHT)]] = Field(
        default_factory=dict,
        description="Per path; a path left out keeps its default weight for the level.",
    )
    rrf_k: Integer = Field(60, ge=0, le=10_000, description="k of RRF: Σ w / (k + rank).")
    confidence_exponent: Number | None = Field(
        None,
        ge=0,
        le=4,
        description="a of the lexical paths' scaling by the dense path's confidence in a hybrid "
        "search: their weights times clip(((1 − c10) / 0.5)^a, 0.25, 4), c10 the mean cosine "
        "of the dense path's first ten candidates. 0 turns it off. Default: 1.5 at document "
        "level, 0 at chunk level.",
    )
    fd_weight: Number = Field(
        0.0,
        ge=0,
        le=10,
        description="FD* as a signal of the fusion (hybrid mode): FD*_rescaled of every fused "
        "candidate is normalised and fused like a path with this weight. 0: off. Multisignal "
        "mode has signal_weights.fd instead.",
    )
    pagerank_weight: Number = Field(
        0.0,
        ge=0,
        le=10,
        description="The documents' PageRank in the link graph as a prior of the fusion (hybrid "
        "mode; `anchorgraph graph pagerank` computes it). 0: off.",
    )
    walk_weight: Number = Field(
        0.0,
        ge=0,
        le=10,
        description="Personalized PageRank as a prior of the fusion (hybrid mode): a walk over "
        "the chunk–entity–link graph around the top expand.top hits and the query's entities, "
        "restarting there; each candidate's walk score is fused like a path with this weight. "
        "0: off.",
    )


class FeedbackOptions(BaseModel):
    """Pseudo-relevance feedback: the query vector moved towards the top documents of a first
    ranking (Rocchio), and the dense paths run again."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    documents: Annotated[int, Field(ge=0, le=50), JSON_INTEGER] | None = Field(
        None,
        description="The top N documents the query moves towards. Default: 0 (off); 3 is a good "
        "start where queries have many relevant documents.",
    )
    weight: Number = Field(
        DEFAULT_FEEDBACK_WEIGHT,
        ge=0,
        le=10,
        description="How far feedback moves the query: q' = q + weight × (unit centroid).",
    )


class FdOptions(BaseModel):
    """The FD* rerank (factual density, docs/design.md "Factual density")."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rerank: Flag = Field(
        False,
        description="The top `pool` hits scored again as (1 − weight) × score + weight × "
        "FD*_rescaled; the hits below them keep their order at (1 − weight) × score. With mode "
        "'dense' the score is the cosine.",
    )
    weight: Number = Field(
        DEFAULT_FD_LAMBDA,
        ge=0,
        le=1,
        description="λ of the FD* rerank (0.5 cost 0.05 to 0.19 NDCG@10: docs/benchmarks.md).",
    )
    pool: Integer = Field(20, ge=1, le=1000, description="Hits the FD* rerank scores again.")


class ExpandOptions(BaseModel):
    """The expansion stage: hops from the top hits along hyperlinks and through entities."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    links: Flag = Field(
        True,
        description="Follow the top hits' hyperlinks (LINKS_TO) and attach the linked chunks "
        "that the anchor context validates, each with its link path and inherited score. "
        "Skipped where the searched collections hold no link.",
    )
    bridges: Flag = Field(
        True,
        description="Also hop through entities: from a chunk, through a specific entity it "
        "mentions, to another document's chunk mentioning it (where no link leads). With the "
        "same depth, budgets and threshold; alone or beside links. Only in collections that "
        "hold links too, unless bridges_without_links; skipped where none holds an entity "
        "mention.",
    )
    bridges_without_links: Flag = Field(
        False,
        description="Bridge in collections that hold no link as well. Off by default: on the "
        "dev corpora bridges gained where the collection is linked (multi-hop questions over "
        "linked passages) and lost a little where it is not (docs/benchmarks.md).",
    )
    depth: Integer = Field(2, ge=1, le=3, description="Hops followed from a hit, at most.")
    top: Integer = Field(
        10,
        ge=1,
        le=1000,
        description="The top hits expansion starts from (the others may be reached as "
        "supporting chunks).",
    )
    per_hit: Integer = Field(3, ge=1, le=20, description="Supporting chunks per hit, at most.")
    tokens: Integer = Field(
        4000, ge=1, le=100_000, description="Tokens of supporting chunks per answer, at most."
    )
    threshold: Number = Field(
        0.2,
        ge=-1,
        le=1,
        description="Least validation (2·cosine − 1) between a landing chunk and its link's "
        "anchor context.",
    )
    decay: Number = Field(0.95, gt=0, le=1, description="Score kept per further hop.")
    fd_weight: Number = Field(
        0.25,
        ge=0,
        le=1,
        description="How much the anchor chunk's FD* decides what a supporting chunk inherits: "
        "parent × (1 − w + w·FD*) × decay.",
    )
    query_weight: Number = Field(
        DEFAULT_EXPAND_QUERY_WEIGHT,
        ge=0,
        le=1,
        description="How much a supporting chunk's own similarity to the query decides its "
        "score: inherited × (1 − w + w·(1 + cos with the query)/2). 0: it only inherits.",
    )
    bridge_threshold: Number = Field(
        DEFAULT_BRIDGE_THRESHOLD,
        ge=-1,
        le=1,
        description="Least validation (2·cosine − 1) between a bridge's landing chunk and the "
        "chunk it leaves.",
    )
    bridge_max_mentions: Integer = Field(
        DEFAULT_BRIDGE_MAX_MENTIONS,
        ge=2,
        le=10_000,
        description="Only entities that at most this many chunks mention bridge: common ones "
        "join unrelated passages.",
    )
    bridges_beside_links: Flag = Field(
        False,
        description="Bridge out of every hit, also those with a valid link. Default: a hit "
        "bridges only where none of its links is valid (the author's links come first).",
    )
    rank: Flag = Field(
        True,
        description="Put supporting chunks into the ranking itself, by their inherited score, "
        "as well as under their hit: a chunk a hop reached may take a hit's place among the k.",
    )

    @property
    def active(self) -> bool:
        """Whether the stage runs: links, bridges or both."""
        return self.links or self.bridges


# The flat request shape of API 0.1, one object: each of its names and the (group, field) it
# maps to. Accepted for one release beside the nested shape (docs/api.md, "Versions");
# the CLI's flags keep these names.
FLAT_NAMES: dict[str, tuple[str, str]] = {
    "fusion": ("fusion", "method"),
    "normalisation": ("fusion", "normalisation"),
    "weights": ("fusion", "weights"),
    "rrf_k": ("fusion", "rrf_k"),
    "confidence_exponent": ("fusion", "confidence_exponent"),
    "fd_weight": ("fusion", "fd_weight"),
    "pagerank_weight": ("fusion", "pagerank_weight"),
    "walk_weight": ("fusion", "walk_weight"),
    "feedback": ("feedback", "documents"),
    "feedback_weight": ("feedback", "weight"),
    "fd_rerank": ("fd", "rerank"),
    "fd_lambda": ("fd", "weight"),
    "fd_pool": ("fd", "pool"),
    "expand": ("expand", "links"),
    "bridge": ("expand", "bridges"),
    "expand_depth": ("expand", "depth"),
    "expand_top": ("expand", "top"),
    "expand_per_hit": ("expand", "per_hit"),
    "expand_tokens": ("expand", "tokens"),
    "expand_threshold": ("expand", "threshold"),
    "expand_decay": ("expand", "decay"),
    "expand_fd_weight": ("expand", "fd_weight"),
    "expand_query_weight": ("expand", "query_weight"),
    "bridge_threshold": ("expand", "bridge_threshold"),
    "bridge_max_mentions": ("expand", "bridge_max_mentions"),
    "bridge_beside_links": ("expand", "bridges_beside_links"),
    "bridge_without_links": ("expand", "bridges_without_links"),
    "expand_rank": ("expand", "rank"),
}


GROUP_MODELS: dict[str, type[BaseModel]] = {
    "fusion": FusionOptions,
    "feedback": FeedbackOptions,
    "fd": FdOptions,
    "expand": ExpandOptions,
}
GROUPS = frozenset(GROUP_MODELS)


def nested(request: dict[str, Any]) -> tuple[dict[str, Any], tuple[str, ...]]:
    """A request of the flat shape (or one mixing both) in the nested one, and the flat names it
    used. A group's name holding a scalar (``"expand": true``, ``"feedback": 3``,
    ``"fusion": "rrf"``) is the flat field of that name; holding a map or a model, the group. An
    option named both ways takes its grouped value, the current shape saying what is meant; its
    flat value must be valid all the same, as the request's schema has it (a schema refusing the
    pair was more than schemathesis could generate from).

    Raises:
        ValueError: a flat value its field refuses, given beside the grouped one.
    """
    flat = tuple(
        name
        for name, value in request.items()
        if name in FLAT_NAMES and not (name in GROUPS and isinstance(value, dict | BaseModel))
    )
    if not flat:
        return request, ()
    moved = {name: value for name, value in request.items() if name not in flat}
    for name in flat:
        group, field = FLAT_NAMES[name]
        given = moved.get(group)
        if group in moved and not isinstance(given, dict | BaseModel):
            return request, flat  # a group that is no group: the model refuses it as it is
        inside = (
            given.model_dump(exclude_unset=True)
            if isinstance(given, BaseModel)
            else dict(given or {})
        )
        if field in inside:
            _valid_alone(name, group, field, request[name])
        moved[group] = {field: request[name]} | inside
    return moved, flat


def _valid_alone(name: str, group: str, field: str, value: Any) -> None:
    """Raises ``ValueError`` when ``group``'s ``field`` refuses ``value`` (named ``name``)."""
    try:
        GROUP_MODELS[group].model_validate({field: value})
    except ValidationError as error:
        raise ValueError(f"{name}: {error.errors()[0]['msg']}") from None


def _names(paths: frozenset[PathName], last: str) -> str:
    """``"dense or doc_dense"``: the paths in their enum's order."""
    return f" {last} ".join(path for path in PathName if path in paths)


# The rules that tie a request's fields together (anchorgraph.retrieval.rules): each is checked by
# ``SearchOptions`` and published in its JSON schema from the same object. ``level`` chunk and
# ``mode`` hybrid are the defaults, which the rules' schemas take into account.
SEARCH_RULES = (
    Requires(
        when=AllOf((equals("level", "chunk"), differs("mode", Mode.MULTISIGNAL))),
        then=none_in("paths", sorted(DOCUMENT_PATHS)),
        message=f"{_names(DOCUMENT_PATHS, 'and')} rank whole documents: ask for level 'document'",
    ),
    Requires(
        when=positive("feedback.documents"),
        then=AnyOf(
            (
                equals("mode", Mode.DENSE),
                AllOf(
                    (
                        one_of("mode", [Mode.HYBRID, Mode.MULTISIGNAL]),
                        any_in("paths", sorted(DENSE_PATH_NAMES)),
                    )
                ),
            )
        ),
        message="feedback moves the query vector and re-runs the dense paths: "
        f"this search has no {_names(DENSE_PATH_NAMES, 'or')} path",
    ),
    Requires(
        when=positive("fusion.pagerank_weight"),
        then=equals("mode", Mode.HYBRID),
        message="fusion.pagerank_weight is a prior of the fusion: ask for mode 'hybrid'",
    ),
    Requires(
        when=positive("fusion.walk_weight"),
        then=equals("mode", Mode.HYBRID),
        message="fusion.walk_weight is a prior of the fusion: ask for mode 'hybrid'",
    ),
    Requires(
        when=positive("fusion.fd_weight"),
        then=equals("mode", Mode.HYBRID),
        message="fusion.fd_weight fuses FD* with the paths of a hybrid search; multisignal mode "
        "has signal_weights.fd, and any mode can ask for fd.rerank",
    ),
)


def _document_request(schema: dict[str, Any], model: type[BaseModel]) -> None:
    schema["allOf"] = [rule.schema(model) for rule in SEARCH_RULES]
    _flat_shape(schema, model)
    schema["examples"] = [
        {"query": "AG-2048 battery life", "k": 5, "explain": True},
        {"query": "humidity in the storerooms", "level": "document", "expand": {"links": True}},
    ]


def _flat_shape(schema: dict[str, Any], model: type[BaseModel]) -> None:
    """The flat shape of API 0.1 in the request's schema, as the model accepts it: each flat name
    a deprecated property typed as its field, a group's name also its flat field's type, and the
    rules over the flat names too."""
    properties = schema["properties"]
    fields = {group: _inlined_fields(group_model) for group, group_model in GROUP_MODELS.items()}
    for flat, (group, name) in FLAT_NAMES.items():
        spelled = {**fields[group][name], "deprecated": True}
        if flat in GROUPS:  # "expand": true, "feedback": 3, "fusion": "rrf"
            properties[flat] = {"anyOf": [properties[flat], spelled]}
        else:
            properties[flat] = spelled
    spellings = {f"{group}.{name}": flat for flat, (group, name) in FLAT_NAMES.items()}
    grouped = list(schema["allOf"])
    for rule in SEARCH_RULES:
        if (flat_rule := rule.spelled_as(spellings).schema(model)) not in grouped:
            schema["allOf"].append(flat_rule)


def _inlined_fields(model: type[BaseModel]) -> dict[str, dict[str, Any]]:
    """The JSON schema of each of ``model``'s fields, its references made inline."""
    whole = model.model_json_schema()
    definitions = whole.get("$defs", {})

    def inline(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                return inline(definitions[node["$ref"].rsplit("/", 1)[-1]])
            return {key: inline(value) for key, value in node.items()}
        return [inline(item) for item in node] if isinstance(node, list) else node

    inlined: dict[str, dict[str, Any]] = inline(whole["properties"])
    return inlined


class SearchOptions(BaseModel):
    """A search request: what is searched and how many hits, then the options of each stage
    that has some (``fusion``, ``feedback``, ``fd``, ``expand``), each group a model of its own
    that the stage reads."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        json_schema_extra=_document_request,
    )

    query: QueryText
    collections: list[CollectionName] | None = Field(
        default=None,
        min_length=1,
        max_length=100,
        description="The collections searched; default: every collection the caller may read.",
        examples=[["sample"]],
    )
    mode: Mode = Mode.HYBRID
    level: Literal["chunk", "document"] = "chunk"
    k: Integer = Field(10, ge=1, le=1000, description="Results returned.")
    k_over: Integer = Field(
        100,
        ge=1,
        le=5000,
        validate_default=True,
        description="Candidates fetched per path, at least k: a smaller value (the default 100 "
        "too) is raised to k.",
    )
    paths: PathList | None = Field(
        default=None,
        description="Paths fused in hybrid and multisignal modes, at least one; default: all.",
    )
    filters: Filters = Field(default_factory=Filters)
    threshold: Number | None = Field(
        None, ge=-1e6, le=1e6, description="Drop hits scoring below this."
    )
    explain: Flag = Field(
        False, description="Add each path's raw and normalised score, rank and share to hits."
    )
    fusion: FusionOptions = Field(default_factory=FusionOptions)
    signal_weights: SignalWeightsIn = Field(default_factory=SignalWeightsIn)
    feedback: FeedbackOptions = Field(default_factory=FeedbackOptions)
    fd: FdOptions = Field(default_factory=FdOptions)
    expand: ExpandOptions = Field(default_factory=ExpandOptions)

    @model_validator(mode="before")
    @classmethod
    def _grouped(cls, data: Any) -> Any:
        # The flat shape of API 0.1 (FLAT_NAMES), accepted for one release.
        return nested(data)[0] if isinstance(data, dict) else data

    def updated(self, changes: dict[str, Any]) -> SearchOptions:
        """These options with ``changes`` (either shape), validated again: a group's fields
        change one by one, the others keep their values."""
        merged = self.model_dump()
        for name, value in nested(changes)[0].items():
            within = name in GROUPS and isinstance(value, dict)
            merged[name] = {**merged[name], **value} if within else value
        return SearchOptions.model_validate(merged)

    @field_validator("k_over")
    @classmethod
    def _at_least_k(cls, k_over: int, info: ValidationInfo) -> int:
        # Fetching fewer candidates than the hits asked for could only return fewer hits.
        k: int = info.data.get("k", k_over)
        return max(k_over, k)

    @model_validator(mode="after")
    def _consistent(self) -> SearchOptions:
        for rule in SEARCH_RULES:
            rule.check(self)
        return self

    def feedback_documents(self) -> int:
        """How many top documents feed the query vector back (0: no feedback)."""
        return self.feedback.documents or 0

    def fusion_method(self) -> Fusion:
        """The fusion asked for, else ``default_fusion()``."""
        method = self.fusion.method
        return method if method is not None else self.default_fusion()

    def default_fusion(self) -> Fusion:
        """``DEFAULT_DOCUMENT_FUSION`` for a hybrid search of documents, where it was chosen;
        the weighted sum elsewhere."""
        document = self.mode is Mode.HYBRID and self.level == "document"
        return DEFAULT_DOCUMENT_FUSION if document else Fusion.WEIGHTED_SUM

    def lexical_exponent(self) -> float:
        """``fusion.confidence_exponent`` as it applies: the request's, else ``default_exponent``; 0
        outside hybrid searches (a single path keeps its own score, multi-signal scoring its
        own weights)."""
        if self.mode is not Mode.HYBRID:
            return 0.0
        if self.fusion.confidence_exponent is not None:
            return self.fusion.confidence_exponent
        return self.default_exponent()

    def default_exponent(self) -> float:
        """``DOCUMENT_CONFIDENCE_EXPONENT`` for a hybrid search of documents, where it was
        chosen; 0 elsewhere."""
        document = self.mode is Mode.HYBRID and self.document_level
        return DOCUMENT_CONFIDENCE_EXPONENT if document else 0.0

    def path_weights(self) -> dict[PathName, float]:
        """The level's default weights, overridden by the request's."""
        defaults = DOCUMENT_PATH_WEIGHTS if self.document_level else CHUNK_PATH_WEIGHTS
        return {**defaults, **self.fusion.weights}

    @property
    def document_level(self) -> bool:
        """Whether hits are documents (multi-signal scoring always ranks documents)."""
        return self.level == "document" or self.mode is Mode.MULTISIGNAL

    def active_paths(self) -> list[PathName]:
        """The paths this request runs: the mode's one path, or the requested (default: every)
        path that suits the level."""
        single = {Mode.DENSE: PathName.DENSE, Mode.BM25: PathName.BM25, Mode.TFIDF: PathName.TFIDF}
        if self.mode in single:
            return [single[self.mode]]
        if self.paths:
            return list(dict.fromkeys(self.paths))
        return [p for p in PathName if self.document_level or p not in DOCUMENT_PATHS]


# --- between the stages of a search -----------------------------------------------------------
@dataclass(frozen=True)
class Retrieved:
    """What the candidate paths found for the analysed query."""

    query: AnalyzedQuery
    found: dict[PathName, list[Candidate]]
    scope: Scope


@dataclass(frozen=True)
class Ranked:
    """A hit before hydration: its ids, score and explanation (``paths`` only with explain;
    ``fd`` once a stage read it, else at hydration)."""

    chunk_id: str
    document_id: str
    score: float
    paths: dict[str, PathScore]
    signals: Signals | None = None
    fd: FdScore | None = None
    # What lists other than the paths added to the fused score (the priors: priors.FusedPriors).
    signal_contributions: dict[str, float] = field(default_factory=dict)
    supporting: list[Supporting] = field(default_factory=list)  # expansion.Expand


@dataclass(frozen=True)
class Ranking:
    """The hits, best first, with what they were ranked from; each ranking stage gives a new
    one."""

    query: AnalyzedQuery
    found: dict[PathName, list[Candidate]]
    hits: list[Ranked]
    feedback_documents: list[str] = field(default_factory=list)
    lexical_scale: float = 1.0  # the lexical paths' weights were times this (query_weights)
    cut_short: tuple[str, ...] = ()  # stages left out to answer by the request's deadline


# --- results ------------------------------------------------------------------------------------
class PathScore(BaseModel):
    """What one path said about a hit."""

    model_config = ConfigDict(frozen=True)

    raw: float
    normalised: float
    rank: int
    contribution: float


class FdScore(BaseModel):
    """A hit's factual density (``anchorgraph.factual_density``): its chunk's at chunk level, its
    document's at document level, with what FD* was computed from and what it added."""

    model_config = ConfigDict(frozen=True)

    level: Literal["chunk", "document"]
    fd_raw: float = Field(description="Σ prob_fact of the claims / n_tokens.")
    n_claims: int
    n_tokens: int
    length_bin: LengthBin | None = Field(description="None: the graph's bins are not fitted.")
    bin_mean: float | None = Field(description="μ of FD_raw in the length bin.")
    bin_sd: float | None = Field(description="σ of FD_raw in the length bin.")
    source_type: str
    a_source: float = Field(description="The source type's authority (1.0 unless set).")
    a_max: float = Field(1.0, description="The largest authority in the graph (at least 1).")
    z: float | None = Field(None, description="(fd_raw − μ) / σ in the bin; None: no bin.")
    fd_star: float | None = Field(description="FD* = z × a_source; None: no bin.")
    rescaled: float = Field(
        description="FD*_rescaled = Φ(z) × a_source / a_max in [0, 1] (Φ(z) = 0.5 without a bin)."
    )
    contribution: float = Field(
        0.0,
        description="What FD* added to the hit's score: fd_lambda × rescaled in the rerank, "
        "its fused share with fd_weight, its weighted S_fd in multisignal; 0 when unused.",
    )
    reranked_from: float | None = Field(
        None,
        description="The score before the FD* rerank: score = (1 − λ) × this + contribution.",
    )


class LinkHop(BaseModel):
    """One link an expansion followed: from which chunk, its anchor text and where it landed."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["link"] = "link"
    from_chunk_id: str
    anchor_text: str
    href: str
    to_chunk_id: str
    validation: float = Field(description="2·cos − 1 of the landing chunk and the anchor context.")
    anchor_fd: float = Field(description="FD*_rescaled of the chunk the link leaves.")

    def described(self) -> str:
        """The hop in a few words: “anchor text”."""
        return f"“{self.anchor_text or self.href}”"


class EntityHop(BaseModel):
    """One entity bridge an expansion crossed: from a chunk, through an entity it mentions that
    few chunks mention, to another document's chunk mentioning it."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["entity"] = "entity"
    from_chunk_id: str
    entity_id: str = Field(description="The entity's id within its collection.")
    entity: str = Field(description="The entity's name.")
    mentions: int = Field(description="Chunks of the collection that mention the entity.")
    to_chunk_id: str
    validation: float = Field(
        description="2·cos − 1 of the landing chunk and the chunk the bridge leaves."
    )
    anchor_fd: float = Field(description="FD*_rescaled of the chunk the bridge leaves.")

    def described(self) -> str:
        """The hop in a few words: via entity Walter Zanini."""
        return f"via entity {self.entity}"


Hop = Annotated[LinkHop | EntityHop, Field(discriminator="kind")]


class Supporting(BaseModel):
    """A chunk an expansion reached from a hit, with the path (links and entity bridges) and
    its score (``expansion.supporting_score``)."""

    model_config = ConfigDict(frozen=True)

    chunk_id: str
    document_id: str
    title: str = ""
    text: str = ""
    n_tokens: int
    start: int | None = Field(None, description="As a hit's: where its text begins.")
    end: int | None = Field(None, description="As a hit's: where its text ends.")
    pages: list[int] = Field(default_factory=list, description="As a hit's: its pages.")
    document_tokens: int = Field(
        0, description="The whole length of the document it belongs to (set by the hydration)."
    )
    hop: int
    score: float = Field(
        description="parent score × (1 − expand_fd_weight + expand_fd_weight·anchor FD*) × "
        "expand_decay × bridge weight (1 for a link, (1 − ln m / ln N)² for a bridge through an "
        "entity m of the N chunks name) × (1 − expand_query_weight + expand_query_weight·(1 + "
        "cos with the query)/2)"
    )
    parent_score: float
    path: list[Hop]


class TokenAccount(BaseModel):
    """Tokens an answer returns, against the alternatives (the expansion: links, bridges)."""

    model_config = ConfigDict(frozen=True)

    returned: int = Field(description="The hits' chunks and their supporting chunks.")
    without_expansion: int = Field(description="The hits' chunks alone.")
    parent_windows: int = Field(
        description="The hits' chunks and the whole text of every document the expansion "
        "reached (the naive strategy expansion replaces)."
    )


class Signals(BaseModel):
    """Multi-signal document scoring, every signal and its weighted contribution."""

    model_config = ConfigDict(frozen=True)

    s_doc: float
    s_segment: float
    s_entity: float
    s_triple: float
    s_text: float
    s_fd: float
    segment_fallback: bool
    contributions: dict[str, float]
    matched_entities: list[str]

    @classmethod
    def from_breakdown(cls, breakdown: SignalBreakdown, matched_entities: list[str]) -> Signals:
        return cls(
            **{name: getattr(breakdown, name) for name in _SIGNAL_FIELDS},
            contributions=dict(breakdown.contributions),
            matched_entities=matched_entities,
        )


_SIGNAL_FIELDS = (
    "s_doc",
    "s_segment",
    "s_entity",
    "s_triple",
    "s_text",
    "s_fd",
    "segment_fallback",
)


class Hit(BaseModel):
    """One result: a chunk, or a document with its best chunk."""

    model_config = ConfigDict(frozen=True)

    rank: int
    score: float
    collection: str = Field(description="The collection the hit's document belongs to.")
    document_id: str = Field(description="The document's id within its collection.")
    chunk_id: str
    title: str
    text: str
    n_tokens: int
    start: int | None = Field(
        None,
        description="Where the chunk's text begins in its document's normalised text (the "
        "text `GET /documents/{id}` rebuilds from its chunks), a character offset; None for a "
        "chunk written without one.",
    )
    end: int | None = Field(
        None, description="Where the chunk's text ends (exclusive): `text` is [start, end)."
    )
    pages: list[int] = Field(
        default_factory=list,
        description="The pages of its document the chunk's text stands on (PDF, scans, Word "
        "files with page breaks), to cite as `document, page N`: one page, or two where a "
        "sentence runs across a page break; empty for formats without pages.",
    )
    ocr_confidence: float | None = Field(
        None, description="How sure OCR was of the text, in [0, 1]; None: it was not scanned."
    )
    paths: dict[str, PathScore] = Field(
        description="Per path: raw and normalised score, rank, and share of the fused score."
    )
    signals: Signals | None = Field(None, description="Multi-signal breakdown (multisignal).")
    fd: FdScore | None = Field(
        None, description="Factual density FD* and what it added (None: the graph has no FD*)."
    )
    supporting: list[Supporting] = Field(
        default_factory=list, description="Chunks reached along its hyperlinks (expand)."
    )
    priors: dict[str, float] = Field(
        default_factory=dict,
        description="What each prior fused with the paths (fd, pagerank) added to the score; "
        "with the paths' contributions (explain) they add up to it. A chunk the expansion "
        "placed by the score it inherited along a link or bridge (expand.rank) has that score "
        "as its one part, expansion.",
    )
    evidence: Evidence | None = Field(
        None,
        description="What speaks for the hit beside its nearness to the query, and whether "
        "that is enough (`matched`); every search's hits have it (anchorgraph.retrieval.evidence).",
    )

    def citation(self) -> str:
        """Where the text stands: ``reports/1978.pdf, page 2, characters 812–1034`` (``pages
        2–3``), without the page for formats without pages and without the characters for a
        chunk written without its span."""
        where = [self.document_id]
        if self.pages:
            first, last = min(self.pages), max(self.pages)
            where.append(f"page {first}" if first == last else f"pages {first}–{last}")
        if self.start is not None and self.end is not None:
            where.append(f"characters {self.start}–{self.end}")
        return ", ".join(where)


class StageTiming(BaseModel):
    model_config = ConfigDict(frozen=True)

    stage: str
    ms: float


class SearchResult(BaseModel):
    """The answer to a search."""

    model_config = ConfigDict(frozen=True)

    query: str
    mode: Mode
    level: Literal["chunk", "document"]
    collections: list[str] = Field(default_factory=list, description="The collections searched.")
    hits: list[Hit]
    matched: bool = Field(
        description="Whether any hit has evidence (`evidence.matched`): false when nothing "
        "the collections hold matches the query, and the hits are only the texts nearest to "
        "it (or there are none)."
    )
    entities: list[DetectedEntity]
    identifiers: list[str]
    identifiers_as_written: dict[str, str] = Field(
        default_factory=dict,
        description="Each of `identifiers` as the query wrote it, for showing: the entity's id "
        '→ the query\'s text ("aerograph ag-2048" → "AG-2048", named through an alias).',
    )
    ranking: str = Field(
        DEFAULT_RANKING,
        description=f'The fusion used: "{DEFAULT_RANKING}" (the defaults), the searched '
        'collection\'s own weights ("<collection>/tuned-<date>", anchorgraph tune), or "custom" '
        "(the request's own `weights`, `normalisation`, `fusion` or `confidence_exponent`).",
    )
    lexical_scale: float = Field(
        1.0,
        description="The factor the lexical paths' weights were multiplied by, from the dense "
        "path's confidence (`confidence_exponent`); 1.0 where it does not apply.",
    )
    candidates: dict[str, int] = Field(description="Candidates each path returned.")
    feedback_documents: list[str] = Field(
        default_factory=list,
        description="Documents (ids within their collections) whose embeddings moved the query "
        "vector (pseudo-relevance feedback); the dense paths' scores are against the moved "
        "vector.",
    )
    tokens: TokenAccount | None = Field(
        None, description="With expand.links or expand.bridges: tokens returned."
    )
    cut_short: list[str] = Field(
        default_factory=list,
        description="Stages left out so that the search answers by its deadline "
        '(ANCHORGRAPH_REQUEST_DEADLINE_S): "expand" when the expansion would have overrun it, '
        "the hits then unexpanded.",
    )
    timings: list[StageTiming]
    round_trips: int
    total_ms: float

    def _repr_html_(self) -> str:
        """Jupyter shows a result as a compact table (``anchorgraph.retrieval.html``)."""
        from anchorgraph.retrieval.html import result_html  # it imports this module

        return result_html(self)
