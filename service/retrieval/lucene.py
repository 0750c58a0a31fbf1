"""Make user text safe to send to a Neo4j full-text index as a Lucene query.

Neo4j's full-text procedures (``db.index.fulltext.queryNodes``) parse their query string with
Lucene's classic ``QueryParser``, so raw user text is query *syntax*: ``title:foo`` searches a
field, ``bar*`` is a wildcard, ``AND`` is an operator, and an unbalanced ``"`` or ``(`` or a
trailing ``\\`` makes the whole query fail to parse. Source: the Lucene classic query parser
syntax ("Escaping Special Characters": ``+ - && || ! ( ) { } [ ] ^ " ~ * ? : \\ /``, and the
Boolean operators ``AND``, ``OR``, ``NOT``, recognised only in upper case) and
``QueryParserBase.escape``, which escapes ``&`` and ``|`` one character at a time.
"""

from __future__ import annotations

import re
from typing import Final

# Every character the classic QueryParser treats as syntax. ``&&`` and ``||`` are escaped one
# character at a time, as QueryParserBase.escape does.
SPECIAL_CHARACTERS: Final = frozenset('+-&|!(){}[]^"~*?:\\/')

# The operator words. Once every special character is escaped, the parser's tokens are exactly
# the whitespace-separated chunks, so a word is an operator only when it is a whole chunk.
# Python's whitespace includes the parser's (space, \t, \n, \r, U+3000).
_OPERATOR_WORD: Final = re.compile(r"(?<!\S)(?:AND|OR|NOT)(?!\S)")


def escape_lucene(text: str) -> str:
    r"""Escape user text so the classic QueryParser reads it as plain terms.

    Every special character (``+ - & | ! ( ) { } [ ] ^ " ~ * ? : \ /``) gets a backslash, and
    the operator words ``AND``, ``OR`` and ``NOT`` are lowercased when they stand alone between
    whitespace (the parser only knows them in upper case; analyzers lowercase terms anyway, so
    matching is unchanged). Whitespace is kept as it is.

    Example: ``title:foo~ AND bar*`` becomes ``title\:foo\~ and bar\*``.

    Args:
        text: Any user string.

    Returns:
        The escaped text. It can still be empty or contain no searchable term: use
        ``fulltext_query`` to build a query that is never rejected.
    """
    escaped = "".join(f"\\{char}" if char in SPECIAL_CHARACTERS else char for char in text)
    return _OPERATOR_WORD.sub(lambda match: match.group().lower(), escaped)


def fulltext_query(text: str, *, max_terms: int = 256) -> str | None:
    """Turn user text into a safe Lucene query that matches any of its terms.

    The text is split on whitespace; chunks without a letter or digit (``--``, ``&&``, ``?``)
    are dropped, since they search for nothing; each remaining chunk is escaped
    (``escape_lucene``) and the chunks are joined by single spaces. With the parser's default
    ``OR`` operator the result is an OR of the terms, ranked by the index's BM25.

    Args:
        text: Any user string.
        max_terms: At most this many terms are kept (the first ones), so a pasted page cannot
            exceed Lucene's limit on Boolean clauses (1024 by default).

    Returns:
        The query, or ``None`` when nothing searchable is left (empty, blank or only
        punctuation): Lucene rejects an empty query, so callers skip the full-text path.

    Raises:
        ValueError: If ``max_terms`` is less than 1.
    """
    if max_terms < 1:
        raise ValueError(f"max_terms must be >= 1, got {max_terms!r}")
    terms = [chunk for chunk in text.split() if any(char.isalnum() for char in chunk)]
    if not terms:
        return None
    return " ".join(escape_lucene(term) for term in terms[:max_terms])


def phrase_query(text: str) -> str:
    """``text`` as one quoted Lucene phrase: its tokens must appear together, in order.

    Used for identifiers: the analyzer splits ``ZQ-4471-B`` into ``zq 4471 b``, and as loose
    terms those also match ``ZQ-4471-A``; as a phrase only the code itself matches. Inside
    quotes only ``"`` and ``\\`` are special, so only they are escaped.
    """
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
