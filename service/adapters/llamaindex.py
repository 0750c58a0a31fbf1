"""anchorgraph as a LlamaIndex retriever (the ``llamaindex`` extra)::

    from anchorgraph import open_search
    from anchorgraph.adapters.llamaindex import AnchorgraphRetriever

    with open_search() as searcher:
        retriever = AnchorgraphRetriever(searcher, level="document", k=3)
        for found in retriever.retrieve("who founded the museum?"):
            print(found.score, found.node.metadata["title"], found.node.metadata["paths"])

Each ``NodeWithScore`` is a hit: a ``TextNode`` with the chunk's id and text and
``hits.hit_metadata`` as metadata, scored by the fused score. Only the title and the document
id reach the text an LLM or an embedding model reads; the breakdown stays metadata.
``aretrieve`` runs the same search on a worker thread: the engine is synchronous (the Neo4j
driver's blocking sessions, the model on the CPU), and the event loop serves other tasks
meanwhile.
"""

from __future__ import annotations

import asyncio
from typing import Any

from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from anchorgraph.adapters.hits import fixed_options, hit_metadata, run
from anchorgraph.library import Searcher

# Metadata LlamaIndex puts into the text it hands an LLM or embeds (its default is all of it).
_READ_WITH_THE_TEXT = frozenset({"title", "document_id"})


class AnchorgraphRetriever(BaseRetriever):
    """A ``BaseRetriever`` over a ``Searcher`` with fixed ``SearchOptions`` fields."""

    def __init__(self, searcher: Searcher, **options: Any) -> None:
        super().__init__()
        self.searcher = searcher
        self.options = fixed_options(options)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        result = run(self.searcher, query_bundle.query_str, self.options, {})
        found: list[NodeWithScore] = []
        for hit in result.hits:
            metadata = hit_metadata(result, hit)
            hidden = [key for key in metadata if key not in _READ_WITH_THE_TEXT]
            node = TextNode(
                id_=hit.chunk_id,
                text=hit.text,
                metadata=metadata,
                excluded_llm_metadata_keys=hidden,
                excluded_embed_metadata_keys=hidden,
            )
            found.append(NodeWithScore(node=node, score=hit.score))
        return found

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        # LlamaIndex's default runs _retrieve on the event loop itself, blocking it.
        return await asyncio.to_thread(self._retrieve, query_bundle)
