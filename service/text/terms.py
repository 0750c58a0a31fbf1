"""Index terms for the classic TF-IDF path: the same tokenizer at ingest and at query time.

Terms are lowercase Unicode word tokens (NFC, casefolded), without English stop words and
one-letter tokens; numbers and identifiers ("ag-2048" splits into "ag" and "2048") are kept.
No stemming: the full-text index already covers the stemmed, BM25-weighted view of the text.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

_WORD = re.compile(r"\w+", re.UNICODE)

# A short English stop list (Lucene's classic list plus common function words): words that
# carry no topic and would give every chunk a share of the score.
STOP_WORDS = frozenset(
    """a an and are as at be but by for if in into is it no not of on or such that the their
    then there these they this to was will with from has have had been were which who whom
    what when where why how all any both each few more most other some than too very can
    could should would may might must shall do does did doing i me my we our you your he him
    his she her its them those am being so up out about over under again further once here
    only own same just also""".split()  # noqa: SIM905 - a word list reads better as prose
)


def index_terms(text: str) -> Counter[str]:
    """Term frequencies of ``text`` after tokenising, casefolding and dropping stop words."""
    folded = unicodedata.normalize("NFC", text).casefold()
    return Counter(
        token
        for token in _WORD.findall(folded)
        if (len(token) > 1 or token.isdigit()) and token not in STOP_WORDS
    )
