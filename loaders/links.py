"""Resolve a hyperlink, as written in a document, to the document and heading it points at."""

from __future__ import annotations

import posixpath
import re
from urllib.parse import unquote, urljoin, urlsplit, urlunsplit

_WEB_SCHEMES = frozenset({"http", "https"})
# GitHub keeps letters, digits, '_', '-' and spaces in a heading's anchor and drops the rest.
_SLUG_DROPPED = re.compile(r"[^\w\- ]")


def heading_slug(text: str) -> str:
    """The GitHub-style anchor of a heading, without the ``-1``/``-2`` suffix for repeats.

    Args:
        text: The heading text, e.g. ``"Set-up & Install_Guide"``.

    Returns:
        Lowercase text without punctuation other than ``-`` and ``_``, spaces turned into ``-``,
        e.g. ``"set-up--install_guide"``.
    """
    return _SLUG_DROPPED.sub("", text.strip().lower()).replace(" ", "-")


def resolve_href(href: str, document_id: str) -> tuple[str, str] | None:
    """Resolve ``href`` found in document ``document_id`` to ``(target_document, fragment)``.

    Document ids are posix paths relative to the ingest root, so a relative href is resolved
    against the folder of ``document_id`` and normalised (``../a.md`` from ``guides/b.md`` is
    ``a.md``); a leading ``/`` means the ingest root. Percent-escapes in relative paths are
    decoded and their query strings dropped. Web URLs keep everything but the fragment.

    Args:
        href: The link target as written, e.g. ``"setup.md#install"``, ``"#usage"``,
            ``"https://example.org/page#x"``.
        document_id: Id of the document the link is in.

    Returns:
        The target document id (or the absolute URL without its fragment) and the fragment
        (``""`` when there is none), or None when the link leads nowhere anchorgraph can
        follow: an empty href or bare ``#``, a ``mailto:``/``tel:``/``javascript:`` or other
        non-web scheme, a folder, or a path that climbs out of the ingest root.
    """
    href = href.strip()
    if not href or href == "#":
        return None
    try:
        parts = urlsplit(href)
    except ValueError:  # e.g. an unbalanced '[' in what looks like an IPv6 host
        return None
    fragment = unquote(parts.fragment)
    scheme = parts.scheme.lower()
    if scheme in _WEB_SCHEMES or (not scheme and parts.netloc):
        if not parts.netloc:
            return None
        url = urlunsplit((scheme or "https", parts.netloc.lower(), parts.path, parts.query, ""))
        return url, fragment
    if scheme:
        return None  # mailto:, tel:, javascript:, data:, ftp:, C:\…
    if urlsplit(document_id).scheme.lower() in _WEB_SCHEMES:
        # A document ingested under its URL: its relative links are URLs too.
        return resolve_href(urljoin(document_id, href), document_id)
    path = unquote(parts.path)
    if not path:
        return document_id, fragment  # "#section" or "?query#section": this document
    if path.endswith("/"):
        return None  # a folder, not a document
    if path.startswith("/"):
        joined = path.lstrip("/")
    else:
        joined = posixpath.join(posixpath.dirname(document_id), path)
    target = posixpath.normpath(joined)
    if target in {".", ".."} or target.startswith("../"):
        return None
    return target, fragment
