"""anchorgraph as a LangChain retriever (the ``langchain`` extra)::

    from anchorgraph import open_search
    from anchorgraph.adapters.langchain import AnchorgraphRetriever

    with open_search() as searcher:
        retriever = AnchorgraphRetriever(searcher, level="document", k=3)
        for document in retriever.invoke("who founded the museum?"):
            print(document.metadata["score"], document.metadata["paths"])

Each ``Document`` is a hit: its chunk's text, with ``hits.hit_metadata`` as metadata (the
score breakdown, FD*, the query's entities and the supporting chunks). Keywords given to
``invoke`` override the retriever's options for that call.
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict

from anchorgraph.adapters.hits import fixed_options, hit_metadata, run
from anchorgraph.library import Searcher


class AnchorgraphRetriever(BaseRetriever):
    """A ``BaseRetriever`` over a ``Searcher`` with fixed ``SearchOptions`` fields, all keywords
    (``AnchorgraphRetriever(searcher=…, k=3)``, as LangChain's standard tests build a retriever;
    the searcher may also come first, unnamed)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    searcher: Searcher
    options: dict[str, Any]

    def __init__(self, searcher: Searcher, **options: Any) -> None:
        super().__init__(searcher=searcher, options=fixed_options(options))

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **overrides: Any
    ) -> list[Document]:
        result = run(self.searcher, query, self.options, overrides)
        return [
            Document(page_content=hit.text, id=hit.chunk_id, metadata=hit_metadata(result, hit))
            for hit in result.hits
        ]
