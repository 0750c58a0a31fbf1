"""Conditional writes (RFC 9110 §13.1): ``If-Match`` and ``If-None-Match`` read into the
ingest's ``Precondition``. A document's ETag is its content hash (``GET /documents/{id}`` and
every write answer it), so a client that read a document can replace exactly that version, and
one that means to create can say so."""

from __future__ import annotations

import re

from anchorgraph.errors import InvalidInput
from anchorgraph.loaders.ingest import Precondition

# entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE, etagc = %x21 / %x23-7E / obs-text (§8.8.3); a
# header is * or a comma-separated list of them. ENTITY_TAGS is the whole grammar, in the
# dialect JSON Schema, Python and JavaScript share (the OpenAPI document publishes it).
_ENTITY_TAG = re.compile(r'[ \t]*(W/)?"([\x21\x23-\x7e\x80-\xff]*)"[ \t]*')
_TAG = r'(?:W/)?"[!#-~]*"'
ENTITY_TAGS = rf"^[ \t]*(?:\*|{_TAG}(?:[ \t]*,[ \t]*{_TAG})*)[ \t]*$"


def precondition(if_match: str | None, if_none_match: str | None) -> Precondition | None:
    """The request's conditions on the document it writes (its ``If-Match`` and
    ``If-None-Match`` headers), or None when it has none.

    ``If-Match`` compares strongly, so a weak tag (``W/"…"``) in it matches nothing; ``If-None-
    Match`` compares weakly (§13.1.1–2).

    Raises:
        InvalidInput: a header is neither ``*`` nor a list of quoted entity tags.
    """
    if if_match is None and if_none_match is None:
        return None
    return Precondition(
        if_match=None if if_match is None else _tags(if_match, "If-Match", strong=True),
        if_none_match=None
        if if_none_match is None
        else _tags(if_none_match, "If-None-Match", strong=False),
    )


def _tags(value: str, header: str, *, strong: bool) -> tuple[str, ...]:
    if value.strip(" \t") == "*":
        return ("*",)
    tags: list[str] = []
    for part in value.split(","):
        found = _ENTITY_TAG.fullmatch(part)
        if found is None:
            raise InvalidInput(
                f'{header} takes * or quoted entity tags ("9f2c4e1a", as an ETag header gives '
                f"them), not {value!r}."
            )
        weak, tag = found.groups()
        if not (strong and weak):
            tags.append(tag)
    return tuple(tags)
