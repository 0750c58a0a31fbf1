"""anchorgraph inside the frameworks graph-RAG prototypes already use.

One small module per framework, each importing its framework only when it is itself imported
(each is an optional extra of the package: ``pip install anchorgraph[langchain]``):

* ``anchorgraph.adapters.langchain``: ``AnchorgraphRetriever``, a LangChain ``BaseRetriever``;
* ``anchorgraph.adapters.llamaindex``: ``AnchorgraphRetriever``, a LlamaIndex ``BaseRetriever``;
* ``anchorgraph.adapters.graphrag``: ``AnchorgraphRetriever``, a neo4j-graphrag ``Retriever`` that
  ``GraphRAG(retriever=…, llm=…)`` takes unchanged;
* ``anchorgraph.adapters.mcp``: the MCP server of ``anchorgraph mcp``;
* ``anchorgraph.adapters.notebook``: a neighbourhood as a networkx graph.

Each retriever wraps a ``Searcher`` (``open_search`` or ``open_library``) with fixed search
options, validated by ``SearchOptions`` when it is made; the metadata of every item it returns
is ``hit_metadata``'s: the score breakdown, FD*, the query's entities and the supporting chunks.
"""
