"""The options of each stage of a search that has some, each group a model the stage reads
(``SearchOptions.fusion``, ``.feedback``, ``.fd``, ``.expand``, ``.signal_weights``), and the
filters every path honours (``SearchOptions.filters``). The tuned defaults come from
``anchorgraph.retrieval.defaults``.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from anchorgraph.graph.bounds import BRIDGED_MENTIONS
from anchorgraph.retrieval.defaults import (
    DEFAULT_BRIDGE_MAX_MENTIONS,
    DEFAULT_BRIDGE_THRESHOLD,
    DEFAULT_BRIDGES_BESIDE_LINKS,
    DEFAULT_BRIDGES_WITHOUT_LINKS,
    DEFAULT_EXPAND_BRIDGES,
    DEFAULT_EXPAND_DECAY,
    DEFAULT_EXPAND_FD_WEIGHT,
    DEFAULT_EXPAND_LINKS,
    DEFAULT_EXPAND_QUERY_WEIGHT,
    DEFAULT_EXPAND_THRESHOLD,
    DEFAULT_FD_LAMBDA,
    DEFAULT_FEEDBACK_WEIGHT,
    DEFAULT_NORMALISATION,
    DOCUMENT_CONFIDENCE_EXPONENT,
    SIGNAL_WEIGHTS,
)
from anchorgraph.retrieval.fields import JSON_INTEGER, Flag, Integer, Number, ShortText
from anchorgraph.retrieval.fusion import Fusion
from anchorgraph.retrieval.normalise import Normalisation
from anchorgraph.retrieval.paths.base import PathName

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
        "of the dense path's first ten candidates. 0 turns it off. Default: "
        f"{DOCUMENT_CONFIDENCE_EXPONENT:g} at document level, 0 at chunk level.",
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
        DEFAULT_EXPAND_LINKS,
        description="Follow the top hits' hyperlinks (LINKS_TO) and attach the linked chunks "
        "that the anchor context validates, each with its link path and inherited score. "
        "Skipped where the searched collections hold no link.",
    )
    bridges: Flag = Field(
        DEFAULT_EXPAND_BRIDGES,
        description="Also hop through entities: from a chunk, through a specific entity it "
        "mentions, to another document's chunk mentioning it (where no link leads). With the "
        "same depth, budgets and threshold; alone or beside links. Only in collections that "
        "hold links too, unless bridges_without_links; skipped where none holds an entity "
        "mention.",
    )
    bridges_without_links: Flag = Field(
        DEFAULT_BRIDGES_WITHOUT_LINKS,
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
        DEFAULT_EXPAND_THRESHOLD,
        ge=-1,
        le=1,
        description="Least validation (2·cosine − 1) between a landing chunk and its link's "
        "anchor context.",
    )
    decay: Number = Field(
        DEFAULT_EXPAND_DECAY, gt=0, le=1, description="Score kept per further hop."
    )
    fd_weight: Number = Field(
        DEFAULT_EXPAND_FD_WEIGHT,
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
        le=BRIDGED_MENTIONS,
        # The graph keeps bridges for entities at most BRIDGED_MENTIONS chunks mention.
        description="Only entities that at most this many chunks mention bridge: common ones "
        "join unrelated passages.",
    )
    bridges_beside_links: Flag = Field(
        DEFAULT_BRIDGES_BESIDE_LINKS,
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
