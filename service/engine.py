"""What the evaluation and the benchmarks replay and measure the engine with.

Not the public API (that is ``anchorgraph`` itself): the stages of a search (``retrieve``,
``rank_candidates``, ``search`` over a ``SearchContext``), what it scores with (``Normalisation``,
``Fusion``, ``multisignal_ranking``, ``rocchio``, ``fd_reranked``, ``rescale``), so that an offline
replay ranks exactly as a search does, and the pieces a harness sets a graph up with
(``LocalNeo4j``, ``read_beir_corpus``, ``ingest_with_progress``, ``link_corpus``, the FD*
authorities, ``Query``/``cypher`` for the auto-commit statements). Its names may change with the
engine. The import contracts (pyproject.toml) let ``anchorgraph.evaluation`` import this module and
the public API, nothing else; unlike the public API's, these imports are plain, so import-linter
sees each one.
"""

from anchorgraph.embedding import Embedder
from anchorgraph.factual_density import rescale
from anchorgraph.graph.local_server import LocalNeo4j, free_port
from anchorgraph.graph.queries import Query, cypher
from anchorgraph.graph.rows import DocumentSignalsRow
from anchorgraph.graph.schema import SchemaMode
from anchorgraph.ingestion import ingest_with_progress
from anchorgraph.loaders.fd_stats import SourceAuthority, set_authorities
from anchorgraph.loaders.read import read_beir_corpus
from anchorgraph.loaders.title_links import LinkReport, link_corpus
from anchorgraph.loaders.title_pass import link_titles_in_graph
from anchorgraph.retrieval.analysis import prepare
from anchorgraph.retrieval.context import SearchContext
from anchorgraph.retrieval.defaults import DEFAULT_NO_MATCH_RULE, DOCUMENT_PATH_WEIGHTS
from anchorgraph.retrieval.density import fd_reranked
from anchorgraph.retrieval.evidence import NoMatchRule, evidence_kinds
from anchorgraph.retrieval.feedback import rocchio
from anchorgraph.retrieval.fusion import Fusion
from anchorgraph.retrieval.lucene import escape_lucene
from anchorgraph.retrieval.normalise import Normalisation
from anchorgraph.retrieval.options import Mode
from anchorgraph.retrieval.paths.base import PathName
from anchorgraph.retrieval.pipeline import search
from anchorgraph.retrieval.results import FdScore
from anchorgraph.retrieval.stage_options import (
    ExpandOptions,
    FdOptions,
    FeedbackOptions,
    FusionOptions,
    SignalWeightsIn,
)
from anchorgraph.retrieval.stages import (
    multisignal_pool,
    multisignal_ranking,
    rank_candidates,
    retrieve,
)
from anchorgraph.retrieval.values import AnalyzedQuery, Candidate, DetectedEntity, Ranked, Ranking
from anchorgraph.runtime import startup_objects_frozen
from anchorgraph.scope import DEFAULT_COLLECTION, local_id
from anchorgraph.text.language import Language

__all__ = [
    "DEFAULT_COLLECTION",
    "DEFAULT_NO_MATCH_RULE",
    "DOCUMENT_PATH_WEIGHTS",
    "AnalyzedQuery",
    "Candidate",
    "DetectedEntity",
    "DocumentSignalsRow",
    "Embedder",
    "ExpandOptions",
    "FdOptions",
    "FdScore",
    "FeedbackOptions",
    "Fusion",
    "FusionOptions",
    "Language",
    "LinkReport",
    "LocalNeo4j",
    "Mode",
    "NoMatchRule",
    "Normalisation",
    "PathName",
    "Query",
    "Ranked",
    "Ranking",
    "SchemaMode",
    "SearchContext",
    "SignalWeightsIn",
    "SourceAuthority",
    "cypher",
    "escape_lucene",
    "evidence_kinds",
    "fd_reranked",
    "free_port",
    "ingest_with_progress",
    "link_corpus",
    "link_titles_in_graph",
    "local_id",
    "multisignal_pool",
    "multisignal_ranking",
    "prepare",
    "rank_candidates",
    "read_beir_corpus",
    "rescale",
    "retrieve",
    "rocchio",
    "search",
    "set_authorities",
    "startup_objects_frozen",
]
