"""Path weights that follow the query: the dense paths step back for codes.

A sentence-embedding model reads words; a part number, a serial or a version ("ZQ-4471-B",
"AG-2048") is a string of characters it has no meaning for, while BM25 and the metadata path
match it exactly. So the dense paths' weights shrink by the share of the query that is such a
code::

    w'_p = w_p · (1 − c)   for the dense paths (dense, doc_dense), the others unchanged
    c    = min(1, n_code / n_words)

where ``n_words`` counts the query's words (split on whitespace) and ``n_code`` the words of
the identifiers it names (``AnalyzedQuery.identifiers_as_written``) that are codes: letters with
at least three digits (``is_code``). Acronyms and names with a number, such as "ALS", "IL-6" or
"COVID-19", are words a model has seen, and a year alone is no code. A query that is only a code
ranks on the exact paths alone; a sentence naming one code among ten words keeps 90 % of its
dense weight. On the five dev corpora of docs/benchmarks.md ("A default for every corpus") it
changes no NDCG@10 in the fourth decimal (their questions are sentences, their identifiers
acronyms); the sample corpus's part-number lookups are what it is for.
"""

from __future__ import annotations

from collections.abc import Mapping

from service.retrieval.types import DENSE_PATH_NAMES, AnalyzedQuery, PathName

# A code holds at least this many digits, and a letter.
CODE_DIGITS = 3


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


def query_weights(
    weights: Mapping[PathName, float], query: AnalyzedQuery | None
) -> dict[PathName, float]:
    """``weights`` with the dense paths' times ``1 − code_share(query)`` (unchanged without a
    query)."""
    keep = 1.0 - code_share(query) if query is not None else 1.0
    return {path: w * keep if path in DENSE_PATH_NAMES else w for path, w in weights.items()}
