"""The framework adapters against the real server, model and sample corpus: each retrieves the
museum's founding document for a question about its founding and carries the score breakdown,
FD*, the query's entities and the supporting chunks through to its framework's own types."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from sample_graph import SampleGraphs

from anchorgraph.embedding import Embedder
from anchorgraph.library import Library, open_library
from anchorgraph.retrieval.types import SearchResult
from anchorgraph.settings import Settings

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]

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


# --- docs/adapters.md -----------------------------------------------------------------------------
def test_the_example_of_docs_adapters_md_runs(
    library: Library,
    settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from anchorgraph.graph.driver import neo4j_auth

    page = (ROOT / "docs" / "adapters.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", page, flags=re.DOTALL)
    assert len(blocks) == 1
    monkeypatch.setenv("ANCHORGRAPH_NEO4J_URI", settings.bolt_uri)
    monkeypatch.setenv("ANCHORGRAPH_NEO4J_PASSWORD", neo4j_auth(settings)[1])
    namespace = {"__name__": "__docs__", "llm": echo_llm()}
    exec(compile(blocks[0], "docs/adapters.md", "exec"), namespace)
    langchain, llamaindex, *graphrag = capsys.readouterr().out.splitlines()
    assert langchain.startswith(f"{FOUNDING} {{'raw': ")
    assert llamaindex.startswith(f"{FOUNDING} 0.")
    # The echoed prompt: neo4j-graphrag's template around the founding document's context.
    assert graphrag[:2] == ["Context:", "Helena Vasconcelos, founding director"]
    assert "[“" in "\n".join(graphrag)  # the link that led to a supporting chunk
