"""The types a request's fields are made of, for a search and for the API's other bodies: JSON
numbers that are numbers and finite, text that UTF-8 can carry, text that holds a visible
character, a query. Each rule is checked in Python and published in the JSON Schema by the same
object (``Rule``), so that the REST schema and the MCP tool's say what is checked.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    StringConstraints,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, PydanticCustomError, core_schema


def _json_integer(value: object) -> object:
    """Only numbers pass: pydantic's lax mode would also read ``true`` as 1 and ``"10"`` as 10.
    (Strict mode is not used for integers: it refuses ``10.0``, which JSON Schema calls one.)"""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise PydanticCustomError("int_type", "Input should be a valid integer")
    return value


def _valid_unicode(text: str) -> str:
    """Refuse lone surrogates (JSON's ``"\\ud800"``): they cannot be encoded as UTF-8, so Neo4j
    and the answer could not take them."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise PydanticCustomError(
            "unicode_surrogate",
            "Text holds a lone surrogate at position {position}, which is not a character",
            {"position": error.start},
        ) from None
    return text


# Request numbers: JSON numbers only (no booleans, no strings) and always finite; every field
# that takes one also has bounds, so no request can push a score to infinity. (Bounds of an
# optional integer go before the validator, or they stay out of the JSON schema.)
JSON_INTEGER = BeforeValidator(_json_integer)
Integer = Annotated[int, JSON_INTEGER]
Number = Annotated[float, Field(strict=True, allow_inf_nan=False)]
Flag = Annotated[bool, Field(strict=True)]
# Request text: any Unicode string that UTF-8 can carry.
UTF8 = AfterValidator(_valid_unicode)
Text = Annotated[str, UTF8]
ShortText = Annotated[Text, StringConstraints(max_length=512)]

# A character that is neither whitespace (as Python's str.strip and JSON Schema's \s see it) nor
# invisible (what text normalisation removes): a query, an id or a text must hold one to mean
# anything.
VISIBLE_CHARACTER = r"[^\s\x1c-\x1f\x85\u00ad\u180e\u200b-\u200d\u2060\ufeff]"
_VISIBLE = re.compile(VISIBLE_CHARACTER)
BLANK_TEXT = "String should hold a visible character, not only whitespace"


class Rule:
    """In ``Annotated[...]``: a rule checked in Python after the type's own checks, which
    refuses in words of its own, and the JSON Schema keywords that say the same rule, so that
    the REST schema and the MCP tool's (both made from the type) publish what is checked."""

    def __init__(self, check: Callable[[Any], Any], **keywords: Any) -> None:
        self.check = check
        self.keywords = keywords

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        return core_schema.no_info_after_validator_function(self.check, handler(source))

    def __get_pydantic_json_schema__(
        self, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {**handler(schema), **self.keywords}


def _visible(text: str) -> str:
    if _VISIBLE.search(text) is None:
        raise PydanticCustomError("string_blank", BLANK_TEXT)
    return text


# The text holds a VISIBLE_CHARACTER: checked with Python's re, as JSON Schema validators (and
# schemathesis) read the pattern, and refused in words (BLANK_TEXT) rather than by quoting it.
VISIBLE = Rule(_visible, pattern=VISIBLE_CHARACTER)
# A visible character and no NUL anywhere: what a query holds. A NUL is no character of any
# language; Lucene and Neo4j would take it as part of a term that nothing can contain.
QUERY_TEXT = "^[^\\x00]*" + VISIBLE_CHARACTER.replace("[^", "[^\\x00", 1) + "[^\\x00]*$"
NUL_IN_TEXT = "String should not hold a NUL character"


def _query_text(text: str) -> str:
    if "\x00" in text:
        raise PydanticCustomError("string_nul", NUL_IN_TEXT)
    return _visible(text)


# What a search looks for: at most 4096 characters, at least one of them visible (whitespace
# alone would rank every chunk on nothing), and no NUL.
QueryText = Annotated[
    str,
    StringConstraints(min_length=1, max_length=4096),
    Rule(_query_text, pattern=QUERY_TEXT),
    UTF8,
]
