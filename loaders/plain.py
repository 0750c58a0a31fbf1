"""Plain text: normalised, and titled by its first line."""

from __future__ import annotations

from anchorgraph.loaders.draft import Found, Rendered
from anchorgraph.text.normalise import normalise_text


def read(source: str) -> Found:
    """A plain text document (the reader of ``anchorgraph.loaders.formats``)."""
    rendered = Rendered(normalise_text(source))
    return Found(rendered.first_line(), rendered)
