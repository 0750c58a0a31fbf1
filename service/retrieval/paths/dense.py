"""``dense``: cosine similarity of the query's embedding and each chunk's, by the HNSW
indexes (the graph-wide one or the shards', ``vector_index_plan``), or scored exactly under a
narrow filter (``search/dense_chunks.cypher``, ``search/dense_chunks_exact.cypher``)."""

from __future__ import annotations

from anchorgraph.graph.queries import Query, Statement
from anchorgraph.graph.rows import CandidatesRow
from anchorgraph.graph.shards import CHUNKS, VectorIndexFamily
from anchorgraph.retrieval.paths.base import (
    DenseSearchPath,
    Level,
    PathName,
    Reader,
    Weights,
    candidates,
    vector_index_plan,
)
from anchorgraph.retrieval.values import Candidate, EmbeddedQuery, Scope

# Below this many allowed documents a dense path scores every chunk exactly instead.
EXACT_DENSE_MAX_DOCUMENTS = 2_000


class DensePath:
    """Cosine similarity of embeddings (of chunks, or of whole documents): HNSW indexes (the
    graph-wide one or the shards', ``vector_index_plan``), or exact scoring under a narrow
    filter."""

    def __init__(
        self,
        name: PathName,
        family: VectorIndexFamily,
        approximate: Statement[CandidatesRow],
        exact: Statement[CandidatesRow],
    ) -> None:
        self.name, self._family = name, family
        self._approximate, self._exact = approximate, exact

    def retrieve(self, read: Reader, query: EmbeddedQuery, k: int, scope: Scope) -> list[Candidate]:
        allowed = scope.documents
        if allowed is not None and len(allowed) <= EXACT_DENSE_MAX_DOCUMENTS:
            parameters = {"vector": query.vector, "allowed": sorted(allowed), "k": k}
            return candidates(read(self._exact, parameters))
        plan = vector_index_plan(k, scope, self._family)
        parameters = {
            "vector": query.vector,
            "indexes": list(plan.indexes),
            "k_index": plan.depth,
            "k": k,
            **scope.parameters(),
        }
        return candidates(read(self._approximate, parameters))


PATH = DenseSearchPath(
    level=Level.CHUNK,
    weights=Weights(chunk=0.7, document=0.7),
    finder=DensePath(PathName.DENSE, CHUNKS, Query.DENSE_CHUNKS, Query.DENSE_CHUNKS_EXACT),
)
