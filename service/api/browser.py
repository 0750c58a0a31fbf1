"""Neo4j Browser, ready on first login: this graph's style and a guide of runnable queries.

The local server's ``neo4j.conf`` (``service/graph/local_server.py``) and ``docker-compose.yml``
set ``browser.post_connect_cmd`` so that Browser runs ``:style <API>/browser/style.grass`` and
``:play <API>/browser/guide.html`` right after a login, and allow the API's host in
``browser.remote_content_hostname_whitelist``.

Browser fetches both from its own page, another origin than the API's, so these two routes (and
only these) answer CORS themselves: ``Access-Control-Allow-Origin: *``, since what they serve is
public and the same for everyone (a style and Cypher text, nothing read from the graph) and
Browser may be served from any host (the local server, Docker, Desktop). Browser asks for the
guide with ``Cache-Control`` and ``Pragma`` headers, which makes the request preflighted: the
``OPTIONS`` routes answer that. The general CORS setting (``api_cors_origins``) and the API key
leave ``/browser`` alone (``service/app.py`` names it to ``install_security``).

The guide is generated from ``cypher/browser/*.cypher``, not kept as a copy: each file's header
gives its slide a title (``// Guide: …``), a text (the lines up to ``Parameters:``) and an
example (``// Example: {json}``) whose values fill in the statement's parameters as Cypher
literals, so that a slide's query runs as it stands when clicked into the editor. The same
statements, with parameters, are EXPLAIN-checked with the rest of the catalogue.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse, PlainTextResponse

from anchorgraph.graph.queries import Query, Statement, cypher, text
from anchorgraph.graph.shards import index_labels

router = APIRouter(prefix="/browser", tags=["neo4j browser"])

# What Neo4j Browser's page needs to read these routes from its own origin.
CORS_HEADERS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "GET, OPTIONS",
    "Access-Control-Allow-Headers": "Cache-Control, Pragma",
    "Access-Control-Max-Age": "600",
}
# The guide's slides, in order; a test checks that every cypher/browser file is one of them.
GUIDE: tuple[Statement[object], ...] = (
    Query.BROWSER_OVERVIEW,
    Query.BROWSER_COLLECTIONS,
    Query.BROWSER_DOCUMENT_CHUNKS,
    Query.BROWSER_ENTITY_MENTIONS,
    Query.BROWSER_EXPANSION_PATHS,
    Query.BROWSER_FOLDER_FD,
    Query.BROWSER_NEIGHBOURHOOD,
)
GUIDE_TITLE = "anchorgraph: the graph behind the search"

Literal = str | int | float | bool
_PARAMETER = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_HEADER_FIELD = re.compile(r"^(Guide|Parameters|Returns|Example):\s*(.*)$")


@dataclass(frozen=True)
class GuideQuery:
    """One slide of the guide: a catalogue statement and what its header says about it."""

    query: Statement[object]
    title: str
    about: str
    parameters: str
    example: dict[str, Literal]

    @property
    def runnable(self) -> str:
        """The statement with each parameter replaced by its example's value."""
        return _PARAMETER.sub(lambda found: cypher_literal(self.example[found[1]]), self.statement)

    @property
    def statement(self) -> str:
        return cypher(self.query)


def guide_query(query: Statement[object]) -> GuideQuery:
    """A statement's slide, read from its header comment.

    Raises:
        ValueError: the header has no ``Guide:`` title, or its example leaves out a parameter.
    """
    fields: dict[str, list[str]] = {"About": []}
    current = "About"
    for line in text(query).splitlines():
        if not line.startswith("//"):
            break
        comment = line.removeprefix("//").strip()
        if matched := _HEADER_FIELD.match(comment):
            fields[matched[1]] = [matched[2]]
            # The title is one line; the text about the query follows it.
            current = "About" if matched[1] == "Guide" else matched[1]
        else:
            fields[current].append(comment)
    if "Guide" not in fields:
        raise ValueError(f"{query}: its header has no 'Guide:' title")
    example = json.loads(" ".join(fields.get("Example", ["{}"])))
    found = GuideQuery(
        query=query,
        title=" ".join(fields["Guide"]),
        about=" ".join(fields["About"]),
        parameters=" ".join(fields.get("Parameters", [])),
        example=example,
    )
    missing = set(_PARAMETER.findall(found.statement)) - set(example)
    if missing:
        raise ValueError(f"{query}: its Example gives no value for {sorted(missing)}")
    return found


def cypher_literal(value: Literal) -> str:
    """A value written as Cypher source (for a statement a person reads and runs in Browser;
    the service itself passes values as parameters)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return json.dumps(value, ensure_ascii=False)  # Cypher reads JSON's string escapes


def guide_html(api_url: str) -> str:
    """The guide as Neo4j Browser plays it: one ``<slide>`` per query, each query in a
    ``pre.runnable`` block (a click puts it in Browser's editor), ``api_url`` the API's base."""
    api = api_url.rstrip("/")
    slides = [_welcome_slide(api), *(_query_slide(guide_query(q)) for q in GUIDE)]
    slides.append(_style_slide(api))
    body = "\n".join(slides)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8">'
        f"<title>{html.escape(GUIDE_TITLE)}</title></head>\n<body>\n"
        f'<article class="guide">\n<carousel class="deck container-fluid">\n{body}\n'
        "</carousel>\n</article>\n</body>\n</html>\n"
    )


def _slide(*parts: str) -> str:
    inner = "\n".join(parts)
    return f'<slide class="row-fluid">\n<div class="col-sm-12">\n{inner}\n</div>\n</slide>'


def _runnable(statement: str) -> str:
    return f'<pre class="pre-scrollable code runnable">{html.escape(statement)}</pre>'


def _welcome_slide(api: str) -> str:
    schema = (
        "(:Collection)-[:CONTAINS]->(:Folder)-[:CONTAINS]->(:Document)\n"
        "(:Document)-[:HAS_CHUNK]->(:Chunk)-[:NEXT]->(:Chunk)\n"
        "(:Chunk)-[:LINKS_TO {anchor_text}]->(:Document|:Chunk|:Unresolved)\n"
        "(:Chunk)-[:MENTIONS {count}]->(:Entity)-[:RELATES {predicate}]->(:Entity)\n"
        "(:Chunk)-[:ASSERTS]->(:Claim {prob_fact})   (:Document)-[:TAGGED]->(:Tag)"
    )
    return _slide(
        f"<h3>{html.escape(GUIDE_TITLE)}</h3>",
        "<p>Documents belong to collections and are split into chunks; chunks link to other "
        "documents, mention entities and assert the claims that factual density (FD*) counts. "
        "The next slides hold queries filled in with examples from the sample corpus (the "
        "collection <code>sample</code>): click one to put it in the editor, change the values, "
        "and run it.</p>",
        f"<pre>{html.escape(schema)}</pre>",
        f'<p>Search the same graph on the <a href="{html.escape(api)}/" target="_blank">'
        "search page</a>; each result there opens its neighbourhood here.</p>",
    )


def _query_slide(slide: GuideQuery) -> str:
    source = f"cypher/{slide.query.name}.cypher"
    return _slide(
        f"<h3>{html.escape(slide.title)}</h3>",
        f"<p>{html.escape(slide.about)}</p>",
        _runnable(slide.runnable),
        f"<p><small>From <code>{html.escape(source)}</code>. Parameters: "
        f"{html.escape(slide.parameters)}</small></p>",
    )


def _style_slide(api: str) -> str:
    return _slide(
        "<h3>The style</h3>",
        "<p>Colours per label, sizes by how connected each kind of node is, and captions that "
        "name the node (a document's title, a chunk's ordinal, an entity's name). It was "
        "applied at login; run this to apply it again after changing styles by hand.</p>",
        _runnable(f":style {api}/browser/style.grass"),
    )


@cache
def style_grass() -> str:
    """``service/web/browser/anchorgraph.grass`` and a rule for every label a chunk or document
    carries beside its own (its shard's, its language's: ``anchorgraph.graph.shards``,
    ``anchorgraph.text.language``), the same as its own label's, so that Browser draws a chunk as a
    chunk whichever of its labels it styles it by."""
    grass = resources.files("anchorgraph.web").joinpath("browser", "anchorgraph.grass").read_text()
    rules = dict(_NODE_RULE.findall(grass))
    derived = index_labels().items()
    return grass + "".join(f"node.{label} {rules[base]}\n" for label, base in derived)


_NODE_RULE = re.compile(r"^node\.(\w+) (\{.*?^\})", re.M | re.S)


@router.get("/guide.html", response_class=HTMLResponse)
def guide(request: Request) -> HTMLResponse:
    """The Neo4j Browser guide (`:play <this URL>`), generated from cypher/browser/."""
    return HTMLResponse(guide_html(str(request.base_url)), headers=CORS_HEADERS)


@router.get("/style.grass", response_class=PlainTextResponse)
def style() -> PlainTextResponse:
    """The Neo4j Browser style of this graph (`:style <this URL>`)."""
    return PlainTextResponse(style_grass(), headers=CORS_HEADERS)


@router.options("/guide.html", include_in_schema=False)
@router.options("/style.grass", include_in_schema=False)
def preflight() -> Response:
    """Browser's CORS preflight (its guide request sends Cache-Control and Pragma)."""
    return Response(status_code=204, headers=CORS_HEADERS)
