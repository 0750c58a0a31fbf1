"""The candidate paths, one module each, and what is derived from their declarations.

Each module (``dense``, ``bm25``, ``tfidf``, ``metadata``, ``entity``, ``doc_dense``,
``doc_bm25``) holds the thin class that runs its Cypher statement and declares its ``PATH``: the
level it ranks, its family (by its class: what of the query it reads) and its default weight at
each level. From :data:`REGISTERED` come the level's default weights, the document-only paths,
the families the query's weights follow (``query_weights``) and ``anchorgraph tune`` scales
(``tuning``), the paths each stage of a search starts, and so the request's rules, the CLI's
``--paths`` choices, the search page and the evaluation's conditions. Adding a path is its
module (its class, its statement in ``cypher/search`` and the catalogue, its ``PATH``), its name
in :class:`PathName`, its entry below and its test.

The default weights. Chunk level: chosen on SciFact train and NFCorpus dev (docs/benchmarks.md;
``python -m anchorgraph.evaluation.tune``): dense against BM25 at about 0.7 / 0.3 with L2
normalisation; metadata, entity boosting and TF-IDF stay small: they bring candidates in
(identifiers, named entities, rare exact terms) but every 0.1 of their weight cost up to 0.03
NDCG@10 there. Document level: chosen on five corpora of different kinds, one whole corpus left
out at a time (``python -m anchorgraph.evaluation.loo``; docs/benchmarks.md, "A default for
every corpus"), with the floor sum: BM25 over whole documents takes the lexical share, chunk
BM25 a third of it, and the lexical paths' weights follow the dense path's confidence per query
(``query_weights``).
"""

from __future__ import annotations

from anchorgraph.retrieval.paths import bm25, dense, doc_bm25, doc_dense, entity, metadata, tfidf
from anchorgraph.retrieval.paths.base import (
    CandidatePath,
    DenseSearchPath,
    Family,
    Level,
    LexicalSearchPath,
    PathName,
    SearchPath,
)
from anchorgraph.retrieval.values import AnalyzedQuery, EmbeddedQuery, LexicalQuery

# In the order the page shows them.
REGISTERED: tuple[SearchPath, ...] = (
    dense.PATH,
    doc_bm25.PATH,
    doc_dense.PATH,
    bm25.PATH,
    tfidf.PATH,
    metadata.PATH,
    entity.PATH,
)
BY_NAME = {path.name: path for path in REGISTERED}

CHUNK_PATH_WEIGHTS: dict[PathName, float] = {
    path.name: path.weights.chunk for path in REGISTERED if path.weights.chunk is not None
}
DOCUMENT_PATH_WEIGHTS: dict[PathName, float] = {
    path.name: path.weights.document for path in REGISTERED if path.weights.document is not None
}
# Paths that rank whole documents: only document-level searches run them.
DOCUMENT_PATHS = frozenset(path.name for path in REGISTERED if path.level is Level.DOCUMENT)
DENSE_PATH_NAMES = frozenset(path.name for path in REGISTERED if path.family is Family.DENSE)
LEXICAL_PATH_NAMES = frozenset(path.name for path in REGISTERED if path.family is Family.LEXICAL)
SMALL_PATH_NAMES = frozenset(path.name for path in REGISTERED if path.small)

# Grouped by what they read of the query, so that a search can start each group as early as it
# can: the lexical paths while the model embeds the query, the dense ones while the entities are
# looked up, then the rest.
LEXICAL_PATHS: dict[PathName, CandidatePath[LexicalQuery]] = {
    path.name: path.finder for path in REGISTERED if isinstance(path, LexicalSearchPath)
}
DENSE_PATHS: dict[PathName, CandidatePath[EmbeddedQuery]] = {
    path.name: path.finder for path in REGISTERED if isinstance(path, DenseSearchPath)
}
PATHS: dict[PathName, CandidatePath[AnalyzedQuery]] = {
    path.name: path.finder for path in REGISTERED
}
