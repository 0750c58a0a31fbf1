"""``metadata``: exact identifiers, tags named in the query, and same-folder clustering around
the documents of identifiers mentioned in at most ``k`` chunks
(``search/metadata_chunks.cypher``)."""

from __future__ import annotations

from anchorgraph.graph.queries import Query
from anchorgraph.retrieval.paths.base import (
    Level,
    PathName,
    Reader,
    SearchPath,
    Weights,
    candidates,
)
from anchorgraph.retrieval.values import AnalyzedQuery, Candidate, Scope


class MetadataPath:
    """Exact identifiers, tags named in the query, and same-folder clustering around the
    documents of identifiers mentioned in at most ``k`` chunks."""

    name = PathName.METADATA

    def retrieve(self, read: Reader, query: AnalyzedQuery, k: int, scope: Scope) -> list[Candidate]:
        if not query.identifiers and not query.terms:
            return []
        parameters = {
            "identifier_ids": query.identifiers,
            "terms": query.terms,
            # An identifier in more than k chunks fills the path by itself, and the folders of
            # a code in 853 of 100,000 generated chunks took the path from ~3 ms to ~95 ms.
            "max_cluster_mentions": k,
            # A folder or tag of more than k documents ties them all: the path could only keep k
            # of them by id (metadata_chunks.cypher).
            "max_folder_entries": k,
            "max_tagged_documents": k,
            "k": k,
            **scope.parameters(),
        }
        return candidates(read(Query.METADATA_CHUNKS, parameters))


PATH = SearchPath(
    level=Level.CHUNK,
    weights=Weights(chunk=0.05, document=0.1),
    finder=MetadataPath(),
    small=True,
)
