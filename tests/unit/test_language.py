"""Languages: detection among those anchorgraph analyses, a document's language resolved from
its declaration, the write's, or its text, and the language a query is analysed in."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from anchorgraph.cli.main import app
from anchorgraph.loaders.ingest import document_language
from anchorgraph.loaders.model import SourceDocument
from anchorgraph.retrieval.analysis import query_language
from anchorgraph.retrieval.values import Scope
from anchorgraph.text.language import Language, detect_language, language_labels, language_of

PT, IT, EN = Language.PORTUGUESE, Language.ITALIAN, Language.ENGLISH


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Diretor do museu na década de 70", PT),
        ("quem dirigiu o museu nos anos 70?", PT),
        ("empréstimos de obras", PT),
        ("Chi ha scritto la lettera da Milano?", IT),
        ("who founded the museum?", EN),
        ("humidity in the storerooms", EN),
        ("12,5", EN),  # nothing to tell a language by: the default
        ("", EN),
    ],
)
def test_short_texts_are_told_apart(text: str, language: Language) -> None:
    assert detect_language(text) is language


def test_a_code_or_a_name_names_a_language_and_anything_else_is_refused_with_the_list() -> None:
    assert language_of("PT") is PT and language_of("italian") is IT
    with pytest.raises(ValueError, match="en \\(english\\), pt \\(portuguese\\), it"):
        language_of("fr")
    assert language_labels("pt") == (["PortugueseChunk"], ["PortugueseDocument"])
    assert language_labels("en") == language_labels("") == language_labels("fr") == ([], [])


def test_a_document_s_own_declaration_wins_then_the_write_s_then_its_text() -> None:
    carta = SourceDocument(id="carta.md", text="A diretora do museu confirma a doação das obras.")
    assert document_language(carta).language == "pt"
    assert document_language(carta, declared=IT).language == "it"
    front = SourceDocument(id="c.md", text=carta.text, metadata={"language": "Italian"})
    assert document_language(front, declared=EN).language == "it"
    unknown = SourceDocument(id="c.md", text=carta.text, metadata={"language": "klingon"})
    assert document_language(unknown).language == "pt"  # an unknown declaration: detected


def test_a_query_is_read_in_its_language_only_where_the_scope_holds_that_language() -> None:
    english_only = Scope(collections=("plain",))
    mixed = Scope(collections=("arquivo",), languages=frozenset({EN, PT}))
    assert query_language("Diretor do museu na década de 70", english_only) is EN
    assert query_language("Diretor do museu na década de 70", mixed) is PT
    assert query_language("Chi ha scritto la lettera?", mixed) is EN  # no Italian there
    assert query_language("who founded the museum?", mixed) is EN


def test_the_command_line_refuses_a_language_it_does_not_analyse() -> None:
    result = CliRunner().invoke(app, ["ingest", ".", "--language", "fr"])
    assert result.exit_code == 2
    assert "'fr' is not a language anchorgraph analyses" in result.output


def test_the_api_offers_exactly_the_languages_anchorgraph_analyses() -> None:
    from typing import get_args

    from anchorgraph.api.schemas import LanguageCode

    assert set(get_args(LanguageCode)) == {language.value for language in Language}


def test_a_language_counts_for_a_collection_from_a_twentieth_of_its_documents() -> None:
    from anchorgraph.retrieval.collections import languages_of

    assert languages_of({"en": 4_849, "it": 9}) == {EN}  # a few misdetected: not a language
    assert languages_of({"pt": 18, "it": 3}) == {PT, IT}
    assert languages_of({}) == {EN}  # written before languages


def test_a_write_changes_the_counts_of_the_languages_it_wrote_and_removed() -> None:
    from anchorgraph.loaders.graph_writer import language_changes

    assert language_changes(["pt", "pt", "en"], ["pt", "it"]) == [
        {"language": "en", "change": 1},
        {"language": "it", "change": -1},
        {"language": "pt", "change": 1},
    ]
    assert language_changes(["pt"], ["pt"]) == []
