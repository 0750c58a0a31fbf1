"""Study design from the text: systematic review / meta-analysis, randomised trial, or other.

Corpora such as NFCorpus and SciFact do not say what kind of study a document reports, but the
source tier behind FD* (``a_source``) needs one. This module reads it off the study-design
vocabulary of the title and abstract, with regular expressions only (it runs on every document
at ingest), and says which rule decided, so that a tier can be explained.

The rule, in order (the first that fires decides):

1. **Title, review**: the title names a systematic review, meta-analysis, pooled analysis of
   studies or trials, a "review of 67 … trials", or an umbrella review. A title says what the
   document *is*; a meta-analysis *of randomised trials* is a review, hence before 2.
2. **Title, trial**: the title names a randomised trial ("a randomized controlled trial",
   "randomised, double-blind, placebo-controlled study", "RCT").
3. **Body, review**: a sentence of the abstract claims the review as the authors' own work.
4. **Body, trial**: a sentence of the abstract claims the trial as the authors' own work.
5. Otherwise **other**.

Body evidence comes after title evidence of either kind, and review before trial because a
review's abstract describes the trials it pooled ("patients were randomly assigned …" in its
eligibility criteria) while a trial's abstract seldom claims a meta-analysis.

Design words are common in abstracts that are neither: the background cites trials and
reviews ("previous meta-analyses have shown"), the conclusion calls for them ("further RCTs
are needed"), a protocol announces one. So body vocabulary counts only when the sentence ties
it to the document itself, in one of four ways:

* **own work**: a self-reference (*we*, *our*, *this*, *the present*, *the current*, *here*)
  comes before the design term in the same clause (no ``,;:()`` between) within 60 characters:
  "We performed a meta-analysis", "The aim of this systematic review";
* **design heading**: the sentence opens with a structured-abstract heading that describes the
  study itself (``DESIGN``, ``METHODS``, ``OBJECTIVE``, ``DATA SOURCES`` …, not ``BACKGROUND``
  or ``CONCLUSIONS``) and the term follows it within 80 characters: "DESIGN: Randomised
  controlled trial.";
* **leading**: the sentence starts with the design term, or with "A/An/In a" and at most
  three words before it (not a plural: "Meta-analyses and trials were used" is about the
  literature), and says the work was done: "A systematic review … was conducted",
  "In a randomized, double-blind trial, 120 patients …";
* **intrinsic**: the phrase itself describes the study's own procedure: "were randomly
  assigned/allocated", "were randomi[sz]ed to", "we searched MEDLINE", a PRISMA statement.

In every case the sentence is dropped when a *citation or call* word stands between the anchor
and the term, or anywhere before the term for the intrinsic phrases ("previous", "earlier",
"published", "other", "several", "future", "further", "protocol", "data from", "cohort" …: the
last two catch secondary analyses of someone else's trial), or when the sentence calls for more
studies ("is needed", "are warranted", "should be"). A trial term must be singular ("a
randomized trial"): "randomized trials" are nearly always cited. A sentence that randomises
animals, cells or samples ("mice were randomly assigned") is not a randomised controlled trial.
Database names that contain design words ("Cochrane Database of Systematic Reviews",
"Central Register of Controlled Trials") are masked first.

A title with "protocol", "rationale and design", "design of the", "methodology", "guide",
"how to" or "tutorial" gives no title evidence (the body rules still apply).

Spellings: British and American (``randomi[sz]ed``, ``meta-analys(i|e)s``, ``meta-analysed``,
``metaanalysis``), matched case-insensitively except for the upper-case section headings.

Measured on SciFact and NFCorpus (``python -m benchmarks.source_types``): precision per class on
a hand-labelled sample of 78 abstracts is about 0.88 (review), 0.96 (trial) and 1.0 (other); the
review errors are papers *about* meta-analysis (methods, essays), the trial error a pooled
analysis of two trials.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from anchorgraph.loaders.chunking import sentence_spans


class StudyDesign(StrEnum):
    """What a document reports, for its source tier."""

    SYSTEMATIC_REVIEW = "systematic_review"  # systematic reviews and meta-analyses
    RCT = "rct"  # randomised controlled trials
    OTHER = "other"


@dataclass(frozen=True)
class Classification:
    """A study design with the rule that decided it and the words it matched."""

    design: StudyDesign
    rule: str  # e.g. "title:review", "body:trial:intrinsic", "none"
    evidence: str = ""  # the matched text (the title or the sentence), "" for OTHER


# --- vocabulary --------------------------------------------------------------------------------

_I = re.IGNORECASE

# A review of studies: the document synthesises other studies' results.
_REVIEW_TERM = (
    r"(?:(?<!non-)(?<!non)systematic(?:al)?\s+(?:literature\s+)?review"
    r"|systematically\s+review(?:ed|ing)?"
    r"|(?:network\s+|cumulative\s+|dose[-\s]response\s+)?meta-?\s?analy[sz](?:is|es|ed|ing|e)"
    r"|pooled\s+analys[ie]s\s+of\b[^.;]{0,80}?\b(?:trials|studies|cohorts|data)"
    r"|umbrella\s+review|cochrane\s+review"
    r"|\b(?:review|analysis)\s+of\s+\d[\d,]*\s+(?:[\w-]+\s+){0,4}?(?:trials|studies)\b)"
)
# A randomised trial; "randomized" alone ("randomized sample") is not enough.
_RANDOMISED = r"(?<!non-)(?<!non)(?<!quasi-)\brandomi[sz]ed"
_TRIAL_QUALIFIERS = (
    r"(?:controlled|clinical|double[-\s]blind(?:ed)?|single[-\s]blind(?:ed)?|triple[-\s]blind"
    r"|placebo[-\s]controlled|cross[-\s]?over|parallel(?:[-\s]group)?|open[-\s]label"
    r"|multi[-\s]?cent(?:er|re)|pilot|prospective|intervention|feeding|dietary|community"
    r"|cluster|factorial|phase\s+(?:[IV]+|\d)|comparative|masked|sham[-\s]controlled)"
)
_TRIAL_TERM = (
    rf"(?:{_RANDOMISED}(?:[,\s]+(?:and\s+)?{_TRIAL_QUALIFIERS}){{0,5}}[,\s]+"
    r"(?:trial|study|experiment)\b"  # singular: "randomized trials" are cited, not run
    r"|double[-\s]blind(?:ed)?,?\s+(?:randomi[sz]ed,?\s+)?placebo[-\s]controlled"
    r"|\bRCT\b)"
)
# The study's own procedure, whatever comes before.
_ALLOCATION = (
    r"(?:\bwere\s+(?:then\s+)?(?:randomly|randomi[sz]ed)\s+(?:assigned|allocated|divided)"
    r"|\bwere\s+(?:then\s+)?randomi[sz]ed\s+(?:to|into|in|between)\b"
    r"|\bwe\s+randomly\s+(?:assigned|allocated)|\bwe\s+randomi[sz]ed\b"
    r"|\brandomi[sz]ed\s+(?:\d[\d,]*\s+)?(?:participants|patients|subjects|women|men|adults"
    r"|children|volunteers|individuals)\s+to\b)"
)
_DATABASES = r"(?:MEDLINE|PubMed|Embase|Cochrane|CINAHL|Web\s+of\s+Science|Scopus|PsycINFO)"
_SEARCH = (
    rf"(?:\bwe\s+(?:systematically\s+)?searched\b[^.]{{0,80}}?\b{_DATABASES}"
    rf"|\b{_DATABASES}\b[^.]{{0,150}}?\b(?:was|were)\s+(?:systematically\s+)?searched"
    r"|\bPRISMA\b)"
)

_SELF = r"\b(?:we|our|this|the\s+present|the\s+current|here)\b"
# Words that mean the design belongs to someone else's work, or to work still to be done.
_CITED = re.compile(
    r"\b(?:previous(?:ly)?|prior|earlier|past|recent(?:ly)?|published|existing|other|others"
    r"|several|many|numerous|most|few|some|those|these|such|future|further|more|additional"
    r"|protocols?|unlike|contrast|than|versus|vs|compared|comparing|like|lack|no|without"
    r"|cohort|data|database|placebo\s+arm)\b",
    _I,
)
_CALL = re.compile(
    r"\b(?:are|is|were|be)\s+(?:urgently\s+|still\s+|also\s+)?(?:needed|required|warranted"
    r"|necessary)\b|\bshould\s+be\b|\bneed\s+for\b|\bprotocol\b",
    _I,
)
_ANIMAL = re.compile(
    r"\b(?:mice|mouse|rats?|animals?|rabbits?|pigs?|piglets|swine|minipigs|dogs?|cats|sheep"
    r"|hamsters?|monkeys"
    r"|primates|chickens?|hens|cows|cattle|calves|fish|zebrafish|cells|cultures|plants|plots"
    r"|specimens|samples|teeth|molars)\b",
    _I,
)
# Headings of a structured abstract that describe the study itself.
_DESIGN_HEADING = re.compile(
    r"^(?:STUDY\s+DESIGN|TRIAL\s+DESIGN|DESIGN(?:,?\s+SETTING(?:S)?(?:,?\s+(?:AND\s+)?"
    r"(?:PARTICIPANTS|PATIENTS|SUBJECTS))?)?|DESIGN\s+AND\s+(?:SETTING|METHODS)|METHODS?"
    r"|METHODOLOGY|(?:MATERIALS?|PATIENTS|SUBJECTS|PARTICIPANTS)\s+AND\s+METHODS"
    r"|METHODS\s+AND\s+(?:RESULTS|FINDINGS|MATERIALS)|OBJECTIVES?|PURPOSE|AIMS?"
    r"|AIMS?\s+AND\s+OBJECTIVES|DATA\s+SOURCES|EVIDENCE\s+ACQUISITION|TYPE\s+OF\s+REVIEW"
    r"|REVIEW\s+METHODS|SEARCH\s+(?:STRATEGY|METHODS)|SETTING|INTERVENTIONS?)\b\s*[:.]?\s*"
    r"|^(?:Study\s+design|Design|Methods?|Objectives?|Purpose|Aims?|Data\s+sources)\s*:\s*",
)
_HEADING_REACH = 80
_SELF_REACH = 60
# At most three modifiers ("A prospective, double-blind, …"), none that makes the term a part.
_LEADING = (
    r"^(?:(?:a|an|in\s+a|in\s+an|in\s+this)\s+)?"
    r"(?:(?!(?:including|of|and|or|with|using|from|on|for|by|in)\b)[\w-]+,?\s+){0,3}?"
)
# "Meta-analyses and randomized trials were used …": a sentence that opens on plural designs
# is about the literature, not the document.
_PLURAL = re.compile(r"(?:analyses|reviews|studies|trials)$", _I)
_DONE = re.compile(
    r"\b(?:was|were|is|has\s+been|have\s+been)\s+(?:\w+\s+)?(?:conducted|performed|undertaken"
    r"|carried\s+out|done|made|used|completed|designed)\b|^in\s+(?:a|an|this)\b",
    _I,
)

# Database names that contain design words ("Cochrane Database of Systematic Reviews").
_DATABASE_NAMES = re.compile(
    r"database\s+of\s+(?:systematic\s+reviews|abstracts\s+of\s+reviews\s+of\s+effects)"
    r"|central\s+register\s+of\s+controlled\s+trials",
    _I,
)
# The design terms, wherever they stand (a title, or a body sentence the guards let through).
_REVIEW = re.compile(_REVIEW_TERM, _I)
_TRIAL = re.compile(_TRIAL_TERM, _I)
_TITLE_VETO = re.compile(
    r"\bprotocol\b|\brationale\s+and\s+design\b|\bdesign\s+of\s+the\b|\bmethodolog|\bguide\b"
    r"|\bhow\s+to\b|\btutorial\b",
    _I,
)
_REVIEW_LEADING = re.compile(_LEADING + _REVIEW_TERM, _I)
_TRIAL_LEADING = re.compile(_LEADING + _TRIAL_TERM, _I)
_BODY_ALLOCATION = re.compile(_ALLOCATION, _I)
_BODY_SEARCH = re.compile(_SEARCH, _I)
_SELF_BEFORE = re.compile(_SELF, _I)
_CLAUSE_BREAK = re.compile(r"[,;:()\[\]]")
# Every body rule needs one of these words; a cheap test before sentences are split.
_ANY_DESIGN_WORD = re.compile(
    r"review|meta-?\s?analy|pooled|randomi[sz]|randomly|blind|RCT|searched|PRISMA", _I
)


# --- rules -------------------------------------------------------------------------------------


def classify_study_design(title: str, text: str) -> StudyDesign:
    """The study design of a document from its title and abstract (see the module docstring).

    Args:
        title: The document title ("" if none).
        text: The abstract or body text.

    Returns:
        ``SYSTEMATIC_REVIEW``, ``RCT`` or ``OTHER``; pure and deterministic.
    """
    return explain_study_design(title, text).design


def explain_study_design(title: str, text: str) -> Classification:
    """Like :func:`classify_study_design`, with the rule that decided and the text it matched."""
    title = _DATABASE_NAMES.sub("database", title)
    title_vetoed = bool(_TITLE_VETO.search(title))
    if not title_vetoed:
        if _REVIEW.search(title):
            return Classification(StudyDesign.SYSTEMATIC_REVIEW, "title:review", title)
        if _TRIAL.search(title):
            return Classification(StudyDesign.RCT, "title:trial", title)
    text = _DATABASE_NAMES.sub("database", text)
    if not _ANY_DESIGN_WORD.search(text):  # most documents: no sentence splitting at all
        return Classification(StudyDesign.OTHER, "none")
    sentences = [text[start:end] for start, end in sentence_spans(text)]
    for design, kind, term, leading, intrinsic in (
        (StudyDesign.SYSTEMATIC_REVIEW, "review", _REVIEW, _REVIEW_LEADING, _BODY_SEARCH),
        (StudyDesign.RCT, "trial", _TRIAL, _TRIAL_LEADING, _BODY_ALLOCATION),
    ):
        for sentence in sentences:
            anchor = _own_design(sentence, term, leading, intrinsic)
            if anchor:
                return Classification(design, f"body:{kind}:{anchor}", sentence)
    return Classification(StudyDesign.OTHER, "none")


def _own_design(
    sentence: str, term: re.Pattern[str], leading: re.Pattern[str], intrinsic: re.Pattern[str]
) -> str:
    """The anchor that ties a design term in ``sentence`` to the document itself, or "".

    Returns "intrinsic", "own", "heading" or "leading" (see the module docstring), "" when the
    sentence only cites or calls for such a study.
    """
    if _CALL.search(sentence):
        return ""
    if leading is _TRIAL_LEADING and _ANIMAL.search(sentence):
        return ""  # randomised animals or samples: an experiment, not a controlled trial
    for match in intrinsic.finditer(sentence):
        if not _CITED.search(sentence[: match.start()]):
            return "intrinsic"
    heading = _DESIGN_HEADING.match(sentence)
    body_start = heading.end() if heading else 0
    for match in term.finditer(sentence):
        if _owned_by_self(sentence[: match.start()]):
            return "own"
        reach = sentence[body_start : match.start()]
        if heading and len(reach) <= _HEADING_REACH and not _CITED.search(reach):
            return "heading"
    rest = sentence[body_start:]
    lead = leading.match(rest)
    opened = lead is not None and not _CITED.search(lead.group())
    if opened and lead and not _PLURAL.search(lead.group()) and _DONE.search(rest):
        return "leading"
    return ""


def _owned_by_self(before: str) -> bool:
    """A self-reference opens the clause the design term is in, nothing cited in between."""
    window = before[-_SELF_REACH:]
    selves = list(_SELF_BEFORE.finditer(window))
    if not selves:
        return False
    between = window[selves[-1].start() :]
    return not _CLAUSE_BREAK.search(between) and not _CITED.search(between)
