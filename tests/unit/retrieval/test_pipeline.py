"""The staged search over recorded rows: no server, no model. What the stages do with the rows
the graph would return (fusion, cut, hydration, the round-trip count), and that a ranking stage
is added by listing it, not by editing ``search``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import pytest

from anchorgraph.embedding import HashEmbedder
from anchorgraph.graph.queries import Query
from anchorgraph.retrieval.context import SearchContext, SearchRun
from anchorgraph.retrieval.defaults import DEFAULT_NO_MATCH_RULE
from anchorgraph.retrieval.options import Mode, SearchOptions
from anchorgraph.retrieval.paths.base import PathName
from anchorgraph.retrieval.pipeline import DEFAULT_STAGES, search
from anchorgraph.retrieval.values import Ranking


def candidates(*rows: tuple[str, str, float]) -> list[dict[str, Any]]:
    """A path's row; ids are given within the collection ``notes`` and sent as its keys."""
    return [
        {
            "candidates": [
                {"chunk_id": f"notes/{c}", "document_id": f"notes/{d}", "score": s}
                for c, d, s in rows
            ]
        }
    ]


# FD*'s inputs as hydration reads them: a chunk of twice its bin's mean fd_raw (bin mean 1, sd
# 1), and a document whose bins are not fitted yet.
CHUNK_FD_INPUTS = {
    "fd_raw": 2.0, "n_tokens": 7, "n_claims": 1, "bin": "short", "n": 2, "total": 2.0,
    "total_sq": 4.0,
}  # fmt: skip
DOCUMENT_FD_INPUTS = {
    "fd_raw": 2.0, "n_tokens": 7, "n_claims": 1, "bin": None, "n": None, "total": None,
    "total_sq": None,
}  # fmt: skip


class RecordedGraph:
    """Answers each statement with rows recorded for it, and keeps what was asked and with what
    (but the collections' sizes, which searches share and no search counts). Its one collection
    holds links and entity mentions as told (neither by default)."""

    def __init__(
        self,
        rows: Mapping[Query, list[dict[str, Any]]],
        *,
        links: bool = False,
        mentions: bool = False,
    ) -> None:
        self.rows, self.asked = rows, list[Query]()
        self.given: dict[Query, Mapping[str, Any]] = {}
        self.links, self.mentions = links, mentions

    def read(self, query: Query, parameters: Mapping[str, Any] | None = None) -> Sequence[Any]:
        if query is Query.COLLECTION_SIZES:
            return [
                {
                    "name": "notes",
                    "chunks": 3,
                    "shard": 0,
                    "languages": [["en", 1]],
                    "ranking": None,
                    "has_links": self.links,
                    "has_mentions": self.mentions,
                    "model": None,
                }
            ]
        self.asked.append(query)
        self.given[query] = parameters or {}
        if query is Query.HYDRATE_CHUNKS:
            assert parameters is not None
            chunks = [
                {
                    "chunk_id": c,
                    "title": f"title of {c.partition('/')[2]}",
                    "text": f"text of {c}",
                    "n_tokens": 7,
                    "start": 0,
                    "end": len(f"text of {c}"),
                    "pages": [],
                    "ocr_confidence": None,
                    "source_type": "",
                    "a_source": 1.0,
                    "a_max": 1.0,
                    "chunk": CHUNK_FD_INPUTS,
                    "document": DOCUMENT_FD_INPUTS,
                }
                for c in parameters["chunk_ids"]
            ]
            return [{"chunks": chunks}]
        return self.rows.get(query, [])


ROWS = {
    Query.DENSE_CHUNKS: candidates(("a#0", "a", 0.9), ("b#0", "b", 0.8), ("c#0", "c", 0.1)),
    Query.BM25_CHUNKS: candidates(("c#0", "c", 12.0), ("b#0", "b", 6.0)),
    Query.TFIDF_CHUNKS: candidates(),
    Query.METADATA_CHUNKS: candidates(),
    Query.DETECT_ENTITIES: [],
}
OPTIONS = {"paths": [PathName.DENSE, PathName.BM25], "weights": {"dense": 0.5, "bm25": 0.5}}
REACHED_NOTHING = [{"sources": [], "chunks": []}]  # the expansion's read, finding no hop


@pytest.fixture
def graph() -> RecordedGraph:
    return RecordedGraph(ROWS)


def test_one_path_alone_keeps_its_raw_score(graph: RecordedGraph) -> None:
    # The level's path weights (dense 0.7) are for fusing; a dense search's score is the cosine.
    context = SearchContext(graph, HashEmbedder())
    for mode, scores in ((Mode.DENSE, [0.9, 0.8, 0.1]), (Mode.BM25, [12.0, 6.0])):
        result = search(context, SearchOptions(query="pump valve", mode=mode))
        assert [hit.score for hit in result.hits] == scores


def test_a_hybrid_search_fuses_cuts_and_hydrates_the_recorded_rows(graph: RecordedGraph) -> None:
    context = SearchContext(graph, HashEmbedder())
    result = search(context, SearchOptions(query="pump valve", k=2, explain=True, **OPTIONS))
    # L2-normalised: dense (0.9, 0.8, 0.1)/1.209, bm25 (12, 6)/13.416; equal weights.
    assert [hit.chunk_id for hit in result.hits] == ["b#0", "c#0"]
    assert result.hits[0].score == pytest.approx(0.5 * 0.8 / 1.2083 + 0.5 * 6 / 13.4164, 1e-3)
    assert sum(p.contribution for p in result.hits[0].paths.values()) == pytest.approx(
        result.hits[0].score
    )
    assert result.hits[1].title == "title of c#0" and result.hits[1].rank == 2
    assert {hit.collection for hit in result.hits} == {"notes"} and result.collections == ["notes"]
    assert result.candidates == {"dense": 3, "bm25": 2}
    assert result.round_trips == len(graph.asked)  # every read counted
    # Entities, dense, bm25, and hydration, which reads the hits' FD* with their texts.
    assert graph.asked.count(Query.HYDRATE_CHUNKS) == 1 and Query.FD_INPUTS not in graph.asked
    assert result.round_trips <= 4
    fd = result.hits[0].fd
    assert fd is not None and fd.level == "chunk" and fd.bin_mean == 1.0
    stages = [timing.stage for timing in result.timings]
    assert stages.index("analyse") < stages.index("fuse") < stages.index("cut")
    assert stages[-2:] == ["hydrate", "evidence"]
    context.close()


def test_an_answer_says_whether_any_hit_has_evidence() -> None:
    # Every hydrated text is "text of notes/<chunk>": "notes" is a term of each, "harbour" of
    # none. The dense path alone found the hits, each at the noise level or below it.
    noise = DEFAULT_NO_MATCH_RULE.noise_cosine
    rows = {
        **ROWS,
        Query.DENSE_CHUNKS: candidates(("a#0", "a", noise - 0.05), ("b#0", "b", noise - 0.1)),
        Query.BM25_CHUNKS: candidates(),
    }
    context = SearchContext(RecordedGraph(rows), HashEmbedder())
    nothing = search(context, SearchOptions(query="harbour cranes", k=2))
    assert [hit.chunk_id for hit in nothing.hits] == ["a#0", "b#0"]
    assert not nothing.matched
    assert [hit.evidence and hit.evidence.matched for hit in nothing.hits] == [False, False]
    assert nothing.hits[0].evidence and nothing.hits[0].evidence.cosine == pytest.approx(
        noise - 0.05
    )
    named = search(context, SearchOptions(query="harbour notes", k=2))
    assert named.matched and all(hit.evidence and hit.evidence.terms for hit in named.hits)
    near = {**rows, Query.DENSE_CHUNKS: candidates(("a#0", "a", noise + 0.05))}
    dense = SearchContext(RecordedGraph(near), HashEmbedder())
    assert search(dense, SearchOptions(query="harbour cranes", k=2)).matched
    context.close()
    dense.close()


def test_a_threshold_cuts_before_hydration(graph: RecordedGraph) -> None:
    context = SearchContext(graph, HashEmbedder())
    result = search(context, SearchOptions(query="pump", threshold=0.5, **OPTIONS))
    assert [hit.chunk_id for hit in result.hits] == ["b#0"]
    context.close()


class Reverse:
    """A stand-in rerank: turns the ranking upside down."""

    name = "reverse"

    def wanted(self, options: SearchOptions) -> bool:
        return options.mode is Mode.HYBRID

    def __call__(self, run: SearchRun, ranking: Ranking) -> Ranking:
        return replace(ranking, hits=ranking.hits[::-1])


def test_a_ranking_stage_is_added_by_listing_it(graph: RecordedGraph) -> None:
    plain = SearchContext(graph, HashEmbedder())
    reversed_first = SearchContext(graph, HashEmbedder(), stages=(Reverse(), *DEFAULT_STAGES))
    options = SearchOptions(query="pump valve", k=3, **OPTIONS)
    before = [hit.chunk_id for hit in search(plain, options).hits]
    result = search(reversed_first, options)
    assert [hit.chunk_id for hit in result.hits] == before[::-1]
    assert "reverse" in [timing.stage for timing in result.timings]
    # A stage the options do not want does not run.
    skipped = search(reversed_first, options.model_copy(update={"mode": Mode.DENSE}))
    assert "reverse" not in [timing.stage for timing in skipped.timings]
    plain.close()
    reversed_first.close()


@pytest.mark.parametrize(
    ("links", "mentions", "read"),
    [
        ((True, False, (True, False))),
        ((True, True, (True, True))),
        ((False, True, None)),  # bridges only where the collection is linked too
    ],
    ids=str,
)
def test_the_default_search_expands_along_what_the_collection_holds(
    links: bool, mentions: bool, read: tuple[bool, bool] | None
) -> None:
    graph = RecordedGraph(
        {**ROWS, Query.EXPAND_REACHED: REACHED_NOTHING}, links=links, mentions=mentions
    )
    context = SearchContext(graph, HashEmbedder())
    result = search(context, SearchOptions(query="pump valve", **OPTIONS))
    if read is None:
        assert Query.EXPAND_REACHED not in graph.asked and result.tokens is None
        context.close()
        return
    assert graph.asked.count(Query.EXPAND_REACHED) == 1
    asked = graph.given[Query.EXPAND_REACHED]
    assert (asked["links"], asked["entities"]) == read
    assert "expand" in [timing.stage for timing in result.timings]
    assert result.tokens is not None
    context.close()


def test_a_collection_without_links_or_mentions_pays_no_round_trip_for_the_graph() -> None:
    graph = RecordedGraph({**ROWS, Query.EXPAND_REACHED: REACHED_NOTHING})
    context = SearchContext(graph, HashEmbedder())
    both = {"links": True, "bridges": True}  # the default, and what a request may say
    result = search(context, SearchOptions(query="pump valve", expand=both, **OPTIONS))
    assert Query.EXPAND_REACHED not in graph.asked
    assert "expand" not in [timing.stage for timing in result.timings]
    assert result.tokens is None and result.round_trips == len(graph.asked)
    context.close()


@pytest.mark.parametrize(
    ("turned_off", "read"),
    [
        ({"links": False}, (False, True)),
        ({"bridges": False}, (True, False)),
        ({"links": False, "bridges": False}, None),
    ],
    ids=str,
)
def test_a_request_turns_each_part_of_the_expansion_off(
    turned_off: dict[str, bool], read: tuple[bool, bool] | None
) -> None:
    graph = RecordedGraph(
        {**ROWS, Query.EXPAND_REACHED: REACHED_NOTHING}, links=True, mentions=True
    )
    context = SearchContext(graph, HashEmbedder())
    search(context, SearchOptions(query="pump valve", expand=turned_off, **OPTIONS))
    if read is None:
        assert Query.EXPAND_REACHED not in graph.asked
    else:
        asked = graph.given[Query.EXPAND_REACHED]
        assert (asked["links"], asked["entities"]) == read
    context.close()


def test_bridges_in_a_collection_without_links_when_asked() -> None:
    graph = RecordedGraph({**ROWS, Query.EXPAND_REACHED: REACHED_NOTHING}, mentions=True)
    context = SearchContext(graph, HashEmbedder())
    expand = {"bridges_without_links": True}
    search(context, SearchOptions(query="pump valve", expand=expand, **OPTIONS))
    asked = graph.given[Query.EXPAND_REACHED]
    assert (asked["links"], asked["entities"]) == (False, True)
    context.close()
