"""What every adapter hands its framework for one hit: the same metadata everywhere."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from anchorgraph.library import Searcher, grouped
from anchorgraph.retrieval.options import SearchOptions
from anchorgraph.retrieval.results import Hit, SearchResult

# A stand-in query that lets fixed options be validated before any query is known.
_PROBE_QUERY = "options check"


def fixed_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """A retriever's options in their groups, checked now by ``SearchOptions`` (so a bad one
    fails when the retriever is made, not at its first question). ``explain`` is on unless
    turned off: the breakdown is what the adapters carry. Flat names of API 0.1 warn once, on
    the line that made the retriever (this is called from its ``__init__``), not at each
    question."""
    if "query" in options:
        raise TypeError("the query is what the retriever is asked, not one of its options")
    merged = grouped({"explain": True, **options}, caller=2)  # 1: __init__, 2: its caller
    SearchOptions.model_validate({**merged, "query": _PROBE_QUERY})
    return merged


def run(
    searcher: Searcher, query: str, options: Mapping[str, Any], overrides: Mapping[str, Any]
) -> SearchResult:
    """One search with the retriever's options and a call's overrides."""
    return searcher(call_options(searcher, query, options, overrides))


def call_options(
    searcher: Searcher, query: str, options: Mapping[str, Any], overrides: Mapping[str, Any]
) -> SearchOptions:
    """The options of one search: the retriever's, with a call's overrides changing a group's
    fields one by one as the library's do (``expand={"depth": 2}`` keeps the retriever's
    ``expand.links``).

    Raises:
        ValidationError: (pydantic's) an override ``SearchOptions`` refuses.
    """
    return searcher.options(SearchOptions.model_validate({**options, "query": query}), **overrides)


def hit_metadata(result: SearchResult, hit: Hit) -> dict[str, Any]:
    """JSON-ready metadata of a hit: where it is (its document, its chunk, the chunk's
    character span and pages, and ``citation``, all of that as one line), its score and how it
    was made (``paths``:
    each path's raw and normalised score, rank and contribution; ``signals`` in multisignal
    mode; ``priors``; ``fd``), what speaks for it beside its nearness to the query
    (``evidence``) and whether anything in the answer does (``matched``: false when every hit
    is only near the query), the entities the query named and the chunks expansion reached from
    it (``supporting``, each with its link path and inherited score)."""
    dumped = hit.model_dump(mode="json")
    return {
        "collection": hit.collection,
        "document_id": hit.document_id,
        "chunk_id": hit.chunk_id,
        "title": hit.title,
        "start": hit.start,
        "end": hit.end,
        "pages": hit.pages,
        "citation": hit.citation(),
        "rank": hit.rank,
        "score": hit.score,
        "n_tokens": hit.n_tokens,
        "paths": dumped["paths"],
        "signals": dumped["signals"],
        "priors": dumped["priors"],
        "fd": dumped["fd"],
        "evidence": dumped["evidence"],
        "matched": result.matched,
        "supporting": dumped["supporting"],
        "entities": [entity.model_dump(mode="json") for entity in result.entities],
        "query": result.query,
        "mode": result.mode.value,
        "level": result.level,
    }


def context_text(hit: Hit) -> str:
    """The text an LLM reads for a hit: its title and chunk, then each supporting chunk with
    the hop that led to it."""
    parts = [f"{hit.title}\n{hit.text}" if hit.title else hit.text]
    for support in hit.supporting:
        hop = support.path[-1].described() if support.path else ""
        parts.append(f"[{hop} → {support.title or support.document_id}]\n{support.text}")
    return "\n\n".join(parts)
