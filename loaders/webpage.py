"""The main content of a web page, found by trafilatura: navigation, banners and footers dropped.

trafilatura is made for pages with furniture; on a bare document (a fragment, an export with
nothing around its text) its fallbacks drop headings and lists, or flatten the page into one
paragraph. So it is asked only about pages that have furniture to drop (HTML5 landmarks or their
ARIA roles); a page without any is all content and is rendered whole. What trafilatura keeps is
rendered by the same walker as any page, with the ids its headings had in the source (it drops
them, and ``#fragment`` links land on them).
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from bs4 import BeautifulSoup, Tag

from anchorgraph.text.normalise import normalise_text

if TYPE_CHECKING:
    from configparser import ConfigParser

# Elements and roles that hold a page's furniture rather than its content.
_FURNITURE = (
    "nav, header, footer, aside, [role=navigation], [role=banner], [role=contentinfo], "
    "[role=complementary], [role=search]"
)
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")


def main_content(page: BeautifulSoup) -> Tag:
    """The part of ``page`` to read: trafilatura's main content where the page has furniture,
    else the page itself (also when trafilatura finds nothing). ``page`` loses its hidden
    elements, which trafilatura would otherwise show."""
    if page.select_one(_FURNITURE) is None:
        return page
    for hidden in page.select("[hidden]"):
        hidden.decompose()
    import trafilatura  # 1.4 s to import: only when a page needs it

    extracted = trafilatura.extract(
        str(page),
        output_format="html",
        include_links=True,
        include_tables=True,
        include_formatting=True,
        include_images=True,  # their alt text is text, as in a whole page
        include_comments=False,  # readers' comments under an article are not the article
        favor_recall=True,
        config=_config(),
    )
    if not extracted:
        return page
    main = BeautifulSoup(extracted, "html.parser")
    _restore_heading_ids(main, page)
    return main


@cache
def _config() -> ConfigParser:
    """trafilatura's defaults, but a short page is not thrown at its last-resort fallback,
    which would give back the whole page, furniture included, as one paragraph."""
    from trafilatura.settings import use_config

    config = use_config()
    config.set("DEFAULT", "MIN_EXTRACTED_SIZE", "0")
    return config


def _restore_heading_ids(main: Tag, page: Tag) -> None:
    ids: dict[tuple[str, str], str] = {}
    for heading in page.find_all(_HEADINGS):
        anchor = heading.get("id")
        if isinstance(anchor, str) and anchor.strip():
            ids.setdefault((heading.name, _text(heading)), anchor.strip())
    for heading in main.find_all(_HEADINGS):
        if anchor := ids.get((heading.name, _text(heading))):
            heading["id"] = anchor


def _text(tag: Tag) -> str:
    return normalise_text(tag.get_text(" "))
