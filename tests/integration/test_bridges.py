"""Entity bridges and the walk against the real server and model: a bridge crosses a specific
entity and never a common one, names its entity in the supporting chunk's path, shares the
visited registry with links, is deterministic; on the sample corpus a question's answer is
reached only through an entity; the walk (Personalized PageRank) fuses as a prior."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from sample_graph import SampleGraphs

from anchorgraph.embedding import Embedder
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.queries import Query, cypher
from anchorgraph.ingestion import read_all
from anchorgraph.loaders.entities import EntityExtractor, GazetteerEntry
from anchorgraph.loaders.ingest import Ingestor
from anchorgraph.retrieval.context import SearchContext
from anchorgraph.retrieval.expansion import bridge_weight, inherited_score, supporting_score
from anchorgraph.retrieval.options import SearchOptions
from anchorgraph.retrieval.pipeline import search
from anchorgraph.retrieval.results import EntityHop, LinkHop, SearchResult
from anchorgraph.settings import Settings

pytestmark = [pytest.mark.integration, pytest.mark.slow]

# A small authored corpus: Walter Zanini is named in two documents that do not link to each
# other (a specific entity); São Paulo in every one (a common entity).
PAGES = {
    "zanini.md": (
        "Walter Zanini",
        "Walter Zanini directed the Museum of Contemporary Art in São Paulo from 1963 to 1978 "
        "and built its collection of conceptual art.",
    ),
    "biennial.md": (
        "The 16th Biennial",
        "The 16th Biennial of São Paulo, in 1981, was curated by Walter Zanini, who gave a "
        "whole floor to video art and mail art.",
    ),
    **{
        f"district-{n}.md": (
            f"District {n}",
            f"District {n} of São Paulo has {n + 2} public libraries and a covered market "
            "that opens at dawn.",
        )
        for n in range(6)
    },
}
GAZETTEER = [
    GazetteerEntry(name="Walter Zanini", type="PERSON"),
    GazetteerEntry(name="São Paulo", type="GPE"),
]
QUESTION = "who directed the Museum of Contemporary Art?"


@pytest.fixture(scope="module")
def context(
    graph: Graph, settings: Settings, embedder: Embedder, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SearchContext]:
    graph.driver.execute_query(cypher(Query.DELETE_ALL))
    folder = tmp_path_factory.mktemp("bridges")
    for name, (title, text) in PAGES.items():
        (folder / name).write_text(f"---\ntitle: {title}\n---\n\n{text}\n")
    documents, _ = read_all(settings, folder)
    Ingestor(graph, embedder, EntityExtractor(None, GAZETTEER)).ingest(documents)
    context = SearchContext(graph, embedder)
    yield context
    context.close()


def bridged(context: SearchContext, **options: object) -> SearchResult:
    request = {"query": QUESTION, "k": 1, "bridge": True, "bridge_threshold": -1.0,
               "bridge_without_links": True, "expand": False, "expand_rank": False,
               **options}  # fmt: skip
    return search(context, SearchOptions.model_validate(request))


def test_a_bridge_crosses_a_specific_entity_and_never_a_common_one(
    context: SearchContext,
) -> None:
    answer = bridged(context, bridge_max_mentions=3)
    (hit,) = answer.hits
    assert hit.document_id == "zanini.md"
    # What the bridge added is in the answer's token account, as a link's would be.
    assert answer.tokens is not None
    assert answer.tokens.returned == answer.tokens.without_expansion + hit.supporting[0].n_tokens
    assert [s.document_id for s in hit.supporting] == ["biennial.md"]
    (hop,) = hit.supporting[0].path
    assert isinstance(hop, EntityHop)
    assert (hop.entity, hop.mentions, hop.described()) == (
        "Walter Zanini",
        2,
        "via entity Walter Zanini",
    )
    assert hop.entity_id == "walter zanini"  # within its collection, as every id shown
    # São Paulo, named by all eight chunks, never bridges here: more than √8 of them name it,
    # whatever bridge_max_mentions allows.
    (loose,) = bridged(context, bridge_max_mentions=20, expand_per_hit=10).hits
    assert [s.document_id for s in loose.supporting] == ["biennial.md"]


def test_the_statement_bridges_within_the_bound_it_is_given(graph: Graph) -> None:
    def landings(max_mentions: int) -> dict[str, str]:
        read = graph.read(
            Query.EXPAND_REACHED,
            {
                "sources": ["default/zanini.md#0"],
                "hits": ["default/zanini.md#0"],
                "depth": 1,
                "threshold": 0.2,
                "bridge_threshold": -1.0,
                "links": True,
                "entities": True,
                "beside_links": False,
                "max_mentions": max_mentions,
                "fanout": 20,
                "vector": [1.0] + [0.0] * 383,
            },
        )
        rows = [hop for row in read[0]["sources"] for hop in row["hops"]]
        assert {row["kind"] for row in rows} <= {"entity"}  # no links in this corpus
        rarest: dict[str, tuple[int, str]] = {}
        for row in rows:  # where two entities join the same chunks, the rarer names the hop
            landing = row["landing_document_id"]
            rarest[landing] = min(
                rarest.get(landing, (10**9, "")), (row["mentions"], row["anchor_text"])
            )
        return {landing: name for landing, (_, name) in rarest.items()}

    assert landings(2) == {"default/biennial.md": "Walter Zanini"}
    loose = landings(8)
    assert set(loose) == {f"default/{name}" for name in PAGES} - {"default/zanini.md"}
    assert loose["default/biennial.md"] == "Walter Zanini"
    assert {name for d, name in loose.items() if "district" in d} == {"São Paulo"}
    assert landings(7) == landings(2)  # eight chunks name São Paulo


def test_a_bridge_scores_by_the_formula(context: SearchContext, graph: Graph) -> None:
    (hit,) = bridged(context, bridge_max_mentions=3).hits
    (support,) = hit.supporting
    (hop,) = support.path
    (record,) = graph.driver.execute_query(
        "MATCH (c:Chunk {id: 'default/biennial.md#0'}) RETURN c.embedding AS embedding"
    ).records
    query = context.embedder.embed([QUESTION])[0]
    chunk = np.asarray(record["embedding"])
    cosine = float(np.dot(query, chunk) / (np.linalg.norm(query) * np.linalg.norm(chunk)))
    similarity = (1 + cosine) / 2  # as Neo4j's vector.similarity.cosine gives it
    options = SearchOptions(query=QUESTION)
    inherited = inherited_score(
        hit.score, hop.anchor_fd, options.expand.decay, options.expand.fd_weight
    )
    expected = supporting_score(
        inherited * bridge_weight(2, 8), similarity, options.expand.query_weight
    )
    assert support.score == pytest.approx(expected, rel=1e-4)
    assert support.parent_score == hit.score


def test_without_links_the_default_does_not_bridge_asked_it_does_deterministically(
    context: SearchContext,
) -> None:
    # No link in this corpus: the default search bridges only in linked collections, so the
    # stage does not run at all.
    plain = search(context, SearchOptions(query=QUESTION, k=1, bridge_threshold=-1.0))
    assert not plain.hits[0].supporting
    assert "expand" not in [t.stage for t in plain.timings]
    (asked,) = bridged(context, expand=True, expand_rank=True).hits
    assert asked.supporting and all(isinstance(s.path[0], EntityHop) for s in asked.supporting)
    first = bridged(context)
    assert bridged(context).model_dump(exclude={"timings", "total_ms"}) == first.model_dump(
        exclude={"timings", "total_ms"}
    )
    assert [t.stage for t in first.timings].count("expand") == 1


def test_supporting_documents_enter_the_ranking(context: SearchContext) -> None:
    ranked = bridged(context, k=2, level="document", expand_rank=True, bridge_max_mentions=3)
    assert [hit.document_id for hit in ranked.hits][:2] == ["zanini.md", "biennial.md"]


def test_the_walk_moves_the_entity_neighbour_up(context: SearchContext) -> None:
    alone = {"links": False, "bridges": False}  # the walk alone
    flat = search(context, SearchOptions(query=QUESTION, k=10, level="document", expand=alone))
    walked = search(
        context,
        SearchOptions(
            query=QUESTION,
            k=10,
            level="document",
            expand=alone,
            walk_weight=2.0,
            bridge_max_mentions=3,
            explain=True,
        ),
    )
    place = {hit.document_id: n for n, hit in enumerate(flat.hits)}
    walked_place = {hit.document_id: n for n, hit in enumerate(walked.hits)}
    assert walked_place["biennial.md"] <= place["biennial.md"]
    assert all(hit.priors.get("walk", 0.0) >= 0 for hit in walked.hits)
    assert any(hit.priors.get("walk", 0.0) > 0 for hit in walked.hits)
    assert "priors" in {t.stage for t in walked.timings}


# --- the sample corpus ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sample(context: SearchContext, sample_graph: SampleGraphs, embedder: Embedder) -> SearchContext:
    sample_graph(embedder, gazetteer=True)  # in place of the authored pages
    return context


SAMPLE_QUESTION = "When did the writer of the 1987 flood letter retire?"


def test_on_the_sample_corpus_an_answer_reached_only_through_an_entity(
    sample: SearchContext,
) -> None:
    # The archive letters tell of letter MAC-ARQ-1987-204 and link to no page with its writer's
    # retirement; the timeline names the letter too, and says when Vasconcelos retired.
    options = {"query": SAMPLE_QUESTION, "k": 1, "expand_per_hit": 5}
    (links,) = search(sample, SearchOptions(**options, expand=True, bridge=False)).hits
    (both,) = search(sample, SearchOptions(**options, expand=True, bridge=True)).hits
    assert both.document_id == links.document_id == "archive-letters.md"
    answer = next(s for s in both.supporting if "Vasconcelos retires" in s.text)
    assert answer.document_id == "timeline.md"
    assert answer.chunk_id not in {s.chunk_id for s in links.supporting}
    hop = answer.path[0]
    assert isinstance(hop, EntityHop) and hop.entity == "MAC-ARQ-1987-204"
    assert hop.described() == "via entity MAC-ARQ-1987-204"
    seen = [both.chunk_id] + [s.chunk_id for s in both.supporting]
    assert len(seen) == len(set(seen))  # one registry for links and bridges


def test_a_chunk_with_a_valid_link_does_not_bridge(sample: SearchContext) -> None:
    # The incident report's chunks link on; its hits keep their links and gain no bridge.
    question = "what happened in the Gallery 3 incident?"
    options = {"query": question, "k": 3, "expand_depth": 1, "expand_rank": False}
    links = search(sample, SearchOptions(**options, expand=True, bridge=False)).hits
    both = search(sample, SearchOptions(**options, expand=True, bridge=True)).hits
    linked = [hit for hit in links if hit.supporting]
    assert linked
    for hit in both:
        if hit.chunk_id in {h.chunk_id for h in linked}:
            assert all(isinstance(s.path[0], LinkHop) for s in hit.supporting)


def test_the_statement_reads_no_bridge_out_of_a_chunk_with_a_valid_link(
    sample: SearchContext, graph: Graph
) -> None:
    # The expansion never follows the bridges of a chunk with a valid link, so the statement
    # does not read them: every link valid (threshold -1), no bridge; none valid (1), bridges.
    records, _, _ = graph.driver.execute_query(
        "MATCH (c:Chunk)-[:LINKS_TO]->() WHERE EXISTS { (c)-[:MENTIONS]->(:Entity)"
        "<-[:MENTIONS]-(o:Chunk) WHERE o.document_id <> c.document_id } "
        "RETURN DISTINCT c.id AS id ORDER BY id"
    )
    sources = [record["id"] for record in records]
    assert sources

    def hops(threshold: float) -> set[tuple[str, str]]:
        rows = graph.read(
            Query.EXPAND_REACHED,
            {
                "sources": sources,
                "hits": sources,
                "depth": 1,
                "threshold": threshold,
                "bridge_threshold": -1.0,
                "links": True,
                "entities": True,
                "beside_links": False,
                "max_mentions": 100,
                "fanout": 50,
                "vector": [1.0] + [0.0] * 383,
            },
        )
        reached = rows[0]["sources"]
        return {(row["source_id"], hop["kind"]) for row in reached for hop in row["hops"]}

    every_link_valid, no_link_valid = hops(-1.0), hops(1.0)
    assert {kind for _, kind in every_link_valid} == {"link"}
    assert {source for source, kind in no_link_valid if kind == "entity"} == set(sources)
    # A link below the threshold is never followed, so the read does not send it.
    assert {hop for hop in no_link_valid if hop[1] == "link"} == set()
