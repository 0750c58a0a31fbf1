"""The framework adapters against the real server, model and sample corpus: each retrieves the
museum's founding document for a question about its founding and carries the score breakdown,
FD*, the query's entities and the supporting chunks through to its framework's own types; the
LangChain retriever passes LangChain's own standard tests (langchain-tests), the LlamaIndex one
awaits without blocking the event loop, and neo4j-graphrag reads a bad option as its own
error."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.retrievers import BaseRetriever
from langchain_tests.integration_tests import RetrieversIntegrationTests
from pydantic import ValidationError
from sample_graph import SampleGraphs

from anchorgraph.embedding import Embedder
from anchorgraph.library import Library, open_library
from anchorgraph.retrieval.results import SearchResult
from anchorgraph.settings import Settings

pytestmark = [pytest.mark.integration, pytest.mark.slow]

FOUNDING = "people/helena-vasconcelos.md"
QUESTION = "Who asked the Fundação Aurora to give its collection to a new museum?"
OPTIONS: dict[str, Any] = {"level": "document", "k": 3}


@pytest.fixture(scope="module")
def library(
    sample_graph: SampleGraphs, settings: Settings, embedder: Embedder
) -> Iterator[Library]:
    # As Library.ingest(sample_corpus()) writes it: the settings' extractor (spaCy's pipeline).
    sample_graph(embedder, spacy=True, casing_names=settings.casing_names)
    with open_library(settings, embedder_factory=lambda _: embedder) as library:
        yield library


@pytest.fixture(scope="module")
def direct(library: Library) -> SearchResult:
    """The same search without an adapter: what every adapter must carry through."""
    result = library(QUESTION, explain=True, **OPTIONS)
    assert result.hits[0].document_id == FOUNDING
    return result


def assert_carries_the_breakdown(metadata: dict[str, Any], direct: SearchResult) -> None:
    hit = direct.hits[0]
    assert metadata["document_id"] == FOUNDING and metadata["chunk_id"] == hit.chunk_id
    assert hit.start is not None and (metadata["start"], metadata["end"]) == (hit.start, hit.end)
    assert metadata["citation"] == f"{FOUNDING}, characters {hit.start}–{hit.end}"
    assert metadata["score"] == pytest.approx(hit.score)
    assert set(metadata["paths"]) == set(hit.paths) and {"dense", "doc_bm25"} <= set(hit.paths)
    for name, path in hit.paths.items():
        assert metadata["paths"][name]["contribution"] == pytest.approx(path.contribution)
        assert metadata["paths"][name]["raw"] == pytest.approx(path.raw)
    shares = sum(p["contribution"] for p in metadata["paths"].values())
    assert shares + sum(metadata["priors"].values()) == pytest.approx(metadata["score"], abs=1e-6)
    assert metadata["fd"]["rescaled"] == pytest.approx(hit.fd.rescaled if hit.fd else -1)
    assert metadata["entities"] == [e.model_dump(mode="json") for e in direct.entities]
    assert metadata["title"] == "Helena Vasconcelos, founding director"


def assert_supporting(metadata: list[dict[str, Any]]) -> None:
    supporting = [s for m in metadata for s in m["supporting"]]
    assert supporting, "expand attached no supporting chunk to any hit"
    for support in supporting:
        assert support["text"] and support["path"] and support["path"][0]["anchor_text"]
        assert support["score"] < support["parent_score"]


# --- LangChain ----------------------------------------------------------------------------------
def test_langchain_retriever(library: Library, direct: SearchResult) -> None:
    from langchain_core.documents import Document

    from anchorgraph.adapters.langchain import AnchorgraphRetriever

    retriever = AnchorgraphRetriever(library, **OPTIONS)
    documents = retriever.invoke(QUESTION)
    assert all(isinstance(d, Document) for d in documents) and len(documents) == 3
    assert documents[0].page_content == direct.hits[0].text
    assert documents[0].id == direct.hits[0].chunk_id
    assert_carries_the_breakdown(documents[0].metadata, direct)
    # Keywords of invoke override the retriever's options for one call.
    expanded = retriever.invoke(QUESTION, expand={"links": True})
    assert_supporting([d.metadata for d in expanded])
    assert len(retriever.invoke(QUESTION, k=1)) == 1


def test_langchain_retriever_refuses_bad_options_when_made(library: Library) -> None:
    from anchorgraph.adapters.langchain import AnchorgraphRetriever

    with pytest.raises(ValidationError):
        AnchorgraphRetriever(library, k=0)
    with pytest.raises(ValidationError):
        AnchorgraphRetriever(library, level="chunk", paths=["doc_dense"])


class TestLangChainStandard(RetrieversIntegrationTests):
    """LangChain's own retriever suite (langchain-tests), which builds the retriever from
    keyword parameters alone and asks it for ``k`` documents, made and invoked."""

    # The kit's one async test (ainvoke) runs on anyio's pytest plugin, which leaves its
    # synchronous tests alone (pytest-asyncio's mark would warn on each of them).
    pytestmark = pytest.mark.anyio

    @pytest.fixture(autouse=True)
    def _searcher(self, library: Library) -> None:
        # The kit reads its parameters from properties; the searcher is a module fixture.
        self.searcher = library

    @property
    def retriever_constructor(self) -> type[BaseRetriever]:
        from anchorgraph.adapters.langchain import AnchorgraphRetriever

        return AnchorgraphRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"searcher": self.searcher, "level": "document"}

    @property
    def retriever_query_example(self) -> str:
        return QUESTION


# --- neo4j-graphrag -------------------------------------------------------------------------------
def echo_llm() -> Any:
    """A neo4j-graphrag LLM that answers with the prompt it was given, so that a test reads the
    context GraphRAG built (no real LLM anywhere)."""
    from neo4j_graphrag.llm import LLMInterface, LLMResponse

    class EchoLLM(LLMInterface):
        def invoke(self, input: str, *args: Any, **kwargs: Any) -> LLMResponse:
            return LLMResponse(content=input)

        async def ainvoke(self, input: str, *args: Any, **kwargs: Any) -> LLMResponse:
            return self.invoke(input)

    return EchoLLM(model_name="echo")


def test_graphrag_pipeline_takes_the_retriever_unchanged(
    library: Library, direct: SearchResult
) -> None:
    from neo4j_graphrag.generation import GraphRAG

    from anchorgraph.adapters.graphrag import AnchorgraphRetriever

    retriever = AnchorgraphRetriever(library, **OPTIONS)
    rag = GraphRAG(retriever=retriever, llm=echo_llm())
    answer = rag.search(QUESTION, return_context=True)
    assert QUESTION in answer.answer
    # The founding document's chunk is the first context the LLM reads.
    founding_text = direct.hits[0].text
    assert founding_text in answer.answer
    assert answer.answer.index(founding_text) < answer.answer.index(direct.hits[1].text)
    assert answer.retriever_result is not None
    items = answer.retriever_result.items
    assert len(items) == 3
    assert items[0].metadata is not None
    assert_carries_the_breakdown(items[0].metadata, direct)
    assert answer.retriever_result.metadata is not None
    assert answer.retriever_result.metadata["__retriever"] == "AnchorgraphRetriever"
    # retriever_config passes through: neo4j-graphrag's top_k and any SearchOptions field.
    one = rag.search(
        QUESTION, retriever_config={"top_k": 1, "expand": {"links": True}}, return_context=True
    )
    assert one.retriever_result is not None and len(one.retriever_result.items) == 1
    item = one.retriever_result.items[0]
    assert item.metadata is not None
    supporting = item.metadata["supporting"]
    assert_supporting([item.metadata])
    # What expansion reached is part of the context the LLM reads.
    assert supporting[0]["text"] in item.content and supporting[0]["text"] in one.answer


def test_graphrag_refuses_a_bad_retriever_config_with_its_own_error(library: Library) -> None:
    from neo4j_graphrag.exceptions import SearchValidationError
    from neo4j_graphrag.generation import GraphRAG

    from anchorgraph.adapters.graphrag import AnchorgraphRetriever

    rag = GraphRAG(retriever=AnchorgraphRetriever(library, **OPTIONS), llm=echo_llm())
    with pytest.raises(SearchValidationError) as refused:
        rag.search(QUESTION, retriever_config={"top_k": 0}, return_context=True)
    assert [error["loc"] for error in refused.value.errors] == [("k",)]
    with pytest.raises(SearchValidationError) as unknown:
        rag.search(QUESTION, retriever_config={"bogus": 1}, return_context=True)
    assert [error["loc"] for error in unknown.value.errors] == [("bogus",)]


# --- LlamaIndex -----------------------------------------------------------------------------------
def test_llamaindex_retriever(library: Library, direct: SearchResult) -> None:
    from llama_index.core.schema import MetadataMode, NodeWithScore

    from anchorgraph.adapters.llamaindex import AnchorgraphRetriever

    found = AnchorgraphRetriever(library, **OPTIONS).retrieve(QUESTION)
    assert all(isinstance(f, NodeWithScore) for f in found) and len(found) == 3
    top = found[0]
    assert top.score == pytest.approx(direct.hits[0].score)
    assert top.node.node_id == direct.hits[0].chunk_id
    assert_carries_the_breakdown(top.node.metadata, direct)
    # The LLM reads the title and the text, not the breakdown.
    read = top.node.get_content(metadata_mode=MetadataMode.LLM)
    assert "Helena Vasconcelos, founding director" in read and direct.hits[0].text in read
    assert "contribution" not in read and "fd_raw" not in read
    expanded = AnchorgraphRetriever(library, expand={"links": True}, **OPTIONS).retrieve(QUESTION)
    assert_supporting([f.node.metadata for f in expanded])


def test_llamaindex_aretrieve_leaves_the_event_loop_free(library: Library) -> None:
    from anchorgraph.adapters.llamaindex import AnchorgraphRetriever

    retriever = AnchorgraphRetriever(library, **OPTIONS)

    async def race() -> tuple[bool, list[Any]]:
        retrieval = asyncio.create_task(retriever.aretrieve(QUESTION))
        # Back here after the retrieval's first step: one that blocks the loop is over by then.
        await asyncio.sleep(0)
        busy = not retrieval.done()
        return busy, await retrieval

    busy, found = asyncio.run(race())
    assert busy, "aretrieve held the event loop until its search was over"
    synchronous = retriever.retrieve(QUESTION)
    assert [f.node.node_id for f in found] == [f.node.node_id for f in synchronous]
    assert [f.score for f in found] == pytest.approx([f.score for f in synchronous])
