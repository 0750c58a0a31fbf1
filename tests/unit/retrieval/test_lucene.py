"""Lucene escaping: every special character, operator words, and whole-query safety."""

from __future__ import annotations

import random

import pytest

from anchorgraph.retrieval.lucene import escape_lucene, fulltext_query

# The classic QueryParser's special characters, as its documentation lists them, with && and ||
# given as the single characters & and | (QueryParserBase.escape escapes them one at a time).
LUCENE_SPECIALS = ["+", "-", "&", "|", "!", "(", ")", "{", "}", "[", "]", "^", '"', "~", "*", "?"]
LUCENE_SPECIALS += [":", "\\", "/"]
LUCENE_WHITESPACE = " \t\n\r\u3000"

NASTY = '"unbalanced (quote AND title:foo~ OR bar* \\'


def _parse_as_classic_query_parser(query: str) -> list[str]:
    """Tokenise a query the way the classic QueryParser's lexer would, refusing any syntax.

    Returns the unescaped terms; fails the test on a dangling backslash, an unescaped special
    character or an operator word, i.e. on anything the parser would read as more than terms.
    """
    terms: list[str] = []
    current: list[str] = []
    raw: list[str] = []
    chars = iter(query)
    for char in chars:
        if char == "\\":
            escaped = next(chars, None)
            assert escaped is not None, f"dangling backslash in {query!r}"
            current.append(escaped)
            raw.append(char + escaped)
        elif char in LUCENE_WHITESPACE:
            if current:
                assert "".join(raw) not in {"AND", "OR", "NOT"}, f"operator in {query!r}"
                terms.append("".join(current))
            current, raw = [], []
        else:
            assert char not in LUCENE_SPECIALS, f"unescaped {char!r} in {query!r}"
            current.append(char)
            raw.append(char)
    if current:
        assert "".join(raw) not in {"AND", "OR", "NOT"}, f"operator in {query!r}"
        terms.append("".join(current))
    return terms


def _random_user_text(rng: random.Random) -> str:
    pieces = [*LUCENE_SPECIALS, "&&", "||", "AND", "OR", "NOT", "and", "ANDROID", "title:"]
    pieces += [" ", "  ", "\t", "\n", "foo", "Bar", "42", "café", "\\\\", '\\"']
    return "".join(rng.choice(pieces) for _ in range(rng.randint(0, 25)))


# --- escape_lucene -----------------------------------------------------------------------------


@pytest.mark.parametrize("char", LUCENE_SPECIALS)
def test_every_special_character_is_escaped(char: str) -> None:
    assert escape_lucene(char) == "\\" + char
    assert escape_lucene(f"a{char}b") == f"a\\{char}b"


def test_double_character_operators_are_escaped_character_by_character() -> None:
    assert escape_lucene("a && b || !c") == "a \\&\\& b \\|\\| \\!c"


def test_plain_text_is_unchanged() -> None:
    text = "Walter Zanini, diretor do MAC-USP em 1970 ç é 東京 naïve 'quoted' #tag @who 50%"

    assert escape_lucene(text) == text.replace("-", "\\-")


def test_operator_words_are_lowercased_when_whole_words() -> None:
    assert escape_lucene("cats AND dogs OR NOT birds") == "cats and dogs or not birds"
    assert escape_lucene("AND") == "and"
    assert escape_lucene("NOT x\tOR\ny AND") == "not x\tor\ny and"


def test_words_that_only_contain_operator_words_are_unchanged() -> None:
    text = "ANDROID ORACLE NOTE BAND TORN NOTARY Or And not"

    assert escape_lucene(text) == text


def test_the_nasty_query_is_fully_escaped() -> None:
    assert escape_lucene(NASTY) == '\\"unbalanced \\(quote and title\\:foo\\~ or bar\\* \\\\'


def test_a_trailing_backslash_is_escaped() -> None:
    assert escape_lucene("foo\\") == "foo\\\\"


def test_whitespace_is_kept() -> None:
    assert escape_lucene(" a\t b\n") == " a\t b\n"


def test_escaped_random_text_parses_back_to_the_original_terms() -> None:
    rng = random.Random("lucene")
    for _ in range(1000):
        text = _random_user_text(rng)
        expected = [word.lower() if word in {"AND", "OR", "NOT"} else word for word in text.split()]

        assert _parse_as_classic_query_parser(escape_lucene(text)) == expected


# --- fulltext_query ----------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "   ", "\t\n", "?", "&& || --", '"()" \\ * ~', "- + !"])
def test_nothing_searchable_gives_none(text: str) -> None:
    assert fulltext_query(text) is None


def test_the_nasty_query_becomes_an_or_of_escaped_terms() -> None:
    # The lone trailing backslash searches for nothing and is dropped.
    assert fulltext_query(NASTY) == '\\"unbalanced \\(quote and title\\:foo\\~ or bar\\*'


def test_terms_keep_their_inner_punctuation_escaped() -> None:
    assert fulltext_query("SKU-123? (rev. B)") == "SKU\\-123\\? \\(rev. B\\)"


def test_whitespace_runs_become_single_spaces() -> None:
    assert fulltext_query("  alpha\t\n beta\u3000gamma  ") == "alpha beta gamma"


def test_max_terms_keeps_the_first_terms() -> None:
    assert fulltext_query("one ?? two three four", max_terms=2) == "one two"
    assert fulltext_query(" ".join(f"w{i}" for i in range(1000))) == " ".join(
        f"w{i}" for i in range(256)
    )


def test_max_terms_below_one_is_rejected() -> None:
    with pytest.raises(ValueError, match="max_terms"):
        fulltext_query("anything", max_terms=0)


def test_every_fulltext_query_parses_as_plain_searchable_terms() -> None:
    rng = random.Random("fulltext")
    for _ in range(1000):
        query = fulltext_query(_random_user_text(rng))
        if query is None:
            continue

        terms = _parse_as_classic_query_parser(query)
        assert terms, query
        assert query == " ".join(query.split()), "terms joined by single spaces"
        assert all(any(char.isalnum() for char in term) for term in terms)
