"""resolve_href turns hrefs as written into (document id, fragment), or None for dead ends."""

from __future__ import annotations

import pytest

from anchorgraph.loaders.links import heading_slug, resolve_href


@pytest.mark.parametrize(
    ("href", "document_id", "expected"),
    [
        ("#install", "guides/setup.md", ("guides/setup.md", "install")),
        ("other.md#x", "guides/setup.md", ("guides/other.md", "x")),
        ("other.md", "index.md", ("other.md", "")),
        ("./other.md", "guides/setup.md", ("guides/other.md", "")),
        ("../a.md", "guides/b.md", ("a.md", "")),
        ("../../x.md", "guides/b.md", None),  # escapes the ingest root
        ("../x.md", "top.md", None),
        ("/docs/a.md#top", "guides/deep/b.md", ("docs/a.md", "top")),
        ("my%20notes.md", "guides/b.md", ("guides/my notes.md", "")),
        ("a.md?plain=1#L10", "b.md", ("a.md", "L10")),
        ("?tab=2#usage", "b.md", ("b.md", "usage")),
        ("https://Example.org/Page?q=1#frag", "b.md", ("https://example.org/Page?q=1", "frag")),
        ("http://example.org", "b.md", ("http://example.org", "")),
        ("//cdn.example.org/x.js", "b.md", ("https://cdn.example.org/x.js", "")),
        ("mailto:team@example.org", "b.md", None),
        ("tel:+351210000000", "b.md", None),
        ("javascript:alert(1)", "b.md", None),
        ("", "b.md", None),
        ("   ", "b.md", None),
        ("#", "b.md", None),
        ("guides/", "b.md", None),  # a folder, not a document
        (
            "other.html",
            "https://example.org/docs/page.html",
            ("https://example.org/docs/other.html", ""),
        ),
    ],
)
def test_resolve_href(href: str, document_id: str, expected: tuple[str, str] | None) -> None:
    assert resolve_href(href, document_id) == expected


@pytest.mark.parametrize(
    ("heading", "slug"),
    [
        ("Getting Started", "getting-started"),
        ("Set-up & Install_Guide", "set-up--install_guide"),
        ("What's new in v2.1?", "whats-new-in-v21"),
        ("Conservação e clima", "conservação-e-clima"),
    ],
)
def test_heading_slug_is_github_style(heading: str, slug: str) -> None:
    assert heading_slug(heading) == slug
