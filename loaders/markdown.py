"""Markdown: CommonMark with tables and strikethrough, rendered to plain text with its links and
headings located, and its front matter's title, tags and scalars read."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bs4 import BeautifulSoup
from markdown_it import MarkdownIt
from markdown_it.token import Token

from anchorgraph.loaders.draft import Draft, Found, Rendered
from anchorgraph.loaders.html import walk_html
from anchorgraph.text.normalise import normalise_text


@dataclass(frozen=True)
class FrontMatter:
    title: str = ""
    tags: tuple[str, ...] = ()
    metadata: dict[str, str] = field(default_factory=dict)


class _Markdown(MarkdownIt):
    """CommonMark with tables and strikethrough, keeping every link target as written."""

    def validateLink(self, url: str) -> bool:
        # Keep javascript:/data: links as links so their anchor text is rendered as text;
        # resolve_href drops them later.
        return True

    def normalizeLink(self, url: str) -> str:
        return url  # no percent-encoding: RawLink.href is the href as written


_MARKDOWN = _Markdown("commonmark").enable(["table", "strikethrough"])
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(?P<body>.*?\n)??(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)
_FRONT_MATTER_KEY = re.compile(r"(?P<key>[A-Za-z_][\w-]*)[ \t]*:(?:[ \t]+(?P<value>.*))?$")
_FRONT_MATTER_ITEM = re.compile(r"[ \t]*-[ \t]+(?P<value>.*)$")
_HTML_LINK_OPEN = re.compile(
    r"""<a\b[^>]*?\bhref\s*=\s*(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<bare>[^\s>]+))""", re.I
)
_HTML_LINK_CLOSE = re.compile(r"</a\s*>", re.I)
_HTML_BREAK = re.compile(r"<br\s*/?>", re.I)


def render_markdown(source: str) -> tuple[FrontMatter, Rendered]:
    """The front matter and the rendered text of a Markdown document."""
    source = source.replace("\r\n", "\n").replace("\r", "\n")
    front = FrontMatter()
    if match := _FRONT_MATTER.match(source):
        front = _parse_front_matter(match.group("body") or "")
        source = source[match.end() :]
    draft = Draft()
    # A table's header row is not written as a row: its cells head every body row's cells.
    headers: list[str] | None = None  # collecting the header row's texts while not None
    table_headers: list[str] = []
    column = body_rows = 0
    for token in _MARKDOWN.parse(source):
        match token.type:
            case "heading_open":
                draft.start_heading(int(token.tag[1:]))
            case "heading_close":
                draft.end_heading()
                draft.write("\n\n")
            case "inline" if headers is not None:
                cell = Draft()
                _render_inline(token.children or [], cell)
                headers.append(cell.finish().text)
            case "inline":
                _render_inline(token.children or [], draft)
            case "paragraph_close":
                # Paragraphs in tight lists are hidden: their items stay on consecutive lines.
                draft.write("\n" if token.hidden else "\n\n")
            case "list_item_open":
                draft.write(f"{token.info}{token.markup} ")  # "- ", "* ", "1. "
            case "table_close" if not body_rows:  # a table of a header row alone
                draft.write(f"{' | '.join(table_headers)}\n\n")
            case "bullet_list_close" | "ordered_list_close" | "hr" | "table_close":
                draft.write("\n\n")
            case "fence" | "code_block":
                draft.write(f"\n{token.content}\n\n")
            case "html_block":
                walk_html(BeautifulSoup(token.content, "html.parser"), draft)
                draft.write("\n\n")
            case "thead_open":
                headers, body_rows = [], 0
            case "thead_close":
                table_headers, headers = headers or [], None
            case "tr_open":
                column = 0
            case "td_open":
                draft.cell(column, table_headers)
                column += 1
            case "tr_close" if headers is None:
                draft.write("\n\n")  # one row, one sentence
                body_rows += 1
    return front, draft.finish()


def _render_inline(children: list[Token], draft: Draft) -> None:
    for child in children:
        match child.type:
            case "text" | "code_inline":
                draft.write(child.content)
            case "image":
                draft.write(child.content)  # the alt text; the image itself is not a link
            case "softbreak":
                draft.write(" ")  # hard-wrapped source lines are one paragraph
            case "hardbreak":
                draft.write("\n")
            case "link_open":
                draft.start_link(str(child.attrs.get("href", "")))
            case "link_close":
                draft.end_link()
            case "html_inline":
                _render_inline_html(child.content, draft)
    while draft.open_links:  # an inline <a> never closed ends with its paragraph
        draft.end_link()


def _render_inline_html(tag: str, draft: Draft) -> None:
    if match := _HTML_LINK_OPEN.match(tag):
        draft.start_link(match.group("dq") or match.group("sq") or match.group("bare") or "")
    elif _HTML_LINK_CLOSE.match(tag):
        draft.end_link()
    elif _HTML_BREAK.match(tag):
        draft.write("\n")


def _parse_front_matter(body: str) -> FrontMatter:
    """Read ``title``, ``tags`` and other top-level scalars from YAML-like front matter.

    Not a YAML parser: ``key: value`` lines, ``tags: [a, b]``, ``tags: a, b`` and ``- a`` lists
    under ``tags:``; nested structures are ignored.
    """
    title, tags, metadata = "", [], {}
    key = ""
    for line in body.split("\n"):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if item := _FRONT_MATTER_ITEM.match(line):
            if key == "tags":
                tags.append(_unquote(item.group("value")))
            continue
        entry = _FRONT_MATTER_KEY.match(line)
        if entry is None or line[0].isspace():
            key = ""
            continue
        key, value = entry.group("key").lower(), (entry.group("value") or "").strip()
        if key == "title":
            title = _unquote(value)
        elif key == "tags":
            inner = value[1:-1] if value.startswith("[") and value.endswith("]") else value
            tags.extend(_unquote(tag) for tag in inner.split(",") if tag.strip())
        elif value and value[0] not in "[{|>&*":  # plain scalars only
            metadata[key] = _unquote(value)
    return FrontMatter(
        title=normalise_text(title),
        tags=tuple(dict.fromkeys(tag for tag in map(normalise_text, tags) if tag)),
        metadata=metadata,
    )


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def read(source: str) -> Found:
    """A Markdown document: titled by its front matter's ``title:``, else its first H1; its
    front matter's ``tags:`` and other scalars kept."""
    front, rendered = render_markdown(source)
    return Found(
        front.title or rendered.first_h1(), rendered, tags=front.tags, metadata=front.metadata
    )
