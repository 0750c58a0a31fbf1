"""``doc_bm25``: Lucene BM25 over each document's whole text, so overlapping chunks count no
word twice (``search/bm25_documents.cypher``); a document is represented by its first chunk."""

from __future__ import annotations

from anchorgraph.graph.queries import Query
from anchorgraph.retrieval.paths.base import Level, LexicalSearchPath, PathName, Weights
from anchorgraph.retrieval.paths.bm25 import Bm25Path

PATH = LexicalSearchPath(
    level=Level.DOCUMENT,
    weights=Weights(chunk=None, document=0.3),
    finder=Bm25Path(PathName.DOC_BM25, Query.BM25_DOCUMENTS, of_documents=True),
)
