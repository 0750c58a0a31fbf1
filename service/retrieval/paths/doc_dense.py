"""``doc_dense``: cosine similarity of the query's embedding and each document's own, by the
document vector index or exactly under a narrow filter, as ``dense`` reads chunks
(``search/dense_documents.cypher``, ``search/dense_documents_exact.cypher``); a document is
represented by its first chunk."""

from __future__ import annotations

from anchorgraph.graph.queries import Query
from anchorgraph.graph.shards import DOCUMENTS
from anchorgraph.retrieval.paths.base import DenseSearchPath, Level, PathName, Weights
from anchorgraph.retrieval.paths.dense import DensePath

PATH = DenseSearchPath(
    level=Level.DOCUMENT,
    weights=Weights(chunk=None, document=0.4),
    finder=DensePath(
        PathName.DOC_DENSE, DOCUMENTS, Query.DENSE_DOCUMENTS, Query.DENSE_DOCUMENTS_EXACT
    ),
)
