"""Conditional writes (RFC 9110 §13.1): ``If-Match`` and ``If-None-Match`` read into the
ingest's ``Precondition``. A document's ETag is its content hash (``GET /documents/{id}`` and
every write answer it), so a client that read a document can replace exactly that version, and
one that means to create can say so."""

from __future__ import annotations

import re

from anchorgraph.loaders.ingest import Precondition

# entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE, etagc = %x21 / %x23-7E / obs-text (§8.8.3); a
# header is * or a comma-separated list of them, which may be empty (#rule, §5.6.1). The
# OpenAPI document declares the headers as plain strings: every value is judged here.
_ENTITY_TAG = re.compile(r'[ \t]*(W/)?"([\x21\x23-\x7e\x80-\xff]*)"[ \t]*')


def precondition(if_match: str | None, if_none_match: str | None) -> Precondition | None:
    """The request's conditions on the document it writes (its ``If-Match`` and
    ``If-None-Match`` headers), or None when it has none.

    ``If-Match`` compares strongly, so a weak tag (``W/"…"``) in it matches nothing; ``If-None-
    Match`` compares weakly (§13.1.1–2). What is no entity tag (``If-Match: 9f2c``, without its
    quotes) matches no version either: an If-Match of nothing else fails (412, saying why), an
    If-None-Match of nothing else holds, and the write is judged as any other.
    """
    if if_match is None and if_none_match is None:
        return None
    return Precondition(
        if_match=None if if_match is None else _tags(if_match, strong=True),
        if_none_match=None if if_none_match is None else _tags(if_none_match, strong=False),
    )


def _tags(value: str, *, strong: bool) -> tuple[str, ...]:
    if value.strip(" \t") == "*":
        return ("*",)
    found = (_ENTITY_TAG.fullmatch(part) for part in value.split(","))
    return tuple(tag.group(2) for tag in found if tag and not (strong and tag.group(1)))
