"""An answer says when nothing matches, through the REST API and the library with the real model
and Neo4j on the sample corpus: a name no document holds, and a claim of another corpus
(SciFact's), still bring back the nearest chunks (the dense path always answers), but no hit has
evidence and the answer says ``matched: false``; the same name while a document holds it, and a
question the corpus answers, are matched, and so is a hit the expansion placed from a matched
hit (``graph``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from clients import api_client
from fastapi.testclient import TestClient
from sample_graph import SampleGraphs
from typer.testing import CliRunner
from uvicorn_thread import served

from anchorgraph.app import create_app
from anchorgraph.cli.main import app
from anchorgraph.cli.output import console
from anchorgraph.embedding import Embedder
from anchorgraph.library import open_library
from anchorgraph.retrieval.defaults import DEFAULT_NO_MATCH_RULE
from anchorgraph.settings import Settings

pytestmark = [pytest.mark.integration, pytest.mark.slow]

NAME = "Ottoline Brabazon"  # in no document of the sample
CLAIM = "0-dimensional biomaterials lack inductive properties."  # SciFact's first claim
QUESTION = "what happened in the Gallery 3 incident?"
RESTORER = (
    f"# Relining\n\nThe restorer {NAME} relined the 1932 canvas in March, in the studio "
    "behind Gallery 2."
)


@pytest.fixture(scope="module")
def client(
    sample_graph: SampleGraphs, settings: Settings, embedder: Embedder
) -> Iterator[TestClient]:
    sample_graph(embedder)
    with api_client(settings, embedder) as test_client:
        yield test_client


def searched(client: TestClient, query: str) -> dict[str, object]:
    response = client.post("/search", json={"query": query, "explain": True})
    assert response.status_code == 200, response.text
    body: dict[str, object] = response.json()
    return body


def test_a_removed_name_brings_hits_back_and_the_answer_says_nothing_matches(
    client: TestClient,
) -> None:
    body = {"id": "notes/relining.md", "text": RESTORER, "format": "markdown"}
    assert client.post("/documents", json=body).status_code == 201
    named = searched(client, NAME)
    top = named["hits"][0]  # type: ignore[index]
    assert named["matched"] is True
    assert top["document_id"] == "notes/relining.md" and top["evidence"]["matched"]
    assert "terms" in top["evidence"]["kinds"]
    assert set(top["evidence"]["terms"]) == {"ottoline", "brabazon"}

    assert client.delete("/documents/notes/relining.md").status_code == 204
    removed = searched(client, NAME)
    hits = removed["hits"]
    assert isinstance(hits, list) and len(hits) == 10  # the nearest chunks, all the same
    assert removed["matched"] is False
    for hit in hits:
        assert hit["evidence"]["matched"] is False and hit["evidence"]["kinds"] == []
        assert hit["evidence"]["terms"] == []
        assert hit["evidence"]["cosine"] < DEFAULT_NO_MATCH_RULE.noise_cosine
    # Found by nearness alone: no lexical path has a word of the name.
    assert "dense" in hits[0]["paths"]
    assert not {"bm25", "tfidf", "metadata"} & {path for hit in hits for path in hit["paths"]}


def test_a_question_the_corpus_answers_is_matched(client: TestClient) -> None:
    answer = searched(client, QUESTION)
    assert answer["matched"] is True
    top = answer["hits"][0]  # type: ignore[index]
    assert top["document_id"] == "climate/incident-2022.md"
    assert "terms" in top["evidence"]["kinds"]
    assert {"gallery", "incident"} <= set(top["evidence"]["terms"])


def test_a_hit_the_expansion_placed_from_a_matched_hit_is_matched_by_the_graph(
    client: TestClient,
) -> None:
    hits: list[dict[str, Any]] = searched(client, QUESTION)["hits"]  # type: ignore[assignment]
    placed = [hit for hit in hits if hit["priors"] == {"expansion": hit["score"]}]
    assert placed  # the sample's links reach chunks that take a hit's place
    parents = {s["chunk_id"] for hit in hits if hit not in placed for s in hit["supporting"]}
    for hit in placed:
        assert hit["chunk_id"] in parents and hit["evidence"]["matched"]
        assert hit["evidence"]["kinds"][-1] == "graph"


def test_a_claim_of_another_corpus_is_no_match_through_the_library(
    client: TestClient, settings: Settings, embedder: Embedder
) -> None:
    with open_library(settings, embedder_factory=lambda _: embedder) as library:
        claim = library(CLAIM)
        assert len(claim.hits) == 10 and claim.matched is False
        assert not any(hit.evidence and hit.evidence.matched for hit in claim.hits)
        assert library(QUESTION).matched is True
    assert searched(client, CLAIM)["matched"] is False


def test_the_command_line_says_no_match_under_the_hits(
    client: TestClient, settings: Settings, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(console, "width", 300)  # no cell wrapped
    with served(create_app(settings, embedder_factory=lambda _: embedder)) as url:
        claim = CliRunner().invoke(app, ["search", CLAIM, "--api", url, "--explain"])
        question = CliRunner().invoke(app, ["search", QUESTION, "--api", url])
    assert claim.exit_code == question.exit_code == 0, claim.output + question.output
    assert "no match:" in claim.stdout and "no evidence (cosine" in claim.stdout
    assert "no match:" not in question.stdout
