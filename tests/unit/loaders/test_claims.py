"""Atomic claims without an LLM: drops, splits, spans and prob_fact on written examples; the
OpenAI-compatible extractor's plumbing over ``httpx.MockTransport``."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from anchorgraph.errors import ClaimExtractionError
from anchorgraph.loaders.claims import (
    FEATURES,
    Claim,
    ClaimExtractor,
    OpenAICompatibleClaimExtractor,
    RuleClaimExtractor,
    hedge_strength,
    score,
)

RULES = RuleClaimExtractor()


def claims_of(text: str) -> list[Claim]:
    return RULES.extract([text])[0]


def reasons_of(text: str) -> list[str]:
    return [rejection.reason for rejection in RULES.analyse(text)[1]]


def test_numeric_claim_is_one_claim_near_certain() -> None:
    text = "Vitamin D at 50 µg/day reduced fractures by 23% (95% CI 0.61–0.92, p = 0.003)."
    [claim] = claims_of(text)
    assert claim.text == text
    assert claim.prob_fact >= 0.95
    assert {"number_with_unit", "percentage", "confidence_interval", "p_value"} <= set(
        claim.features
    )
    assert "comparison" in claim.features  # "reduced … by 23"


def test_single_soft_hedge_lowers_but_keeps() -> None:
    [hedged] = claims_of("Coffee may reduce the risk of type 2 diabetes.")
    [plain] = claims_of("Coffee reduces the risk of type 2 diabetes.")
    assert "hedge" in hedged.features
    assert hedged.prob_fact < plain.prob_fact


@pytest.mark.parametrize(
    "text",
    [
        "Coffee may possibly reduce the risk of diabetes.",  # two soft cues
        "These data suggest that statins might lower mortality.",  # two soft cues
        "We hypothesize that gut bacteria regulate appetite.",  # one speculative cue
        "It is thought that sleep clears metabolic waste from the brain.",
        "The mechanism of this protection remains unclear.",
    ],
)
def test_strongly_hedged_statements_are_dropped(text: str) -> None:
    assert claims_of(text) == []
    assert reasons_of(text) == ["hedged"]


def test_could_not_and_more_likely_are_not_hedges() -> None:
    assert hedge_strength("The virus could not be detected in 40 samples.") == 0
    assert hedge_strength("Smokers were 2.1 times more likely to die.") == 0
    assert hedge_strength("Smokers were likely to die.") == 1


@pytest.mark.parametrize(
    "text",
    [
        "My grandmother swore by garlic.",
        "I remember that the cough went away after three days.",
        "In my experience, honey heals burns faster than creams.",
        "Once upon a time a doctor cured the plague with vinegar.",
    ],
)
def test_anecdotes_are_dropped(text: str) -> None:
    assert claims_of(text) == []
    assert reasons_of(text) == ["anecdote"]


def test_roman_numeral_i_is_not_first_person() -> None:
    text = "Troponin I has been shown to predict early risk in 1,200 patients."
    assert len(claims_of(text)) == 1


@pytest.mark.parametrize(
    "text",
    [
        "Does aspirin prevent stroke in adults over 60 years?",
        "We aimed to determine the effect of zinc on colds.",
        "The aim of this study was to compare two statins in 300 patients.",
        "We tested whether folate lowers homocysteine.",
    ],
)
def test_questions_and_aims_are_dropped(text: str) -> None:
    assert claims_of(text) == []
    assert reasons_of(text) == ["question"]


def test_compound_sentence_splits_into_two_claims_with_spans() -> None:
    text = "Smoking increased lung cancer risk by 20%, and obesity raised diabetes risk by 15%."
    claims = claims_of(text)
    assert [c.text for c in claims] == [
        "Smoking increased lung cancer risk by 20%",
        "obesity raised diabetes risk by 15%.",
    ]
    for claim in claims:
        assert text[claim.start : claim.end] == claim.text


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("The liver produces bile; the gallbladder stores bile.", 2),
        ("Serum ferritin rose in men, whereas women showed no change.", 2),
        ("Statins lowered LDL cholesterol but did not change HDL.", 1),  # shared subject
        ("Smoking increased lung cancer risk and reduced life expectancy.", 1),
        ("The drug lowered blood pressure, but it caused headaches.", 1),  # "it": not alone
        ("Mice were fed (a high-fat diet; 60% fat) and gained weight.", 1),  # inside brackets
        # A list's Oxford comma, not a join of clauses.
        ("Cells linked to fever, pain, and cancer, were expanded in 40 patients.", 1),
    ],
)
def test_splits_only_where_each_part_stands_alone(text: str, parts: int) -> None:
    assert len(claims_of(text)) == parts


def test_vague_quantifiers_lower_prob_fact() -> None:
    [vague] = claims_of("Many patients often improved after several weeks of treatment.")
    [plain] = claims_of("The patients improved after six weeks of treatment.")
    assert "vague_quantifier" in vague.features
    assert vague.prob_fact < plain.prob_fact
    # Three distinct cues count three times.
    assert score("Many patients often improved after several doses.")[0] == pytest.approx(0.2)


def test_abbreviations_and_decimals_do_not_split_sentences() -> None:
    text = (
        "As reported by Smith et al. in Fig. 2, a dose of 2.5 mg was better vs. placebo "
        "(p < 0.05), e.g. in older adults. The effect lasted 3 weeks in the U.S. cohort."
    )
    claims = claims_of(text)
    assert len(claims) == 2
    assert claims[0].text.startswith("As reported by Smith et al. in Fig. 2")
    assert claims[0].text.endswith("e.g. in older adults.")
    assert claims[1].text == "The effect lasted 3 weeks in the U.S. cohort."


def test_spans_point_at_claim_text_in_a_chunk() -> None:
    text = (
        "Background text. Aspirin reduced stroke by 12% compared with placebo. Is it safe? "
        "Metformin lowered HbA1c by 1.1% in 2019; insulin raised weight by 2 kg."
    )
    claims = claims_of(text)
    assert len(claims) == 3
    for claim in claims:
        assert text[claim.start : claim.end] == claim.text
    assert claims[0].text == "Aspirin reduced stroke by 12% compared with placebo."


def test_plural_subject_with_base_form_verb_is_no_fragment() -> None:
    assert len(claims_of("These distinct MDSC overproduce suppressive cytokines.")) == 1
    assert len(claims_of("Human cancer cells utilize mitotic DNA synthesis.")) == 1


def test_fragments_are_dropped() -> None:
    assert reasons_of("Results were mixed.") == ["fragment"]  # too short
    assert reasons_of("Vitamin D supplementation and fracture risk in older women.") == [
        "fragment"  # a title: no verb
    ]


def test_named_entities_dates_and_effect_sizes_raise_prob_fact() -> None:
    base = score("The treatment lowered the risk of death.")[0]
    named, features = score(
        "The treatment lowered the risk of death in the Framingham Heart Study."
    )
    assert "named_entity" in features and named > base
    dated, features = score("The treatment lowered the risk of death in 2019.")
    assert "date" in features and dated > base
    effect, features = score("The treatment lowered the risk of death (HR = 0.81).")
    assert "effect_size" in features and effect > base
    # A sentence's capitalised first words are not an entity.
    assert "named_entity" not in score("Regular Exercise lowered the risk of death.")[1]


def test_prob_fact_bounds_and_plain_claim_at_base() -> None:
    assert score("The liver produces bile for digestion.")[0] == pytest.approx(0.5)
    texts = [
        "Vitamin D at 50 µg/day reduced fractures by 23% (95% CI 0.61–0.92, p = 0.003, "
        "OR = 0.75, n = 1200) in the Women's Health Initiative in 2010, versus placebo.",
        "Some people may often feel various numerous benefits.",
    ]
    scores = [score(text)[0] for text in texts]
    assert scores[0] == 1.0
    assert scores[1] == 0.2
    assert all(0.2 <= claim.prob_fact <= 1.0 for text in texts for claim in claims_of(text))


def test_every_feature_has_a_name_weight_and_reason() -> None:
    names = [feature.name for feature in FEATURES]
    assert len(names) == len(set(names))
    assert all(feature.reason and feature.weight != 0 for feature in FEATURES)


def test_deterministic_and_batched_in_order() -> None:
    texts = [
        "Aspirin reduced stroke by 12%. My aunt hated aspirin.",
        "",
        "Zinc shortened colds by 2 days; vitamin C did not change their length.",
    ]
    first = RuleClaimExtractor().extract(texts)
    assert first == RuleClaimExtractor().extract(texts) == RULES.extract(texts)
    assert [len(claims) for claims in first] == [1, 0, 2]
    assert RuleClaimExtractor().signature == RULES.signature
    assert RULES.signature.startswith("rules-v")


def test_rule_extractor_satisfies_the_protocol() -> None:
    extractor: ClaimExtractor = RULES
    assert extractor.extract(["Aspirin reduced stroke by 12% in 2019."])[0][0].prob_fact > 0.5


# --- the OpenAI-compatible extractor ---------------------------------------------------------

CHUNK = "Aspirin reduced stroke by 12%. Coffee is popular in Italy."


def llm(content: Any, seen: list[httpx.Request] | None = None) -> OpenAICompatibleClaimExtractor:
    """An extractor whose endpoint answers ``content`` as the assistant message."""

    def handler(request: httpx.Request) -> httpx.Response:
        if seen is not None:
            seen.append(request)
        message = content if isinstance(content, str) else json.dumps(content)
        return httpx.Response(200, json={"choices": [{"message": {"content": message}}]})

    return OpenAICompatibleClaimExtractor(
        "http://llm.test/v1/", "tiny-model", api_key="k", transport=httpx.MockTransport(handler)
    )


def test_llm_good_answer_maps_spans_and_sends_the_request() -> None:
    seen: list[httpx.Request] = []
    answer = [
        {"text": "Coffee is popular in Italy.", "prob_fact": 0.6},
        {"text": "aspirin reduced stroke by 12%", "prob_fact": 0.9},  # case differs
        {"text": "Aspirin prevents all strokes.", "prob_fact": 0.7},  # not in the chunk
    ]
    extractor = llm(f"```json\n{json.dumps(answer)}\n```", seen)
    [claims] = extractor.extract([CHUNK])
    assert [(c.text, c.prob_fact) for c in claims] == [(a["text"], a["prob_fact"]) for a in answer]
    assert CHUNK[claims[0].start : claims[0].end] == "Coffee is popular in Italy."
    assert CHUNK[claims[1].start : claims[1].end] == "Aspirin reduced stroke by 12%"
    assert (claims[2].start, claims[2].end) == (-1, -1)
    [request] = seen
    assert str(request.url) == "http://llm.test/v1/chat/completions"
    assert request.headers["Authorization"] == "Bearer k"
    body = json.loads(request.content)
    assert body["model"] == "tiny-model" and body["temperature"] == 0
    assert body["messages"][-1] == {"role": "user", "content": CHUNK}
    assert extractor.signature.endswith("tiny-model@http://llm.test/v1")


def test_llm_prob_fact_out_of_range_is_clamped() -> None:
    answer = {
        "claims": [
            {"text": "Aspirin reduced stroke by 12%.", "prob_fact": 3},
            {"text": "Coffee is popular in Italy.", "prob_fact": -1.5},
        ]
    }
    [claims] = llm(answer).extract([CHUNK])
    assert [c.prob_fact for c in claims] == [1.0, 0.2]


@pytest.mark.parametrize(
    "content",
    [
        "Sure! Here are the claims: Aspirin reduced stroke.",  # not JSON
        {"text": "Aspirin reduced stroke by 12%.", "prob_fact": 0.9},  # an object, not a list
        [{"text": "Aspirin reduced stroke by 12%."}],  # no prob_fact
        [{"text": "Aspirin reduced stroke by 12%.", "prob_fact": "high"}],
        [{"text": "Aspirin reduced stroke by 12%.", "prob_fact": True}],
        [{"text": 42, "prob_fact": 0.5}],
        ["Aspirin reduced stroke by 12%."],
    ],
)
def test_llm_malformed_answer_raises(content: Any) -> None:
    with pytest.raises(ClaimExtractionError):
        llm(content).extract([CHUNK])


def test_llm_http_error_and_non_completion_raise() -> None:
    def failing(request: httpx.Request) -> httpx.Response:
        return httpx.Response(500, text="boom")

    def not_a_completion(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"error": "no"})

    for handler in (failing, not_a_completion):
        extractor = OpenAICompatibleClaimExtractor(
            "http://llm.test/v1", "m", transport=httpx.MockTransport(handler)
        )
        with pytest.raises(ClaimExtractionError, match=r"llm\.test"):
            extractor.extract([CHUNK])
