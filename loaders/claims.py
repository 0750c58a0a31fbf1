"""Atomic factual claims and their ``prob_fact``, the numerator of factual density (FD*).

FD_raw(d) = Σ prob_fact / n_tokens(d) needs, for every chunk, the self-contained factual claims it
makes, each scored in [0.2, 1.0] for how *verifiable and specific* it is (not for whether it is
true). A language model can be asked for them; :class:`RuleClaimExtractor` does it with rules, in
pure Python and ``re``, fast enough (benchmarks/claims.py: well over 500 chunks/s on one core)
that it never slows an ingestion bound by the embedding model at ~20 chunks/s.

The rules, in the order they run on each chunk text:

1. **Sentences**: ``anchorgraph.loaders.chunking.sentence_spans``, the splitter chunking itself
   uses, so a chunk's sentences are the ones it was cut along. It does not cut after abbreviations
   (``e.g.``, ``et al.``, ``Fig. 2``, ``vs.``, initials) nor inside decimals (``2.5 mg``, ``p <
   0.05``), since a sentence only ends at a terminator followed by whitespace and then an uppercase
   letter, a digit, a quote or a bracket.
2. **Whole-sentence drops**: a *question* (ends with ``?``) asserts nothing; an *anecdote*
   (first-person singular narrative: "I remember", "my grandmother", "in my experience", "once
   upon a time") reports one person's story, not a checkable fact.
3. **Atomic split**: a sentence is cut into claims on ``"; "`` and on ``", and"``, ``", but"``,
   ``"but"``, ``", whereas"``, ``"whereas"``, ``", while"``, ``", yet"`` — only outside brackets and
   only when *both* sides are clauses that stand alone (see :func:`_is_clause`: a subject word
   then a finite verb, the right side not opening with a verb, a preposition or an anaphoric
   pronoun like "it"/"they"/"this"). "X rose, and Y fell" gives two claims; "X rose and fell",
   "X rose, and so did Y" and "X rose, but it fell" stay whole. Conservative on purpose: a wrong
   split makes two non-claims out of one claim.
4. **Claim drops**: an *indirect question* or statement of aims ("whether", "we aimed to", "the
   aim of this study was") announces what was asked, not what was found. *Hedged* claims whose
   hedge strength is ≥ 2 (two soft cues like "may possibly", "suggest … may", or one speculative
   cue like "we hypothesize", "it is thought", "remains unclear") are dropped; a single soft
   hedge only lowers ``prob_fact`` (docs/design.md §3 both drops hedged statements and lets
   hedges lower the score: strong hedging is the former, a lone "may" the latter). *Fragments* are
   dropped: fewer than :data:`MIN_WORDS` words, or not a single word that could be a verb
   (:func:`_is_verb_lenient`; titles, headings, labels such as "Vitamin D and fracture risk").
5. **Score**: ``prob_fact = clamp(0.2, 1.0, BASE + Σ weight of each feature that fires)`` over the
   table :data:`FEATURES` (numbers with units, percentages, effect sizes, confidence intervals,
   p-values, sample sizes, dates, named entities, comparisons; minus hedges and vague
   quantifiers), each a named rule with its weight and reason.

Everything is deterministic: the same text always gives the same claims, and
:attr:`RuleClaimExtractor.signature` hashes the rule table, so changing a weight or a pattern
changes ingestion's content hash and re-scores the corpus.

:class:`OpenAICompatibleClaimExtractor` is the pluggable alternative behind the same
:class:`ClaimExtractor` protocol: an LLM at an OpenAI-compatible ``/chat/completions`` endpoint.
It is off by default; nothing in anchorgraph constructs it unless configured to.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import httpx

from anchorgraph.errors import ClaimExtractionError
from anchorgraph.loaders.chunking import sentence_spans
from anchorgraph.loaders.claim_languages import CLAIM_WORDS, ClaimWords

PROB_FACT_MIN = 0.2
PROB_FACT_MAX = 1.0
# A plain declarative claim with nothing that makes it specific: half-way.
BASE = 0.5
# Shorter than this is a fragment ("Results were mixed" has 3 words and says little).
MIN_WORDS = 4
# A hedge strength at or above this drops the claim; below it, the "hedge" feature lowers it.
HEDGE_DROP_STRENGTH = 2


@dataclass(frozen=True)
class Claim:
    """One atomic factual claim of a chunk.

    Attributes:
        text: The claim as written (``chunk_text[start:end]`` for the rule extractor).
        prob_fact: Verifiability and specificity in [0.2, 1.0] (not truth).
        start: Character offset of the claim in the chunk text, or -1 when unknown (an LLM claim
            whose text is not found in the chunk).
        end: End offset (exclusive), or -1 when unknown.
        features: Names of the rules that fired (see :data:`FEATURES`), for explanations.
    """

    text: str
    prob_fact: float
    start: int
    end: int
    features: tuple[str, ...] = ()


@dataclass(frozen=True)
class Rejection:
    """A sentence or sentence part that is not a claim, and the rule that said so.

    ``reason`` is one of ``question``, ``anecdote``, ``hedged``, ``fragment``.
    """

    text: str
    start: int
    end: int
    reason: str


class ClaimExtractor(Protocol):
    """Turns chunk texts into atomic claims.

    ``signature`` names the extractor and its configuration; it goes into ingestion's content
    hash so that changing extractors (or their rules) re-extracts, and ``signature_for`` is
    that of the rules a text in a given language is read with (for a document not in English).
    ``extract`` takes a batch so that a remote extractor can batch requests, with each text's
    language (ISO 639-1; None: all English); it returns one list of claims per text, in order.
    """

    @property
    def signature(self) -> str: ...

    def signature_for(self, language: str) -> str: ...

    def extract(
        self, texts: Sequence[str], languages: Sequence[str] | None = None
    ) -> list[list[Claim]]: ...


# --- scoring features ----------------------------------------------------------------------


@dataclass(frozen=True)
class Feature:
    """One scoring rule: ``weight`` is added once per match, up to ``limit`` matches.

    A ``lowercase`` rule is matched against the lowercased claim: case-insensitive, and much
    faster than ``re.IGNORECASE`` for patterns that open with a group of words.
    """

    name: str
    count: Callable[[str], int]
    weight: float
    reason: str
    # The rule's definition as text, hashed into the extractor's signature.
    definition: str
    limit: int = 1
    lowercase: bool = False


def _regex_feature(
    name: str, pattern: str, weight: float, reason: str, *, lowercase: bool = False, limit: int = 1
) -> Feature:
    compiled = re.compile(pattern)

    def count(text: str) -> int:
        if limit == 1:
            return 1 if compiled.search(text) else 0
        return len(compiled.findall(text))

    return Feature(name, count, weight, reason, pattern, limit, lowercase)


# A number: "12", "2.5", "1,200", not part of a word ("A20") or another number. Patterns open
# with a digit and look behind it (``\d(?<!…\d)``) rather than ahead of it: a pattern that
# starts with a character class is scanned for quickly, one that starts with an assertion is
# tried at every position.
_NUM = r"\d(?<![\w.]\d)\d*(?:[.,]\d+)*"
_UNITS = (
    r"mg|µg|μg|ug|mcg|microg|ng|pg|g|kg|lb|lbs|oz|"
    r"ml|mL|µl|µL|dl|dL|L|mmol|µmol|μmol|micromol|nmol|pmol|mol|mM|µM|μM|nM|pM|IU|mEq|"
    r"kcal|cal|kJ|mmHg|cmH2O|"
    r"mm|cm|km|µm|μm|microm\d?|nm|m2|m²|"
    r"sec|seconds?|min|minutes?|h|hr|hrs|hours?|days?|d|weeks?|wk|wks|months?|mo|years?|yr|yrs|"
    r"°C|°F|K|Hz|kHz|MHz|Gy|mGy|Sv|mSv|Bq|bpm|kDa|Da|bp|kb|Mb|W|kW|V|mV|mA|Pa|kPa"
)
_NUMBER_WITH_UNIT = rf"{_NUM}\s?(?:{_UNITS})(?:/[A-Za-zµμ0-9²]+)*(?![A-Za-z])"
_PERCENTAGE = rf"{_NUM}\s?%|\bper ?cent\b|\bpercentage points?\b"
_EFFECT_SIZE = (
    r"\b(?:a?ORs?|a?RRs?|a?HRs?|IRR|SMD|W?MD|Cohen'?s d|d|g|β|beta|r|R2|R²|ρ|rho|η2|η²|κ|kappa)"
    r"\s?(?:=|:|of)\s?[-−–]?\.?\d"
    r"|\b(?i:odds ratio|hazard ratio|risk ratio|rate ratio|relative risk|effect size)s?\b"
)
_CONFIDENCE_INTERVAL = r"\b\d{2}(?:\.\d)?\s?%\s?(?:CI|CrI)\b|\bCI\b|\b(?i:confidence intervals?)\b"
_P_VALUE = r"\b[pP]\s?(?:[<>=≤≥]|&lt;|&gt;)\s?0?\.\d|\b[pP][- ]values?\b|\b[pP]\s?(?:<|=)\s?\d"
_SAMPLE_SIZE = r"\b[nN]\s?=\s?\d"
_MONTHS = (
    r"January|February|March|April|May|June|July|August|September|October|November|December"
    r"|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec"
)
# A year from 1800 to 2099 standing alone, not a quantity ("2000 mg") nor part of a number.
_YEAR = (
    rf"[12](?<![\w.,][12])(?:(?<=1)[89]|(?<=2)0)\d\d(?![\d.,]\d)(?!\s?(?:{_UNITS}|%)(?![A-Za-z]))"
)
_DATE = (
    _YEAR
    # "March 2019", "Jan. 5", "5 March", "2019-03-05".
    + rf"|(?:{_MONTHS})\.?\s+\d{{1,4}}\b|\d(?<![\w.,]\d)\d?\s+(?:{_MONTHS})\b|\d{{4}}-\d\d-\d\d\b"
)
_COMPARISON = (
    r"\b(?:higher|lower|greater|smaller|more|less|fewer|larger|better|worse|faster|slower|"
    r"longer|shorter|older|younger|stronger|weaker)\s+than\b"
    r"|\b(?:increased|reduced|decreased|lowered|raised|improved|declined|dropped|fell|rose|"
    r"increases|reduces|decreases|lowers|raises|improves)\s+(?:\S+\s+){0,4}?by\s+[\d~≈]"
    r"|\bcompared\s+(?:with|to)\b|\bin comparison (?:with|to)\b|\bversus\b|\bvs\.?\s"
    r"|\brelative to\b|\bin contrast to\b|\b\d+(?:\.\d+)?-fold\b"
    r"|\btimes (?:more|less|higher|lower)\b"
)
# A standalone figure: not part of a name like "IL-6" or "BRCA1".
_FIGURE = r"\d(?<![A-Za-z\d\-.,]\d)\d*(?:[.,]\d+)?(?![A-Za-z])"

# Matched in lowercase.
_VAGUE_QUANTIFIERS = (
    r"\b(?:some|many|several|often|various|numerous|a lot|lots of|a number of|a few|"
    r"frequently|sometimes|usually|generally|commonly|largely|relatively|certain)\b"
)

# Hedge cues, matched in lowercase. Soft ones have strength 1 each; "could not" states a fact,
# and "may 2019" is a month.
_SOFT_HEDGES = re.compile(
    r"\b(?:may(?!\s+\d)|might|could(?!\s+not\b)|would|suggest(?:s|ed|ing)?"
    r"|(?:appear|seem)(?:s|ed)?\s+to|(?:un)?likely|possibl[ey]|perhaps|potentially"
    r"|putative(?:ly)?|presumabl[ey]|probabl[ey]|apparently|tends?\s+to|plausibl[ey])\b"
)
# "more likely to" is a comparison, not a hedge: these are taken off the soft count.
_COMPARATIVE_LIKELY = re.compile(r"\b(?:more|less|most|least)\s+likely\b")
# Speculative cues, strength 2 each: on its own enough to drop the claim.
_STRONG_HEDGES = re.compile(
    r"\b(?:hypothesi[sz](?:e|es|ed|ing)\b|speculat\w*|conceivabl[ey]\b"
    r"|(?:is|are|was|were|been)\s+(?:thought|believed|presumed|proposed)\s+to\b"
    r"|it\s+is\s+(?:thought|believed|possible|conceivable|plausible)\b"
    r"|(?:remains?|remained|is|are)\s+(?:unclear|unknown|uncertain|controversial"
    r"|to\s+be\s+(?:determined|established|elucidated|clarified))\b)"
)


def _soft_hedges(lowered: str) -> int:
    return len(_SOFT_HEDGES.findall(lowered)) - len(_COMPARATIVE_LIKELY.findall(lowered))


def hedge_strength(text: str) -> int:
    """Soft hedge cues count 1 ("may", "suggests", "appears to"), speculative ones 2
    ("we hypothesize", "it is thought", "remains unclear")."""
    lowered = text.lower()
    return _soft_hedges(lowered) + 2 * len(_STRONG_HEDGES.findall(lowered))


# Acronyms that are statistics, not entities, and Roman numerals ("type II").
_NOT_ENTITIES = frozenset(
    {
        "CI", "CrI", "OR", "ORs", "RR", "HR", "SD", "SE", "SEM", "IQR", "MD", "SMD", "IRR", "AND",
        "THE", "II", "III", "IV", "VI", "VII", "VIII", "IX", "XI", "XII",
    }
)  # fmt: skip
_ACRONYM = re.compile(r"\b[a-z]?[A-Z]{2,}[A-Za-z0-9]*\b")
_CAPITALISED_RUN = re.compile(
    r"\b[A-Z][a-z]+(?:[ -](?:of |and |de |la |von |van |der )?[A-Z][a-z]+)+\b"
)


def _count_named_entities(text: str) -> int:
    """Acronyms anywhere ("MRI", "BRCA1", "mTOR"), or a run of two or more capitalised words that
    does not open the claim (every sentence starts with a capital)."""
    for match in _ACRONYM.finditer(text):
        if match.group() not in _NOT_ENTITIES:
            return 1
    return 1 if any(m.start() > 0 for m in _CAPITALISED_RUN.finditer(text)) else 0


def _count_soft_hedges(lowered: str) -> int:
    # Only claims with strength < 2 are scored, so this is at most one soft cue.
    return 1 if _soft_hedges(lowered) > 0 else 0


FEATURES: tuple[Feature, ...] = (
    _regex_feature(
        "number_with_unit", _NUMBER_WITH_UNIT, 0.15, "a measured quantity can be checked"
    ),
    _regex_feature("percentage", _PERCENTAGE, 0.15, "a proportion states exactly how much"),
    _regex_feature("effect_size", _EFFECT_SIZE, 0.15, "OR/RR/HR/d/β/r = … quantifies an effect"),
    _regex_feature(
        "confidence_interval", _CONFIDENCE_INTERVAL, 0.15, "an interval states the precision"
    ),
    _regex_feature("p_value", _P_VALUE, 0.1, "a test result can be checked against the data"),
    _regex_feature("sample_size", _SAMPLE_SIZE, 0.05, "n = … says on how many it was observed"),
    _regex_feature("date", _DATE, 0.1, "a year or date pins the claim in time"),
    Feature(
        "named_entity",
        _count_named_entities,
        0.1,
        "a named thing (drug, gene, place, body) can be looked up",
        f"{_ACRONYM.pattern}|{_CAPITALISED_RUN.pattern}|{sorted(_NOT_ENTITIES)}",
    ),
    _regex_feature(
        "comparison", _COMPARISON, 0.1, "higher than / reduced by / versus: a testable contrast"
    ),
    _regex_feature("figure", _FIGURE, 0.05, "any figure makes a claim more specific"),
    Feature(
        "hedge",
        _count_soft_hedges,
        -0.15,
        "a single soft hedge (may, suggests, appears to) weakens the assertion",
        f"{_SOFT_HEDGES.pattern} - {_COMPARATIVE_LIKELY.pattern}",
        lowercase=True,
    ),
    _regex_feature(
        "vague_quantifier",
        _VAGUE_QUANTIFIERS,
        -0.1,
        "some/many/several/often: how many is not said (each cue, up to 3)",
        lowercase=True,
        limit=3,
    ),
)


def clamp_prob_fact(value: float) -> float:
    """``value`` held to [0.2, 1.0] and rounded to 3 decimals (so sums print and compare
    cleanly)."""
    return round(min(PROB_FACT_MAX, max(PROB_FACT_MIN, value)), 3)


def score(text: str, features: Sequence[Feature] = FEATURES) -> tuple[float, tuple[str, ...]]:
    """``prob_fact`` of one claim and the names of the features that fired (English's, or
    another language's: ``LanguageRules``).

    ``prob_fact = clamp(0.2, 1.0, BASE + Σ weight × min(matches, limit))``. Positive features
    count once each (presence, not repetition: ten numbers are not ten times as checkable);
    vague quantifiers count per distinct cue, up to three.
    """
    total = BASE
    fired: list[str] = []
    lowered = text.lower()
    for feature in features:
        matches = min(feature.count(lowered if feature.lowercase else text), feature.limit)
        if matches:
            total += feature.weight * matches
            fired.append(feature.name)
    return clamp_prob_fact(total), tuple(fired)


# --- sentence-level drops ------------------------------------------------------------------

_QUESTION_END = re.compile(r"\?[\"'”’»)\]]*\s*\Z")
# Indirect questions and statements of aims: they announce what was asked, not what was found.
# Matched in lowercase; ", whether induced or …" is not a question.
_INDIRECT_QUESTION = re.compile(
    r"\b(?:(?<!,\s)whether|we\s+(?:aimed|sought|set\s+out|wanted)\s+to"
    r"|(?:aims?|objectives?|purposes?|goals?)\s+of\s+(?:this|the|our|the\s+present)\s+"
    r"(?:study|work|paper|review|trial|analysis|research)\s+(?:was|is|were|are))\b"
)
# First-person singular narrative. "I" alone is not enough ("type I diabetes", "troponin I has
# been shown"): it must open the sentence or carry a contraction, or follow punctuation or a
# function word and precede a verb.
_FIRST_PERSON = re.compile(
    r"\AI\b|\bI['’](?:m|ve|d|ll)\b"
    r"|(?:[,;:(]\s*|\b(?:and|but|so|then|when|as|because|that|if|since|while|until|before|"
    r"after|where|what|which|now|once|today|yesterday|recently|also|still|first|later)\s+)"
    r"I\s+(?:am|was|have|had|did|do|think|thought|remember|recall|believe|felt|feel|know|"
    r"knew|once|used|saw|tried|never|always|swear|swore|guess|love|loved|went|got|found|"
    r"noticed|started|decided|asked|told|said|would|will|can|could|just|really)\b"
)
# The same, without "I": possessives and narrative phrases, matched in lowercase ("me" is only
# lowercase in the original, "ME/CFS" being a disease, so it is matched in the original).
_NARRATIVE = re.compile(
    r"\b(?:my|mine|myself|once upon a time|in (?:my|our) (?:own )?experience"
    r"|a friend of (?:mine|ours)|the other day|swore by|true story|anecdotal(?:ly)?)\b"
)
_ME = re.compile(r"\bme\b")


def _is_anecdote(sentence: str) -> bool:
    # The "I" pattern is slow to scan for, so it runs only where a standalone "I" can be.
    return (
        _NARRATIVE.search(sentence.lower()) is not None
        or _ME.search(sentence) is not None
        or (
            ("I " in sentence or "I'" in sentence or "I’" in sentence)
            and _FIRST_PERSON.search(sentence) is not None
        )
    )


def _sentence_rejection(sentence: str) -> str | None:
    if _QUESTION_END.search(sentence):
        return "question"
    if _is_anecdote(sentence):
        return "anecdote"
    return None


# --- clauses and atomic splitting ----------------------------------------------------------

# Where a compound sentence may be cut: the part before the match is one claim, after it another.
_JOINS = re.compile(r";\s+|,\s+(?:and|but|whereas|while|yet)\s+|\s+(?:but|whereas)\s+")
_AUXILIARIES = frozenset(
    {
        "is", "are", "was", "were", "be", "been", "has", "have", "had", "does", "did", "do",
        "will", "would", "can", "could", "shall", "should", "may", "might", "must", "cannot",
    }
)  # fmt: skip
_IRREGULAR_PAST = frozenset(
    {
        "found", "led", "made", "fell", "rose", "saw", "gave", "took", "got", "went", "became",
        "began", "kept", "held", "brought", "thought", "felt", "knew", "told", "ran", "grew",
        "drove", "bound", "swore", "won", "lost", "met", "paid", "said", "sent", "spent", "stood",
        "left", "showed", "shown", "arose", "underwent", "forgot", "hid", "struck", "wrote",
    }
)  # fmt: skip
# Verbs common in claims, recognised in their third-person present form ("reduces", "varies").
_VERB_STEMS = (
    "increase decrease reduce lower raise cause prevent improve inhibit induce promote activate "
    "regulate bind contain require show remain occur affect protect predict correlate depend "
    "lead result encode express mediate enhance suppress block trigger impair modulate produce "
    "control confer exhibit lack play act form involve include accelerate attenuate delay "
    "elevate exceed develop drive enable facilitate interact limit link maintain persist "
    "represent respond restore target vary work yield help make take give find report "
    "demonstrate reveal indicate confirm identify support suggest provide need use kill reach "
    "rise fall differ decline exist appear seem stimulate disrupt alter change reverse "
    "correspond cure treat protect extend shorten double halve triple determine explain "
    "contribute account associate relate underlie replace become begin get go hold keep "
    "store carry transport convert release secrete absorb metabolize metabolise synthesize "
    "synthesise degrade cleave recruit localize localise accumulate aggregate spread infect "
    "invade migrate proliferate survive die grow divide differentiate signal sense detect "
    "measure observe compare estimate exceed outperform lose gain return move turn allow "
    "permit stop start end open close cross enter leave reflect depict describe define "
    "characterize characterise mark rely consist comprise constitute lie sit stand run cost "
    "pay save serve offer mean look feel smell taste sound say tell know think believe "
    "lack worsen strengthen weaken tighten loosen increase amplify diminish abolish eliminate "
    "deplete restrict constrain reinforce sustain govern orchestrate coordinate reside employ "
    "focus function operate emerge"
)
# Suffixes that make a third-person verb in scientific English ("stabilizes", "modifies");
# "-ates" is left out ("rates", "states", "candidates" are nouns).
_VERB_SUFFIXES = ("izes", "ifies", "yzes")
_SUFFIX_NOT_VERBS = frozenset({"sizes", "prizes"})


def _third_person(stem: str) -> str:
    if stem.endswith(("s", "sh", "ch", "x", "z", "o")):
        return stem + "es"
    if stem.endswith("y") and stem[-2] not in "aeiou":
        return stem[:-1] + "ies"
    return stem + "s"


_PRESENT_VERBS = frozenset(_third_person(stem) for stem in _VERB_STEMS.split())
# Words ending in "ed" that are not verbs.
_ED_NOT_VERBS = frozenset(
    {"need", "speed", "seed", "indeed", "hundred", "bed", "red", "feed", "shed", "bred", "breed"}
)
# Words a clause's subject never starts with: prepositions and subordinators (the part is an
# adverbial), and pronouns pointing back into the sentence (the part would not stand alone).
_NOT_SUBJECT_STARTS = frozenset(
    {
        "in", "on", "at", "for", "with", "by", "from", "to", "of", "after", "before", "during",
        "among", "between", "without", "within", "than", "as", "via", "through", "under", "over",
        "into", "so", "then", "thus", "also", "not", "that", "which", "who", "whose", "where",
        "when", "if", "because", "although", "though", "it", "its", "they", "their", "them",
        "this", "these", "those", "he", "she", "his", "her", "such", "both", "either", "neither",
        "only", "again", "therefore", "hence", "how", "why", "what", "whether",
    }
)  # fmt: skip
_WORD_EDGES = "\"'“”‘’«»()[]{},;:.!?"
# How far into a part its finite verb may be and still make it a clause.
_MAX_SUBJECT_WORDS = 12


def _is_finite_verb(word: str) -> bool:
    """A word taken for a finite verb: an auxiliary or modal, a known irregular past, a known
    verb's third-person present or one ending in "-izes"/"-ifies", or any word of four letters
    or more ending in "ed" (but not "need", "seed", "hundred"…)."""
    return (
        word in _AUXILIARIES
        or word in _IRREGULAR_PAST
        or word in _PRESENT_VERBS
        or (len(word) >= 4 and word.endswith("ed") and word not in _ED_NOT_VERBS)
        or (word.endswith(_VERB_SUFFIXES) and word not in _SUFFIX_NOT_VERBS)
    )


# Base forms ("cells utilize", "PBMC constitute") are verbs after a plural subject, but many are
# nouns too ("use", "control"), so they only keep a sentence from being a verbless fragment.
_BASE_VERBS = frozenset(_VERB_STEMS.split())
_BASE_VERB_SUFFIXES = ("ize", "ise", "ify", "yze", "ate", "ates")


_VERB_PREFIXES = ("over", "under", "re", "co", "up", "down", "mis", "out")


def _is_verb_lenient(word: str) -> bool:
    """:func:`_is_finite_verb`, or a known verb's base form, also behind a prefix
    ("overproduce"), or a word ending like a verb ("-ize", "-ify", "-ate"): for the fragment
    test, where missing a verb drops a real claim."""
    return (
        _is_finite_verb(word)
        or word in _BASE_VERBS
        or (len(word) >= 6 and word.endswith(_BASE_VERB_SUFFIXES))
        or any(
            word.startswith(prefix) and word[len(prefix) :] in _BASE_VERBS | _PRESENT_VERBS
            for prefix in _VERB_PREFIXES
        )
    )


def _words(text: str) -> list[str]:
    return [w for w in (raw.strip(_WORD_EDGES).lower() for raw in text.split()) if w]


def _has_verb(text: str) -> bool:
    return any(_is_verb_lenient(word) for word in _words(text))


def _is_clause(text: str, *, after_join: bool) -> bool:
    """Whether a sentence part stands alone as a claim: at least three words, the first not a
    preposition, subordinator or anaphoric pronoun (see ``_NOT_SUBJECT_STARTS``) nor itself a
    verb (", and reduced Y" shares the previous subject), and a finite verb within the first
    twelve words after at least one subject word.

    The part after a join must also have no comma before that verb: in "linked to A, B, and C,
    were expanded" the ", and" closes a list, and "C, were expanded" is no clause.
    """
    words = text.split()
    if len(words) < 3:
        return False
    first = words[0].strip(_WORD_EDGES).lower()
    if first in _NOT_SUBJECT_STARTS or _is_finite_verb(first):
        return False
    if after_join and words[0].endswith(","):
        return False
    for raw in words[1:_MAX_SUBJECT_WORDS]:
        if _is_finite_verb(raw.strip(_WORD_EDGES).lower()):
            return True
        if after_join and raw.endswith(","):
            return False
    return False


def _bracket_depth(text: str, position: int) -> int:
    prefix = text[:position]
    return prefix.count("(") + prefix.count("[") - prefix.count(")") - prefix.count("]")


def atomic_spans(sentence: str) -> list[tuple[int, int]]:
    """The atomic parts of one sentence, as spans into it (the whole sentence when no cut holds).

    A cut at a join of :data:`_JOINS` outside brackets is made when the text since the previous
    cut and the text up to the next candidate join are both clauses (:func:`_is_clause`).
    """
    joins = [m for m in _JOINS.finditer(sentence) if _bracket_depth(sentence, m.start()) == 0]
    if not joins:
        return [(0, len(sentence))]
    spans: list[tuple[int, int]] = []
    start = 0
    for index, join in enumerate(joins):
        following = joins[index + 1].start() if index + 1 < len(joins) else len(sentence)
        left, right = sentence[start : join.start()], sentence[join.end() : following]
        if _is_clause(left, after_join=False) and _is_clause(right, after_join=True):
            spans.append((start, join.start()))
            start = join.end()
    spans.append((start, len(sentence)))
    return spans


# --- the rule extractor --------------------------------------------------------------------

_TRIM_END = " \t\n,;:"


class RuleClaimExtractor:
    """Claims by deterministic rules (see the module docstring for each step and why)."""

    VERSION = "1"

    def __init__(self) -> None:
        table = json.dumps(
            {
                "base": BASE,
                "min_words": MIN_WORDS,
                "hedge_drop": HEDGE_DROP_STRENGTH,
                "features": [[f.name, f.definition, f.weight, f.limit] for f in FEATURES],
                "hedges": [_SOFT_HEDGES.pattern, _STRONG_HEDGES.pattern],
                "drops": [
                    _QUESTION_END.pattern,
                    _INDIRECT_QUESTION.pattern,
                    _FIRST_PERSON.pattern,
                    _NARRATIVE.pattern,
                    _ME.pattern,
                ],
                "joins": _JOINS.pattern,
                "verbs": sorted(_PRESENT_VERBS | _IRREGULAR_PAST | _AUXILIARIES),
                "not_subject": sorted(_NOT_SUBJECT_STARTS),
            },
            ensure_ascii=False,
        )
        digest = hashlib.sha256(table.encode("utf-8")).hexdigest()[:12]
        self._signature = f"rules-v{self.VERSION}-{digest}"

    @property
    def signature(self) -> str:
        """``rules-v<version>-<hash of the rule table>``: changes whenever a rule does."""
        return self._signature

    def signature_for(self, language: str) -> str:
        """The signature of the rules a text in ``language`` (ISO 639-1) is read with: English's
        for English and any language without rules of its own."""
        rules = LANGUAGE_RULES.get(language)
        return self._signature if rules is None else f"{self._signature}-{rules.signature}"

    def extract(
        self, texts: Sequence[str], languages: Sequence[str] | None = None
    ) -> list[list[Claim]]:
        """The claims of each text, in text order, each read with the rules of its language
        (``languages``, text for text; default English); spans point into that text."""
        codes = languages or ["en"] * len(texts)
        return [self.analyse(text, code)[0] for text, code in zip(texts, codes, strict=True)]

    def analyse(self, text: str, language: str = "en") -> tuple[list[Claim], list[Rejection]]:
        """The claims of one text, and what was left out and why (for explanations, tests and
        the benchmark), by the rules of ``language`` (English's when it has none)."""
        rules: ClaimRules = LANGUAGE_RULES.get(language, ENGLISH_RULES)
        claims: list[Claim] = []
        rejections: list[Rejection] = []
        for sentence_start, sentence_end in sentence_spans(text):
            sentence = text[sentence_start:sentence_end]
            reason = rules.sentence_rejection(sentence)
            if reason is not None:
                rejections.append(Rejection(sentence, sentence_start, sentence_end, reason))
                continue
            for part_start, part_end in rules.atomic_spans(sentence):
                start, end = sentence_start + part_start, sentence_start + part_end
                while end > start and text[end - 1] in _TRIM_END:
                    end -= 1
                while start < end and text[start].isspace():
                    start += 1
                part = text[start:end]
                reason = rules.claim_rejection(part)
                if reason is not None:
                    rejections.append(Rejection(part, start, end, reason))
                    continue
                prob_fact, features = rules.score(part)
                claims.append(Claim(part, prob_fact, start, end, features))
        return claims, rejections


def _claim_rejection(part: str) -> str | None:
    if _INDIRECT_QUESTION.search(part.lower()):
        return "question"
    if hedge_strength(part) >= HEDGE_DROP_STRENGTH:
        return "hedged"
    if len(part.split()) < MIN_WORDS or not _has_verb(part):
        return "fragment"
    return None


# --- rules per language ------------------------------------------------------------------


class ClaimRules(Protocol):
    """The four steps of the rule extractor that depend on the language of the text."""

    def sentence_rejection(self, sentence: str) -> str | None: ...

    def atomic_spans(self, sentence: str) -> list[tuple[int, int]]: ...

    def claim_rejection(self, part: str) -> str | None: ...

    def score(self, part: str) -> tuple[float, tuple[str, ...]]: ...


class EnglishRules:
    """The rules above, as the module docstring describes them."""

    sentence_rejection = staticmethod(_sentence_rejection)
    atomic_spans = staticmethod(atomic_spans)
    claim_rejection = staticmethod(_claim_rejection)
    score = staticmethod(score)


# Parts shorter than this need a verb the endings recognise (``LanguageRules.claim_rejection``).
VERB_CHECKED_WORDS = 8


class LanguageRules:
    """A language's rules built from its words (``anchorgraph.loaders.claim_languages``): questions
    are dropped, first-person sentences kept (letters are written so); a sentence splits only at
    "; " between two parts that each have a verb; a claim is dropped when speculative (strength
    ≥ 2, as in English) or a fragment (fewer than ``MIN_WORDS`` words, or fewer than
    ``VERB_CHECKED_WORDS`` and no verb); it is scored
    by English's features where they are written in symbols (units, "%", effect sizes,
    intervals, p, n, figures) and by its own words for dates, names, comparisons, hedges and
    vague quantifiers."""

    def __init__(self, words: ClaimWords) -> None:
        self.words = words
        self._auxiliaries = frozenset(words.auxiliaries.split())
        self._endings = tuple(words.verb_endings.split())
        self._soft = re.compile(rf"\b(?:{words.soft_hedges})\b")
        self._strong = re.compile(rf"\b(?:{words.strong_hedges})")
        months = rf"(?i:{words.months})"
        date = (
            rf"{_YEAR}|\d(?<![\w.,/]\d)\d?/\d\d?/\d{{2,4}}\b"
            rf"|\d(?<![\w.,]\d)\d?\s+(?:de\s+)?{months}\b|{months}\s+(?:de\s+)?\d{{4}}\b"
        )
        name = re.compile(
            rf"\b[A-ZÀ-Ý][a-zà-ÿ]+(?:[ -](?:(?:{words.name_joiners}) )?[A-ZÀ-Ý][a-zà-ÿ]+)+\b"
        )
        shared = {feature.name: feature for feature in FEATURES}
        self.features: tuple[Feature, ...] = (
            shared["number_with_unit"],
            _regex_feature(
                "percentage", rf"{_NUM}\s?%|\b(?i:{words.per_cent})\b", 0.15,
                "a proportion states exactly how much",
            ),
            shared["effect_size"],
            shared["confidence_interval"],
            shared["p_value"],
            shared["sample_size"],
            _regex_feature("date", date, 0.1, "a year or date pins the claim in time"),
            Feature(
                "named_entity",
                lambda text: 1 if _has_named_entity(text, name) else 0,
                0.1,
                "a named thing (person, place, body, work) can be looked up",
                name.pattern,
            ),
            _regex_feature(
                "comparison", words.comparison, 0.1, "more than / reduced by: a testable contrast",
                lowercase=True,
            ),
            shared["figure"],
            Feature(
                "hedge",
                lambda lowered: 1 if self._soft.search(lowered) else 0,
                -0.15,
                "a single soft hedge weakens the assertion",
                self._soft.pattern,
                lowercase=True,
            ),
            _regex_feature(
                "vague_quantifier",
                rf"\b(?:{words.vague_quantifiers})\b",
                -0.1,
                "how many is not said (each cue, up to 3)",
                lowercase=True,
                limit=3,
            ),
        )  # fmt: skip
        table = json.dumps(
            [words.code, sorted(self._auxiliaries), self._endings, self._strong.pattern,
             [[f.name, f.definition, f.weight, f.limit] for f in self.features]],
            ensure_ascii=False,
        )  # fmt: skip
        self.signature = f"{words.code}-" + hashlib.sha256(table.encode("utf-8")).hexdigest()[:12]

    def hedge_strength(self, text: str) -> int:
        """Soft cues ("talvez", "forse") count 1, speculative ones ("supõe-se") 2."""
        lowered = text.lower()
        return len(self._soft.findall(lowered)) + 2 * len(self._strong.findall(lowered))

    def has_verb(self, text: str) -> bool:
        """An auxiliary, or a word of four letters or more with a verb's ending."""
        return any(
            word in self._auxiliaries or (len(word) >= 4 and word.endswith(self._endings))
            for word in _words(text)
        )

    def sentence_rejection(self, sentence: str) -> str | None:
        return "question" if _QUESTION_END.search(sentence) else None

    def atomic_spans(self, sentence: str) -> list[tuple[int, int]]:
        spans, start = [], 0
        for join in re.finditer(r";\s+", sentence):
            left, right = sentence[start : join.start()], sentence[join.end() :]
            if all(len(p.split()) >= MIN_WORDS and self.has_verb(p) for p in (left, right)):
                spans.append((start, join.start()))
                start = join.end()
        return [*spans, (start, len(sentence))]

    def claim_rejection(self, part: str) -> str | None:
        # A verb is looked for in short parts only: headings and labels ("Orçamento proposto",
        # "Elenco delle opere") are short, and a longer sentence whose verb the endings miss
        # (the subjunctive "chegue") is still a sentence.
        if self.hedge_strength(part) >= HEDGE_DROP_STRENGTH:
            return "hedged"
        words = len(part.split())
        if words < MIN_WORDS or (words < VERB_CHECKED_WORDS and not self.has_verb(part)):
            return "fragment"
        return None

    def score(self, part: str) -> tuple[float, tuple[str, ...]]:
        return score(part, self.features)


def _has_named_entity(text: str, name: re.Pattern[str]) -> bool:
    """An acronym ("MAC", "INV"), or a capitalised name that does not open the claim."""
    if any(m.group() not in _NOT_ENTITIES for m in _ACRONYM.finditer(text)):
        return True
    return any(m.start() > 0 for m in name.finditer(text))


ENGLISH_RULES = EnglishRules()
LANGUAGE_RULES: dict[str, LanguageRules] = {
    code: LanguageRules(words) for code, words in CLAIM_WORDS.items()
}


# --- the LLM-backed extractor --------------------------------------------------------------

PROMPT_VERSION = "1"
SYSTEM_PROMPT = (
    "You extract atomic factual claims from a text. A claim is a single, self-contained, "
    "verifiable statement of fact taken from the text, with pronouns resolved. Leave out "
    "questions, hedged or speculative statements, opinions and personal anecdotes. Give each "
    "claim a prob_fact between 0.2 and 1.0 for how verifiable and specific it is (numbers with "
    "units, percentages, effect sizes, confidence intervals, p-values, dates and named entities "
    "raise it; hedges and vague quantifiers lower it), not for whether it is true. Quote each "
    "claim's wording from the text as closely as possible. Answer with JSON only: a list of "
    'objects {"text": string, "prob_fact": number}, or [] when there is no claim.'
)


class OpenAICompatibleClaimExtractor:
    """Claims from an LLM behind an OpenAI-compatible ``POST {base_url}/chat/completions``.

    One request per chunk text, sent in order over one HTTP client, at temperature 0. The
    answer must be a JSON list of ``{"text", "prob_fact"}`` objects (a ``{"claims": [...]}``
    object and a Markdown code fence around it are accepted too). ``prob_fact`` is clamped to
    [0.2, 1.0]; a claim with empty text is skipped. Spans are found by locating the claim text
    in the chunk, exactly and then ignoring case, searching after the previous claim first; a
    claim not found verbatim (an LLM may rephrase) keeps ``start == end == -1``.

    Off by default: anchorgraph only constructs it when configured to.

    Raises (from :meth:`extract`):
        ClaimExtractionError: the endpoint is unreachable, times out, answers with an HTTP
            error, or answers something that is not such a list.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout_s: float = 60.0,
        *,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        """``transport`` replaces the network (``httpx.MockTransport`` in tests)."""
        self.base_url = base_url.rstrip("/")
        self.model = model
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(timeout=timeout_s, headers=headers, transport=transport)

    @property
    def signature(self) -> str:
        """Model, endpoint and prompt version (not the key)."""
        return f"openai-compatible-v{PROMPT_VERSION}:{self.model}@{self.base_url}"

    def close(self) -> None:
        self._client.close()

    def signature_for(self, language: str) -> str:
        """The model reads every language with the same prompt."""
        return self.signature

    def extract(
        self, texts: Sequence[str], languages: Sequence[str] | None = None
    ) -> list[list[Claim]]:
        return [self._extract_one(text) for text in texts]

    def _extract_one(self, text: str) -> list[Claim]:
        body = {
            "model": self.model,
            "temperature": 0,
            "messages": [
                {"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": text},
            ],
        }
        url = f"{self.base_url}/chat/completions"
        try:
            response = self._client.post(url, json=body)
            response.raise_for_status()
            content = response.json()["choices"][0]["message"]["content"]
        except httpx.HTTPError as error:
            raise ClaimExtractionError(f"claim extractor at {url} failed: {error}") from error
        except (ValueError, KeyError, IndexError, TypeError) as error:
            raise ClaimExtractionError(
                f"claim extractor at {url} did not answer a chat completion: {error!r}"
            ) from error
        if not isinstance(content, str):
            raise ClaimExtractionError(f"claim extractor at {url} answered no message content")
        return _claims_from_answer(text, content)


_FENCE = re.compile(r"\A\s*```(?:json)?\s*(.*?)\s*```\s*\Z", re.DOTALL)


def _claims_from_answer(text: str, content: str) -> list[Claim]:
    """Validate an LLM answer and turn it into claims with spans in ``text``."""
    fenced = _FENCE.match(content)
    try:
        answer: Any = json.loads(fenced.group(1) if fenced else content)
    except json.JSONDecodeError as error:
        raise ClaimExtractionError(f"claim extractor answered invalid JSON: {error}") from error
    if isinstance(answer, dict) and isinstance(answer.get("claims"), list):
        answer = answer["claims"]
    if not isinstance(answer, list):
        raise ClaimExtractionError(
            f"claim extractor answered a {type(answer).__name__}, not a list"
        )
    claims: list[Claim] = []
    search_from = 0
    for index, item in enumerate(answer):
        if not isinstance(item, dict):
            raise ClaimExtractionError(f"claim {index} is a {type(item).__name__}, not an object")
        claim_text, prob_fact = item.get("text"), item.get("prob_fact")
        if not isinstance(claim_text, str):
            raise ClaimExtractionError(f"claim {index} has no text string")
        if isinstance(prob_fact, bool) or not isinstance(prob_fact, int | float):
            raise ClaimExtractionError(f"claim {index} has no numeric prob_fact")
        if not math.isfinite(prob_fact):
            raise ClaimExtractionError(f"claim {index} has a non-finite prob_fact")
        claim_text = claim_text.strip()
        if not claim_text:
            continue
        start = _locate(text, claim_text, search_from)
        end = start + len(claim_text) if start >= 0 else -1
        if end > 0:
            search_from = end
        claims.append(Claim(claim_text, clamp_prob_fact(float(prob_fact)), start, end, ("llm",)))
    return claims


def _locate(text: str, claim: str, search_from: int) -> int:
    """Offset of ``claim`` in ``text``: after ``search_from`` first, then anywhere, then ignoring
    case; -1 when not there verbatim."""
    pairs = [(text, claim)]
    if len(text.lower()) == len(text):  # lower() keeps offsets (not so for every script)
        pairs.append((text.lower(), claim.lower()))
    for haystack, needle in pairs:
        found = haystack.find(needle, search_from)
        if found < 0:
            found = haystack.find(needle)
        if found >= 0:
            return found
    return -1
