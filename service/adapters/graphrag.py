"""anchorgraph as a neo4j-graphrag retriever (the ``graphrag`` extra), so that its ``GraphRAG``
pipeline takes it unchanged::

    from neo4j_graphrag.generation import GraphRAG
    from anchorgraph import open_search
    from anchorgraph.adapters.graphrag import AnchorgraphRetriever

    with open_search() as searcher:
        rag = GraphRAG(retriever=AnchorgraphRetriever(searcher, level="document", k=3), llm=llm)
        answer = rag.search("who founded the museum?", return_context=True)

Each ``RetrieverResultItem`` is a hit: as content, what the LLM reads (``hits.context_text``:
the title, the chunk and the supporting chunks expansion reached); as metadata,
``hits.hit_metadata`` (the score breakdown, FD*, the query's entities, the supporting chunks).
``search`` takes neo4j-graphrag's ``top_k`` (our ``k``) and any ``SearchOptions`` field, which
``GraphRAG.search(retriever_config={...})`` passes through; one it refuses raises
neo4j-graphrag's own ``SearchValidationError``, as its retrievers do.
"""

from __future__ import annotations

from typing import Any

import neo4j
from neo4j_graphrag.exceptions import SearchValidationError
from neo4j_graphrag.retrievers.base import Retriever
from neo4j_graphrag.types import RawSearchResult, RetrieverResultItem
from pydantic import ValidationError

from anchorgraph.adapters.hits import call_options, context_text, fixed_options, hit_metadata
from anchorgraph.library import Searcher


class AnchorgraphRetriever(Retriever):
    """A neo4j-graphrag ``Retriever`` over a ``Searcher`` with fixed ``SearchOptions`` fields."""

    # neo4j-graphrag checks the server version through a driver of its own making; the
    # searcher's runtime already verified the server and its indexes.
    VERIFY_NEO4J_VERSION = False

    def __init__(self, searcher: Searcher, **options: Any) -> None:
        # Retriever.__init__ is not called: all it would do here is relabel the runtime's
        # driver with neo4j-graphrag's user agent, and this retriever never uses a driver.
        self.searcher = searcher
        self.options = fixed_options(options)
        self.neo4j_database = searcher.runtime.settings.neo4j_database

    def get_search_results(
        self, query_text: str, top_k: int | None = None, **options: Any
    ) -> RawSearchResult:
        """Search ``query_text``; ``top_k`` is the number of hits (``k``), and any other
        keyword a ``SearchOptions`` field for this call.

        Raises:
            SearchValidationError: ``top_k`` or an option ``SearchOptions`` refuses.
        """
        overrides = {**options, **({} if top_k is None else {"k": top_k})}
        try:
            asked = call_options(self.searcher, query_text, self.options, overrides)
        except ValidationError as error:
            raise SearchValidationError(error.errors()) from error
        result = self.searcher(asked)
        records = [
            neo4j.Record(  # type: ignore[no-untyped-call]
                {"content": context_text(hit), "metadata": hit_metadata(result, hit)}
            )
            for hit in result.hits
        ]
        metadata = {
            "query": result.query,
            "mode": result.mode.value,
            "level": result.level,
            "entities": [entity.model_dump(mode="json") for entity in result.entities],
            "tokens": None if result.tokens is None else result.tokens.model_dump(),
            "total_ms": result.total_ms,
        }
        return RawSearchResult(records=records, metadata=metadata)

    def default_record_formatter(self, record: neo4j.Record) -> RetrieverResultItem:
        return RetrieverResultItem(content=record["content"], metadata=record["metadata"])
