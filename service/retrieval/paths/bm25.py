"""``bm25``: Lucene BM25 over chunk text through Neo4j's full-text index of the query's
language (``search/bm25_chunks.cypher``)."""

from __future__ import annotations

from anchorgraph.graph.queries import Query, Statement
from anchorgraph.graph.rows import CandidatesRow
from anchorgraph.retrieval.paths.base import (
    Level,
    LexicalSearchPath,
    PathName,
    Reader,
    Weights,
    candidates,
    index_depth,
)
from anchorgraph.retrieval.values import Candidate, LexicalQuery, Scope


class Bm25Path:
    """Lucene BM25 through a Neo4j full-text index (over chunk text, or whole documents): the
    index of the query's language, whose analyzer reads the query and the documents in it
    (``anchorgraph.text.language``)."""

    def __init__(
        self, name: PathName, statement: Statement[CandidatesRow], of_documents: bool
    ) -> None:
        self.name, self._statement, self._of_documents = name, statement, of_documents

    def retrieve(self, read: Reader, query: LexicalQuery, k: int, scope: Scope) -> list[Candidate]:
        if query.fulltext is None:
            return []
        parameters = {
            "index": query.language.fulltext_indexes[self._of_documents],
            "query": query.fulltext,
            "k_index": index_depth(k, scope),
            "k": k,
            **scope.parameters(),
        }
        return candidates(read(self._statement, parameters))


PATH = LexicalSearchPath(
    level=Level.CHUNK,
    weights=Weights(chunk=0.3, document=0.1),
    finder=Bm25Path(PathName.BM25, Query.BM25_CHUNKS, of_documents=False),
)
