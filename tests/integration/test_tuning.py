"""A collection's own weights, fitted to judgments recorded through the API: with the fake
embedder the dense paths rank at random, so judgments that name each document by its rare words
favour the lexical paths; the fit must find that, its searches must say so and rank better on
the queries kept aside, and another collection must search exactly as before."""

from __future__ import annotations

import random
from typing import Any

import pytest
from fastapi.testclient import TestClient

from anchorgraph.errors import InvalidInput, NotFound
from anchorgraph.graph.gateway import Graph
from anchorgraph.judgments import collection_judgments, reset_ranking, tune_collection
from anchorgraph.library import Library
from anchorgraph.retrieval.defaults import DEFAULT_RANKING
from anchorgraph.retrieval.tuning import held_out, ndcg_at
from anchorgraph.runtime import Runtime

pytestmark = pytest.mark.integration

FILLER = ("the", "museum", "keeps", "a", "record", "of", "the", "work", "in", "its", "archive",
          "for", "later", "visits")  # fmt: skip


def word(rng: random.Random) -> str:
    return "".join(rng.choice("bcdfghklmnprstvz") + rng.choice("aeiou") for _ in range(4))


def corpus() -> tuple[dict[str, str], dict[str, str]]:
    """30 notes, each with two rare words of its own among common ones; a query per note for
    the first 16, naming one of its rare words among other common ones."""
    rng = random.Random(11)
    notes, queries = {}, {}
    for n in range(30):
        own = [word(rng), word(rng)]
        words = rng.sample(FILLER, 8) + own + rng.sample(FILLER, 6)
        notes[f"note-{n:02d}.md"] = f"# Note {n}\n\n" + " ".join(words) + "."
        if n < 16:
            queries[f"note-{n:02d}.md"] = f"{own[n % 2]} " + " ".join(rng.sample(FILLER, 4))
    return notes, queries


def search(client: TestClient, query: str, collection: str | None, **options: Any) -> Any:
    body = {"query": query, "k": 10, **options}
    if collection is not None:
        body["collections"] = [collection]
    response = client.post("/search", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def test_judgments_tune_one_collection_and_leave_the_others_alone(client: TestClient) -> None:
    notes, queries = corpus()
    for collection in ("codes", "other"):
        for id_, text in notes.items():
            document = {"id": id_, "text": text, "format": "markdown", "collection": collection}
            assert client.post("/documents", json=document).status_code == 201
    for id_, query in queries.items():
        judged = {"query": query, "document_id": id_, "collection": "codes", "relevant": True}
        response = client.post("/judgments", json=judged)
        assert response.status_code == 201, response.text
        assert response.json()["relevance"] == 1
    missing = {"query": "x", "document_id": "nowhere.md", "collection": "codes", "relevant": True}
    assert client.post("/judgments", json=missing).status_code == 404
    assert client.get("/judgments", params={"collection": "codes"}).json() == {
        query: {id_: 1} for id_, query in queries.items()
    }
    before_other = [search(client, q, "other") for q in queries.values()]

    runtime: Runtime = client.app.state.runtime  # type: ignore[attr-defined]
    judgments = collection_judgments(runtime.graph, "codes")
    report = tune_collection(runtime.search, runtime.graph, "codes", judgments)

    assert report.stored and report.changed
    assert (report.queries, report.held_queries) == (16, 5)
    assert "chunk" in report.changed
    for fitted in (report.ranking.chunk, report.ranking.document):
        if fitted.fit_default == 1.0:
            # The defaults already rank every judged query perfectly: nothing to gain, kept.
            assert fitted.scales == {"dense": 1.0, "lexical": 1.0, "small": 1.0}
            continue
        # The judgments favour the lexical paths: more of them against the dense ones.
        assert fitted.scales["dense"] == 0.0 or fitted.scales["lexical"] > 1.0
        assert fitted.fit_tuned > fitted.fit_default
        assert fitted.held_tuned >= fitted.held_default
    held = held_out(judgments)
    name = report.ranking.name
    assert name.startswith("codes/tuned-")
    listed = {c["name"]: c["ranking"] for c in client.get("/collections").json()}
    assert listed == {"codes": name, "other": None}

    # Searches of 'codes' alone use its weights and rank the held queries at least as well.
    for level in ("chunk", "document"):
        tuned = default = 0.0
        for query in held:
            relevant = {id_: 1 for id_, q in queries.items() if q == query}
            result = search(client, query, "codes", level=level)
            assert result["ranking"] == name
            tuned += ndcg_at([h["document_id"] for h in result["hits"]], relevant)
            plain = search(
                client, query, "codes", level=level, weights={"dense": 0.7}
            )  # the request's own: the defaults' dense
            assert plain["ranking"] == "custom"
            default += ndcg_at([h["document_id"] for h in plain["hits"]], relevant)
        assert tuned >= default
    # Elsewhere nothing changed: 'other' and a search of both keep the defaults.
    after_other = [search(client, q, "other") for q in queries.values()]
    assert [r["ranking"] for r in after_other] == [DEFAULT_RANKING] * len(queries)
    assert [r["hits"] for r in after_other] == [r["hits"] for r in before_other]
    assert search(client, next(iter(queries.values())), None)["ranking"] == DEFAULT_RANKING

    assert reset_ranking(runtime.search, runtime.graph, "codes") is True
    assert search(client, next(iter(held)), "codes")["ranking"] == DEFAULT_RANKING
    # Deleting the collection deletes its judgments with it.
    assert client.delete("/collections/codes").status_code == 200
    left = runtime.graph.driver.execute_query("MATCH (j:Judgment) RETURN count(j) AS n")
    assert left.records[0]["n"] == 0


def test_too_few_judgments_are_refused_with_the_number_needed(
    runtime: Runtime, clean_graph: Graph
) -> None:
    library = Library(runtime)
    library.add_text("a.md", "# A\n\nOne note about pumps.", collection="few")
    judged = library.judge("pumps", "a.md", collection="few")
    assert (judged.relevance, judged.document_id, judged.collection) == (1, "a.md", "few")
    with pytest.raises(NotFound, match=r"No document 'b\.md'"):
        library.judge("pumps", "b.md", collection="few")
    with pytest.raises(InvalidInput, match=r"1 judged queries .* at least 10"):
        library.tune("few")
    # Judged documents the collection lacks are left out, and said.
    with pytest.raises(InvalidInput, match=r"0 judged queries"):
        library.tune("few", {"pumps": {"elsewhere.md": 1}})
