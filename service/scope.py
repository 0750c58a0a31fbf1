"""Collections: their names, the keys their nodes are stored under, and who may read or write
which of them.

Every document belongs to exactly one collection, and its id is unique within it, never across
(``docs/collections.md``). In the graph a document, chunk, entity or claim is stored under its
*key*, the collection's name, a slash and the id the user knows (``wiki/README.md``,
``wiki/README.md#0``); since a collection name has no slash, the first slash of a key always
ends the collection. Every statement matches those keys, so links, entities and index terms of
two collections never meet; the API, the library and the answers show the id and the
collection apart (``local_id``).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Annotated

from pydantic import StringConstraints

from anchorgraph.errors import InvalidInput

DEFAULT_COLLECTION = "default"
# The English sample corpus of `make run` lives here, apart from every user's own documents.
SAMPLE_COLLECTION = "sample"
ARCHIVE_COLLECTION = "arquivo"  # the second sample: the museum's archive, in Portuguese

# Lower-case letters, digits, '-' and '_', starting with a letter or digit: a name that reads
# the same in a URL path, a shell, a file name and a Neo4j database name.
COLLECTION_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,62}$"
_NAME = re.compile(COLLECTION_PATTERN)
CollectionName = Annotated[str, StringConstraints(pattern=COLLECTION_PATTERN)]

# A document id names a file below a folder (``notes/a.md``), a record (``4983``) or a URL. It
# files the document in its folder part (``notes``), which Neo4j Browser and the metadata path
# show and filter on, so no part of it may be empty, ``.`` or ``..`` (``../../etc/passwd``,
# ``/abs/x.md`` and ``dir/`` would file documents in folders that are not there); and it holds no
# control character, which no file name or URL means and which terminals and logs would obey.
MAX_ID_CHARS = 512
_CONTROL = r"\x00-\x1f\x7f-\x9f"
_INVISIBLE = r"\s\u00ad\u180e\u200b-\u200d\u2060\ufeff"


def document_id_pattern(excluded: str = "") -> str:
    """The regular expression of a valid id (in the dialect JSON Schema, Python and JavaScript
    share, without look-arounds), with the characters ``excluded`` (a class body) left out too:
    '/'-separated parts, each holding a visible character other than '.', or a URL
    (``scheme://`` and no whitespace)."""
    any_ = f"[^/{_CONTROL}{excluded}]"
    named = f"[^/.{_CONTROL}{_INVISIBLE}{excluded}]"
    part = f"{any_}*{named}{any_}*"
    url = f"[A-Za-z][A-Za-z0-9+.-]*://[^{_CONTROL}{_INVISIBLE}{excluded}]+"
    return f"^(?:{url}|{part}(?:/{part})*)$"


DOCUMENT_ID_PATTERN = document_id_pattern()
_DOCUMENT_ID = re.compile(DOCUMENT_ID_PATTERN)
ID_RULE = (
    f"an id is 1 to {MAX_ID_CHARS} characters without control characters, made of "
    "'/'-separated parts that are neither empty nor '.' or '..' (notes/a.md), or a URL"
)


def valid_document_id(value: str) -> bool:
    return 0 < len(value) <= MAX_ID_CHARS and _DOCUMENT_ID.match(value) is not None


def document_id(value: str) -> str:
    """``value`` if it is a valid document id (``ID_RULE``), at every door: a request, the
    library, a file's path below the folder read.

    Raises:
        InvalidInput: it is not.
    """
    if not valid_document_id(value):
        raise InvalidInput(f"{value!r} is not a document id: {ID_RULE}.")
    return value


def collection_name(name: str) -> str:
    """``name`` if it is a valid collection name.

    Raises:
        InvalidInput: it is not 1–63 characters of a-z, 0-9, '-' and '_' starting with a
            letter or digit.
    """
    if not _NAME.match(name):
        raise InvalidInput(
            f"{name!r} is not a collection name: use 1 to 63 lower-case letters, digits, '-' "
            "or '_', starting with a letter or digit (e.g. 'wiki' or 'client-42')."
        )
    return name


def scoped(collection: str, local: str) -> str:
    """The key a node of ``collection`` is stored under: ``collection/local``."""
    return f"{collection}/{local}"


def scoped_all(collections: Iterable[str], locals_: Iterable[str]) -> list[str]:
    """Every local id under every collection (the keys a query term or id may have)."""
    names = list(locals_)
    return [scoped(collection, local) for collection in collections for local in names]


def split_key(key: str) -> tuple[str, str]:
    """``(collection, local id)`` of a stored key.

    Raises:
        ValueError: ``key`` has no collection (it was not made by ``scoped``).
    """
    collection, slash, local = key.partition("/")
    if not slash or not _NAME.match(collection):
        raise ValueError(f"{key!r} is not a collection-scoped key")
    return collection, local


def local_id(key: str) -> str:
    """The id a user knows: the key without its collection."""
    return split_key(key)[1]


@dataclass(frozen=True)
class Access:
    """What a caller may read and write: every collection (``None``) or those named.

    An API key gets one from its entry in the keys file (``service/api/security.py``); the
    command line, the library and an API without keys have ``FULL_ACCESS``.
    """

    read: frozenset[str] | None = None
    write: frozenset[str] | None = None

    def can_read(self, collection: str) -> bool:
        return self.read is None or collection in self.read

    def can_write(self, collection: str) -> bool:
        return self.write is None or collection in self.write

    def readable(self, known: Collection[str]) -> list[str]:
        """Those of ``known`` collections this caller may read, sorted."""
        return sorted(name for name in known if self.can_read(name))


FULL_ACCESS = Access()
