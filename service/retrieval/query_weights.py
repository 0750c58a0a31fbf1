"""Path weights that follow the query: the dense paths step back for codes, and the lexical
paths follow the dense path's confidence.

A sentence-embedding model reads words; a part number, a serial or a version ("ZQ-4471-B",
"AG-2048") is a string of characters it has no meaning for, while BM25 and the metadata path
match it exactly. So the dense paths' weights shrink by the share of the query that is such a
code::

    w'_p = w_p · (1 − c)   for the dense family's paths (dense, doc_dense), the others unchanged
    c    = min(1, n_code / n_words)

where ``n_words`` counts the query's words (split on whitespace) and ``n_code`` the words of
the identifiers it names (``AnalyzedQuery.identifiers_as_written``) that are codes: letters with
at least three digits (``is_code``). Acronyms and names with a number, such as "ALS", "IL-6" or
"COVID-19", are words a model has seen, and a year alone is no code. A query that is only a code
ranks on the exact paths alone; a sentence naming one code among ten words keeps 90 % of its
dense weight. On the five dev corpora of docs/benchmarks.md ("Document fusion and weights") it
changes no NDCG@10 in the fourth decimal (their questions are sentences, their identifiers
acronyms); the sample corpus's part-number lookups are what it is for.

The lexical paths' weights follow how sure the embedding model is of its own candidates::

    w'_p = w_p · m   for the lexical family's paths (doc_bm25, bm25, tfidf), the others unchanged
    m    = clip(((1 − c₁₀) / (1 − π))^a, 1/4, 4)

where ``c₁₀`` is the mean cosine of the dense path's first ten candidates (at document level
each document by its best chunk), ``π`` = 0.5 and ``a`` the search's ``fusion.confidence_exponent``.
High cosines (the model reads the query as it reads the corpus: claims against the evidence
they paraphrase) shrink the lexical share; low ones (names, rare terms the model has little
meaning for) grow it. ``a`` = 0 leaves every weight as it is. Chosen one whole corpus left out
at a time on five dev corpora (``python -m anchorgraph.evaluation.loo``; docs/benchmarks.md,
"Document fusion and weights"): every fold chose ``a`` = 1.5. The cosines are those of
all-MiniLM-L6-v2; with another model ``π`` may need choosing again (the same command).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from anchorgraph.retrieval.paths import DENSE_PATH_NAMES, LEXICAL_PATH_NAMES
from anchorgraph.retrieval.paths.base import PathName
from anchorgraph.retrieval.values import AnalyzedQuery

# A code holds at least this many digits, and a letter.
CODE_DIGITS = 3

# The rule's constants (module docstring); the paths it scales are the two families'.
CONFIDENCE_DEPTH = 10
CONFIDENCE_PIVOT = 0.5
SCALE_BOUNDS = (0.25, 4.0)


def is_code(text: str) -> bool:
    """Whether an identifier as written is a code: a letter and ``CODE_DIGITS`` digits or more
    ("ZQ-4471-B", "AG-2048"; not "COVID-19", "2019")."""
    digits = sum(character.isdigit() for character in text)
    return digits >= CODE_DIGITS and any(character.isalpha() for character in text)


def code_share(query: AnalyzedQuery) -> float:
    """``c`` of the module docstring: the share of the query's words inside codes it names."""
    words = len(query.text.split())
    written = query.identifiers_as_written.values()
    codes = sum(len(text.split()) for text in written if is_code(text))
    return min(1.0, codes / words) if words else 0.0


def dense_confidence(cosines: Iterable[float], depth: int = CONFIDENCE_DEPTH) -> float | None:
    """``c₁₀`` of the module docstring: the mean of the ``depth`` highest ``cosines``; None
    without any."""
    top = sorted(cosines, reverse=True)[:depth]
    return sum(top) / len(top) if top else None


def lexical_scale(
    confidence: float | None,
    exponent: float,
    pivot: float = CONFIDENCE_PIVOT,
    bounds: tuple[float, float] = SCALE_BOUNDS,
) -> float:
    """``m`` of the module docstring, ``clip(((1 − c) / (1 − pivot))^exponent, *bounds)``: 1.0
    when ``exponent`` is 0 or there is no confidence. Falls as the confidence rises."""
    if confidence is None or exponent == 0:
        return 1.0
    low, high = bounds
    doubt = max(1.0 - confidence, 0.0) / (1.0 - pivot)
    return min(high, max(low, doubt**exponent)) if doubt > 0 else low


def query_weights(
    weights: Mapping[PathName, float], query: AnalyzedQuery | None, lexical: float = 1.0
) -> dict[PathName, float]:
    """``weights`` with the dense paths' times ``1 − code_share(query)`` (unchanged without a
    query) and the lexical paths' times ``lexical`` (``lexical_scale``)."""
    keep = 1.0 - code_share(query) if query is not None else 1.0
    return {
        path: w * keep
        if path in DENSE_PATH_NAMES
        else w * lexical
        if path in LEXICAL_PATH_NAMES
        else w
        for path, w in weights.items()
    }
