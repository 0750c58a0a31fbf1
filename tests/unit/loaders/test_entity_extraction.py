"""Entity ids, identifier patterns, gazetteers, and extraction with and without spaCy's model."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from loaders.entities import EntityExtractor, GazetteerEntry, load_gazetteer
from loaders.model import Chunk, EntityMention
from service.errors import InvalidInput
from service.text.identifiers import find_identifiers, normalise_entity_id

MAC = GazetteerEntry("Museu de Arte Contemporânea", "ORG", ("MAC", "Museum of Contemporary Art"))


def chunks_of(*texts: str) -> list[Chunk]:
    return [
        Chunk(f"d#{n}", "d", n, text, 0, len(text), len(text.split()))
        for n, text in enumerate(texts)
    ]


def by_id(mentions: list[EntityMention]) -> dict[tuple[str, str], EntityMention]:
    return {(m.chunk_id, m.entity_id): m for m in mentions}


@pytest.mark.parametrize(
    ("name", "entity_id"),
    [
        ("MAC", "mac"),
        ("Mac", "mac"),
        (" mac ", "mac"),
        ('"Acme  Corp."', "acme corp"),
        ("(Straße)", "strasse"),
        ("Cafe\u0301", "café"),
        ("C++", "c++"),
        ("C#", "c#"),
        ("...", ""),
    ],
)
def test_normalise_entity_id(name: str, entity_id: str) -> None:
    assert normalise_entity_id(name) == entity_id


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Order the AG-2048 now.", ["AG-2048"]),
        ("Models XR-7-PRO and SKU-1234-XY.", ["XR-7-PRO", "SKU-1234-XY"]),
        ("Unit SN-4711-AB-09 failed.", ["SN-4711-AB-09"]),
        ("Label S/N 4711AB09 and Serial No. 55-1234.", ["4711AB09", "55-1234"]),
        ("NASA and the MAC use GPT4 via APIs.", ["NASA", "MAC", "GPT4", "API"]),
        ("COVID-19 spread.", ["COVID-19"]),
        ("A cat. I think The Museum is Open.", []),  # single letters, capitalised words
        ("In 2019-2020 the state-of-the-art top-10 list.", []),  # no letter / no digit / lowercase
        ("Chapter IV, THE END, and IT IS.", []),  # roman numerals and common words
        ("READ THE TERMS CAREFULLY.", []),  # shouting, not acronyms
        ("Mixed SARS-CoV-2, NON-PROFIT and iPhone-12.", []),  # parts of hyphenated words
        ("Acronym DEFINITELY is too long; ABCDEFG too.", []),
        ("AG-2048 twice: AG-2048.", ["AG-2048"]),
    ],
)
def test_find_identifiers(text: str, found: list[str]) -> None:
    assert find_identifiers(text) == found


def test_load_gazetteer_json_and_jsonl(tmp_path: Path) -> None:
    entries = [
        {"name": "Museu de Arte Contemporânea", "type": "ORG", "aliases": ["MAC"]},
        {"name": "Helena Vasconcelos", "type": "PERSON"},
    ]
    as_json = tmp_path / "g.json"
    as_json.write_text(json.dumps(entries), encoding="utf-8")
    as_jsonl = tmp_path / "g.jsonl"
    as_jsonl.write_text("\n".join(json.dumps(e) for e in entries) + "\n\n", encoding="utf-8")
    expected = [
        GazetteerEntry("Museu de Arte Contemporânea", "ORG", ("MAC",)),
        GazetteerEntry("Helena Vasconcelos", "PERSON", ()),
    ]
    assert load_gazetteer(as_json) == expected
    assert load_gazetteer(as_jsonl) == expected


def test_the_packaged_sample_gazetteer_loads() -> None:
    path = Path(__file__).resolve().parents[3] / "loaders" / "sample_gazetteer.json"
    entries = load_gazetteer(path)
    assert MAC.name in {entry.name for entry in entries}


@pytest.mark.parametrize(
    ("content", "suffix", "message"),
    [
        ('{"name": "x"}', ".json", "expected a JSON list"),
        ('[{"name": "x"}]', ".json", "item 0: 'type'"),
        ('[{"name": "", "type": "ORG"}]', ".json", "item 0: 'name'"),
        (
            '{"name": "a", "type": "ORG"}\n{"name": "b", "type": "ORG", "aliases": "c"}',
            ".jsonl",
            "line 2: 'aliases'",
        ),
        ("[{", ".json", "not a valid gazetteer"),
    ],
)
def test_bad_gazetteer_is_named(tmp_path: Path, content: str, suffix: str, message: str) -> None:
    path = tmp_path / f"gazetteer{suffix}"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InvalidInput, match=message):
        load_gazetteer(path)


def test_signature_follows_the_gazetteer_without_loading_spacy() -> None:
    plain = EntityExtractor(gazetteer=())
    with_mac = EntityExtractor(gazetteer=[MAC])
    assert plain.signature != with_mac.signature
    assert with_mac.signature == EntityExtractor(gazetteer=[MAC]).signature
    assert "_nlp" not in vars(with_mac)  # nothing loaded yet


def test_without_a_model_gazetteer_aliases_and_identifiers_still_merge() -> None:
    extractor = EntityExtractor(None, gazetteer=[MAC])
    mentions, triples = extractor.extract(
        chunks_of(
            "The MAC opened in 1963. Visitors love the Mac and the Museu de Arte Contemporânea.",
            "Order AG-2048 from NASA.",
        )
    )
    assert not extractor.has_parser and triples == []
    mentions_by_id = by_id(mentions)
    museum = mentions_by_id[("d#0", "museu de arte contemporânea")]
    assert (museum.count, museum.name, museum.type) == (3, MAC.name, "ORG")
    assert museum.aliases == MAC.aliases
    assert set(mentions_by_id) == {
        ("d#0", "museu de arte contemporânea"),
        ("d#1", "ag-2048"),
        ("d#1", "nasa"),
    }
    assert mentions_by_id[("d#1", "ag-2048")].type == "IDENTIFIER"
    assert mentions_by_id[("d#1", "nasa")].type == "ACRONYM"


def test_surface_forms_merge_under_the_most_frequent_name() -> None:
    extractor = EntityExtractor(None)
    mentions, _ = extractor.extract(chunks_of("GPT4 beats Gpt4.", "GPT4 again."))
    (first, second) = [m for m in mentions if m.entity_id == "gpt4"]
    assert first.name == second.name == "GPT4"


def test_missing_model_falls_back_to_a_blank_pipeline(caplog: pytest.LogCaptureFixture) -> None:
    extractor = EntityExtractor("no_such_spacy_model_installed", gazetteer=[MAC])
    with caplog.at_level(logging.WARNING, logger="loaders.entities"):
        mentions, triples = extractor.extract(chunks_of("The museum is the MAC."))
    assert "no_such_spacy_model_installed" in caplog.text
    assert [m.entity_id for m in mentions] == ["museu de arte contemporânea"]
    assert triples == [] and not extractor.has_parser


def test_no_chunks_no_work() -> None:
    extractor = EntityExtractor()
    assert extractor.extract([]) == ([], [])
    assert "_nlp" not in vars(extractor)


@pytest.fixture(scope="module")
def spacy_extractor() -> EntityExtractor:
    return EntityExtractor(gazetteer=[MAC, GazetteerEntry("Helena Vasconcelos", "PERSON")])


@pytest.mark.slow
def test_ner_and_triple_from_a_sentence(spacy_extractor: EntityExtractor) -> None:
    mentions, triples = spacy_extractor.extract(
        chunks_of("Acme Corporation acquired Globex in 2019.")
    )
    assert spacy_extractor.has_parser
    ids = {m.entity_id for m in mentions}
    assert {"acme corporation", "globex"} <= ids
    assert "2019" not in ids  # dates are not entities
    assert [(t.subject_id, t.predicate, t.object_id) for t in triples] == [
        ("acme corporation", "acquire", "globex")
    ]
    assert triples[0].text == "Acme Corporation acquire Globex"
    assert triples[0].chunk_id == "d#0"


@pytest.mark.slow
def test_prepositional_and_passive_triples(spacy_extractor: EntityExtractor) -> None:
    _, triples = spacy_extractor.extract(
        chunks_of("Globex was acquired by Acme Corporation.", "Dr. Smith works at NASA in Houston.")
    )
    found = {(t.subject_id, t.predicate, t.object_id, t.chunk_id) for t in triples}
    assert ("globex", "acquire by", "acme corporation", "d#0") in found
    assert ("smith", "work at", "nasa", "d#1") in found
    assert len(found) == len(triples)  # unique within each chunk


@pytest.mark.slow
def test_gazetteer_alias_meets_canonical_entity_with_spacy(
    spacy_extractor: EntityExtractor,
) -> None:
    mentions, triples = spacy_extractor.extract(
        chunks_of(
            "Helena Vasconcelos founded the MAC in 1963.",
            "The Museu de Arte Contemporânea and the Mac are one museum.",
        )
    )
    museum = "museu de arte contemporânea"
    assert by_id(mentions)[("d#1", museum)].count == 2
    assert by_id(mentions)[("d#0", museum)].name == MAC.name
    assert ("helena vasconcelos", "found", museum) in {
        (t.subject_id, t.predicate, t.object_id) for t in triples
    }


@pytest.mark.slow
def test_identifiers_found_by_ner_are_not_counted_twice(spacy_extractor: EntityExtractor) -> None:
    mentions, _ = spacy_extractor.extract(chunks_of("Scientists at NASA built the AG-2048."))
    nasa = [m for m in mentions if m.entity_id == "nasa"]
    assert len(nasa) == 1 and nasa[0].count == 1
    assert "ag-2048" in {m.entity_id for m in mentions}
