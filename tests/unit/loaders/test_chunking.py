"""Sentence splitting and chunking: whole sentences, ~20 % overlap, full coverage, links once."""

from __future__ import annotations

import random
from itertools import pairwise

import pytest

from anchorgraph.loaders.chunking import chunk_document, sentence_spans
from anchorgraph.loaders.model import Chunk, Heading, RawLink, SourceDocument
from anchorgraph.loaders.read import read_bytes


def words(text: str) -> int:
    return len(text.split())


def sentences_of(text: str) -> list[str]:
    return [text[start:end] for start, end in sentence_spans(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Dr. Smith met Mr. Jones at 3.5 p.m. today. They spoke, e.g. about U.S. policy. Bye!",
            [
                "Dr. Smith met Mr. Jones at 3.5 p.m. today.",
                "They spoke, e.g. about U.S. policy.",
                "Bye!",
            ],
        ),
        (
            'He said "Stop." Then he ran. (It was late.) Why? Because.',
            ['He said "Stop."', "Then he ran.", "(It was late.)", "Why?", "Because."],
        ),
        (
            "See Fig. 3 and No. 5 of Acme Inc. today. Next.",
            ["See Fig. 3 and No. 5 of Acme Inc. today.", "Next."],
        ),
        ("J. R. R. Tolkien wrote it. The end", ["J. R. R. Tolkien wrote it.", "The end"]),
        ("Version 2.5 shipped in 2019. It worked.", ["Version 2.5 shipped in 2019.", "It worked."]),
        ("lowercase after. a period continues", ["lowercase after. a period continues"]),
        ("Introduction\nThe study found this.", ["Introduction", "The study found this."]),
        ("No punctuation\n\nBlank line ends it", ["No punctuation", "Blank line ends it"]),
        ("Items:\n- one\n- two\n1. three", ["Items:", "- one", "- two", "1. three"]),
        (
            "A hard-wrapped line that keeps going in\nBerlin and ends here.",
            ["A hard-wrapped line that keeps going in\nBerlin and ends here."],
        ),
        ("  \n ", []),
    ],
)
def test_sentence_spans(text: str, expected: list[str]) -> None:
    assert sentences_of(text) == expected


def test_sentence_spans_cover_every_character_once() -> None:
    rng = random.Random(7)
    pieces = ["Word", "word", "e.g.", "3.5", ".", "!", "?", " ", "\n", "\n\n", '"', "(", "- "]
    for _ in range(200):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 60)))
        spans = sentence_spans(text)
        covered = [i for start, end in spans for i in range(start, end)]
        assert covered == sorted(set(covered))
        assert {i for i, c in enumerate(text) if not c.isspace()} <= set(covered)
        for start, end in spans:
            assert text[start:end] == text[start:end].strip() != ""


def document(text: str, **kwargs: object) -> SourceDocument:
    return SourceDocument(id="doc.md", text=text, **kwargs)  # type: ignore[arg-type]


def sentence_text(count: int, length: int = 10) -> str:
    """Sentences of exactly `length` words: "S0w1 w2 … w9." with a unique first word."""
    return " ".join(
        f"S{n}x " + " ".join(f"w{k}" for k in range(1, length - 1)) + " end." for n in range(count)
    )


def assert_well_formed(doc: SourceDocument, chunks: list[Chunk]) -> None:
    for ordinal, chunk in enumerate(chunks):
        assert chunk.ordinal == ordinal and chunk.id == f"doc.md#{ordinal}"
        assert chunk.text == doc.text[chunk.start : chunk.end]
        assert chunk.n_tokens == words(chunk.text)
    covered = {i for chunk in chunks for i in range(chunk.start, chunk.end)}
    assert {i for i, c in enumerate(doc.text) if not c.isspace()} <= covered
    for previous, following in pairwise(chunks):
        assert following.start > previous.start and following.end > previous.end  # progress


def test_overlap_is_about_twenty_percent() -> None:
    doc = document(sentence_text(30))
    chunks = chunk_document(doc, words, target_tokens=100, overlap=0.2)
    assert_well_formed(doc, chunks)
    assert all(chunk.n_tokens <= 100 for chunk in chunks)
    for previous, following in pairwise(chunks):
        shared = doc.text[following.start : previous.end]
        assert words(shared) == 20  # two whole ten-word sentences
        assert previous.text.endswith(shared)


def test_no_overlap_means_disjoint_chunks() -> None:
    doc = document(sentence_text(30))
    chunks = chunk_document(doc, words, target_tokens=100, overlap=0.0)
    assert_well_formed(doc, chunks)
    assert [chunk.n_tokens for chunk in chunks] == [100, 100, 100]
    assert all(b.start > a.end for a, b in pairwise(chunks))


def test_chunks_hold_whole_sentences() -> None:
    rng = random.Random(3)
    text = " ".join(
        f"Sentence {n} " + " ".join("word" for _ in range(rng.randint(1, 30))) + "."
        for n in range(80)
    )
    doc = document(text)
    boundaries = {edge for span in sentence_spans(text) for edge in span}
    chunks = chunk_document(doc, words, target_tokens=60, overlap=0.2)
    assert_well_formed(doc, chunks)
    for chunk in chunks:
        assert chunk.start in boundaries and chunk.end in boundaries
        assert chunk.n_tokens <= 60


def test_only_an_overlong_sentence_is_cut_at_word_boundaries() -> None:
    long_sentence = "Long " + " ".join(f"w{k}" for k in range(45)) + " end."
    text = f"First short one. {long_sentence} Last short one."
    doc = document(text)
    chunks = chunk_document(doc, words, target_tokens=20, overlap=0.2)
    assert_well_formed(doc, chunks)
    assert all(chunk.n_tokens <= 20 for chunk in chunks)
    for chunk in chunks:
        assert (chunk.start == 0 or text[chunk.start - 1] == " ") and (
            chunk.end == len(text) or text[chunk.end] == " "
        )
    assert chunks[0].text == "First short one."  # the long sentence did not fit next to it
    assert chunks[-1].text.endswith("Last short one.")


def test_a_single_word_longer_than_the_target_is_still_cut() -> None:
    def chars(text: str) -> int:  # a tokenizer that counts characters
        return len(text)

    doc = document("Tiny. " + "x" * 50 + " Tail.")
    chunks = chunk_document(doc, chars, target_tokens=16, overlap=0.0)
    assert [chunk.text for chunk in chunks] == ["Tiny.", "x" * 16, "x" * 16, "x" * 16, "xx Tail."]


def test_overlap_never_crowds_out_the_next_sentence() -> None:
    # A 9-token sentence then 9-token ones with a 10-token window: carrying any sentence over
    # would leave no room for a new one, so each chunk must start with a sentence not seen yet.
    doc = document(sentence_text(6, length=9))
    chunks = chunk_document(doc, words, target_tokens=10, overlap=0.9)
    assert_well_formed(doc, chunks)
    assert len(chunks) == 6


def test_each_sentence_is_counted_once() -> None:
    calls: list[str] = []

    def counting(text: str) -> int:
        calls.append(text)
        return words(text)

    doc = document(sentence_text(50))
    chunks = chunk_document(doc, counting, target_tokens=100, overlap=0.2)
    assert len(calls) == 50 + len(chunks)  # each sentence once, then each chunk's n_tokens


def test_headings_go_to_the_first_chunk_holding_them() -> None:
    text = "Intro\n\n" + sentence_text(12) + "\n\nDetails\n\n" + sentence_text(12)
    details = text.index("Details")
    doc = document(
        text,
        headings=(Heading("intro", "Intro", 1, 0), Heading("details", "Details", 2, details)),
    )
    chunks = chunk_document(doc, words, target_tokens=50, overlap=0.2)
    holders = [c.ordinal for c in chunks if c.start <= details < c.end]
    assert len(holders) >= 1
    assigned = [(c.ordinal, slug) for c in chunks for slug in c.heading_slugs]
    assert assigned == [(0, "intro"), (holders[0], "details")]


def test_links_are_attached_once_with_their_sentence() -> None:
    source = (
        "# Guide\n\n"
        + sentence_text(8)
        + " Read [the setup notes](setup.md#install) before you start. "
        + sentence_text(8)
        + " Write to [us](mailto:a@b.org) or see [home](../index.md)."
    )
    doc = read_bytes(source.encode(), doc_id="guides/intro.md", fmt="markdown", max_bytes=10**6)
    chunks = chunk_document(doc, words, target_tokens=40, overlap=0.25)
    links = [(chunk.ordinal, link) for chunk in chunks for link in chunk.links]
    assert [link.anchor_text for _, link in links] == ["the setup notes", "home"]  # mailto dropped
    (first_ordinal, setup), (_, home) = links
    assert setup.context == "Read the setup notes before you start."
    assert (setup.target_document, setup.fragment) == ("guides/setup.md", "install")
    assert (home.target_document, home.fragment) == ("index.md", "")
    holders = [c.ordinal for c in chunks if "Read the setup notes" in c.text]
    assert len(holders) >= 2 and first_ordinal == holders[0]  # overlap repeats it; attached once


def test_link_contexts_come_from_the_document_sentences() -> None:
    text = "Alpha beta. See the map here. Gamma."
    start = text.index("map")
    doc = document(text, links=(RawLink("map.md", "map", start, start + 3),))
    (chunk,) = chunk_document(doc, words, target_tokens=100, overlap=0.2)
    assert [link.context for link in chunk.links] == ["See the map here."]


def test_empty_text_and_bad_parameters() -> None:
    assert chunk_document(document(""), words, target_tokens=10, overlap=0.2) == []
    with pytest.raises(ValueError, match="target_tokens"):
        chunk_document(document("x."), words, target_tokens=0, overlap=0.2)
    with pytest.raises(ValueError, match="overlap"):
        chunk_document(document("x."), words, target_tokens=10, overlap=1.0)
