"""The claim rules in Portuguese and Italian, on sentences written for these tests in the way
an archive's letters and reports are written: dates as "11/03/1978" and "11 de março de 1978",
decimal commas, hedges of each language, first-person letters."""

from __future__ import annotations

import pytest

from anchorgraph.loaders.claims import LANGUAGE_RULES, RuleClaimExtractor

RULES = RuleClaimExtractor()


def claims(text: str, language: str) -> dict[str, tuple[float, tuple[str, ...]]]:
    found, _ = RULES.analyse(text, language)
    return {claim.text: (claim.prob_fact, claim.features) for claim in found}


def rejected(text: str, language: str) -> dict[str, str]:
    _, rejections = RULES.analyse(text, language)
    return {rejection.text: rejection.reason for rejection in rejections}


@pytest.mark.parametrize(
    ("sentence", "language"),
    [
        ("O ofício nº 138/78 foi enviado em 11/03/1978 ao Secretário.", "pt"),
        ("A coleção recebeu 214 obras em 11 de março de 1979.", "pt"),
        ("La mostra fu inaugurata il 15 settembre 1975 a Milano.", "it"),
    ],
)
def test_dates_as_archives_write_them_pin_a_claim(sentence: str, language: str) -> None:
    (features,) = [f for _, f in claims(sentence, language).values()]
    assert "date" in features


def test_decimal_commas_and_per_cent_in_words_are_proportions() -> None:
    text = "A inflação chegou a 3,5 % ao mês em 1978. O orçamento cresceu quarenta por cento."
    scored = claims(text, "pt")
    assert all("percentage" in features for _, features in scored.values())
    assert len(scored) == 2


@pytest.mark.parametrize(
    ("soft", "strong", "language"),
    [
        (
            "A moldura da gravura maior talvez seja do século XVIII.",
            "Supõe-se que o bolor tenha vindo do rio Tamanduateí.",
            "pt",
        ),
        (
            "La galleria presterà otto opere, forse nove, al museo.",
            "Si ritiene che la cornice sia stata dipinta nel Settecento.",
            "it",
        ),
    ],
)
def test_a_soft_hedge_lowers_a_claim_and_a_speculative_one_drops_it(
    soft: str, strong: str, language: str
) -> None:
    plain = soft.replace("talvez ", "").replace(", forse nove,", "")
    (hedged_score, features) = claims(soft, language)[soft]
    (plain_score, _) = claims(plain, language)[plain]
    assert "hedge" in features and hedged_score < plain_score
    assert rejected(strong, language) == {strong: "hedged"}


def test_letters_in_the_first_person_keep_their_claims() -> None:
    letter = "Recebi o teu postal com a fotografia do galpão da Mooca em agosto de 1974."
    assert claims(letter, "pt")  # English would drop it as an anecdote ("my", "I")
    assert rejected("Orçamento proposto", "pt") == {"Orçamento proposto": "fragment"}
    assert rejected("Elenco delle opere richieste", "it") == {
        "Elenco delle opere richieste": "fragment"
    }


def test_names_with_their_small_words_count_as_named_entities() -> None:
    text = "O pedido foi aprovado pelo Museu de Arte Contemporânea sem reservas."
    ((_, features),) = claims(text, "pt").values()
    assert "named_entity" in features


def test_english_reads_as_before_and_other_languages_sign_their_rules() -> None:
    assert RULES.signature_for("en") == RULES.signature == RULES.signature_for("fr")
    assert RULES.signature_for("pt") != RULES.signature_for("it") != RULES.signature
    assert RULES.signature_for("pt").startswith(RULES.signature)
    assert set(LANGUAGE_RULES) == {"pt", "it"}
    english = RULES.extract(["Aspirin reduced stroke by 12% in 2019."])
    assert english == RULES.extract(["Aspirin reduced stroke by 12% in 2019."], ["en"])
