"""BEIR folders: splits are the qrels' queries; a subset keeps what it names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anchorgraph.evaluation.datasets import available_splits, load_split, source_documents


@pytest.fixture
def beir(tmp_path: Path) -> Path:
    root = tmp_path / "tiny"
    (root / "qrels").mkdir(parents=True)
    corpus = [
        {"_id": "d1", "title": "Aspirin", "text": "Aspirin lowers fever."},
        {"_id": "d2", "title": "", "text": "Statins lower cholesterol."},
        {"_id": "d3", "title": "Sleep", "text": "Sleep helps memory."},
    ]
    (root / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in corpus))
    queries = [
        {"_id": "1", "text": "fever"},
        {"_id": "2", "text": "memory"},
        {"_id": "3", "text": "x"},
    ]
    (root / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    (root / "qrels" / "train.tsv").write_text(
        "query-id\tcorpus-id\tscore\n1\td1\t1\n2\td3\t2\n3\td2\t0\n"
    )
    (root / "qrels" / "dev.tsv").write_text("query-id\tcorpus-id\tscore\n3\td2\t1\n")
    return root


def test_a_split_is_the_queries_with_a_relevant_document(beir: Path) -> None:
    split = load_split(beir, "train")
    assert available_splits(beir) == ["dev", "train"]
    assert [q.id for q in split.queries] == ["1", "2"]  # query 3 has only a 0 judgement
    assert split.qrels == {"1": {"d1": 1}, "2": {"d3": 2}}
    assert list(split.corpus) == ["d1", "d2", "d3"]
    assert split.corpus["d1"].full_text == "Aspirin\n\nAspirin lowers fever."
    assert split.corpus["d2"].full_text == "Statins lower cholesterol."


def test_a_missing_split_names_the_ones_there(beir: Path) -> None:
    with pytest.raises(FileNotFoundError, match="dev, train"):
        load_split(beir, "test")


def test_a_sample_of_queries_is_reproducible(beir: Path) -> None:
    first = load_split(beir, "train", max_queries=1, seed=3)
    again = load_split(beir, "train", max_queries=1, seed=3)
    assert len(first.queries) == 1 and first.queries == again.queries
    assert set(first.qrels) == {first.queries[0].id}


def test_subset_and_documents_for_ingest(beir: Path) -> None:
    split = load_split(beir, "train").subset({"1"}, {"d1", "d2"})
    assert [q.id for q in split.queries] == ["1"] and set(split.qrels) == {"1"}
    with_title = source_documents(split, title_in_text=True)
    assert [d.id for d in with_title] == ["d1", "d2"]
    assert with_title[0].text == "Aspirin\n\nAspirin lowers fever."
    assert with_title[0].title == "Aspirin"
    assert source_documents(split, title_in_text=False)[0].text == "Aspirin lowers fever."
