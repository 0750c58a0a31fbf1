"""What a search asks (the REST body and the Python call alike): ``SearchOptions``, what is
searched and how many hits, then one group of options per stage that has some
(``anchorgraph.retrieval.stage_options``); the rules that tie its fields together; and the flat
shape of API 0.1, read into the groups.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from anchorgraph.retrieval.defaults import (
    CHUNK_PATH_WEIGHTS,
    DEFAULT_DOCUMENT_FUSION,
    DEFAULT_K_OVER,
    DOCUMENT_CONFIDENCE_EXPONENT,
    DOCUMENT_PATH_WEIGHTS,
)
from anchorgraph.retrieval.fields import Flag, Integer, Number, QueryText, Rule
from anchorgraph.retrieval.fusion import Fusion
from anchorgraph.retrieval.paths import DENSE_PATH_NAMES, DOCUMENT_PATHS
from anchorgraph.retrieval.paths.base import PathName
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
from anchorgraph.retrieval.stage_options import (
    ExpandOptions,
    FdOptions,
    FeedbackOptions,
    Filters,
    FusionOptions,
    SignalWeightsIn,
)
from anchorgraph.scope import CollectionName


class Mode(StrEnum):
    """What a search runs: one path alone, fused paths, or multi-signal document scoring."""

    DENSE = "dense"
    BM25 = "bm25"
    TFIDF = "tfidf"
    HYBRID = "hybrid"
    MULTISIGNAL = "multisignal"


EMPTY_PATHS = (
    "List should name at least one path: an empty list fuses nothing (leave paths out, or "
    "send null, to fuse every path of the level)"
)


def _some_path(paths: list[PathName]) -> list[PathName]:
    # Left out (or null) means every path; an empty list would silently be taken for that too.
    if not paths:
        raise PydanticCustomError("paths_empty", EMPTY_PATHS)
    return paths


# The paths a hybrid or multisignal search fuses, when given: at least one.
PathList = Annotated[list[PathName], Rule(_some_path, minItems=1)]


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
        DEFAULT_K_OVER,
        ge=1,
        le=5000,
        validate_default=True,
        description="Candidates fetched per path, at least k: a smaller value (the default "
        f"{DEFAULT_K_OVER} too) is raised to k.",
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
