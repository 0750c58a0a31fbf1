"""A search result as a compact HTML table, for Jupyter (``SearchResult._repr_html_``).

One row per hit: rank, score, title and chunk, what each path contributed (with ``explain``),
the priors, FD*_rescaled, the supporting chunks expansion attached, and the start of the text;
above them, when no hit has evidence (``evidence``), that nothing matches. Every value from the
graph is escaped.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from anchorgraph.retrieval.evidence import NO_MATCH

if TYPE_CHECKING:
    from anchorgraph.retrieval.results import Hit, SearchResult

SNIPPET_CHARS = 160


def result_html(result: SearchResult) -> str:
    """The result's hits as a table under one line saying what was asked and found."""
    entities = ", ".join(f"{e.name} ({e.how})" for e in result.entities) or "none"
    caption = (
        f"<b>{escape(result.query)}</b> · {result.mode.value}, {result.level} level · "
        f"{len(result.hits)} hits in {result.total_ms:.0f} ms · entities: {escape(entities)}"
    )
    header = "".join(
        f"<th>{name}</th>"
        for name in ("#", "score", "title / chunk", "paths", "priors", "FD*", "supporting", "text")
    )
    if not result.matched:
        caption += f"<br><b>No match</b>: {escape(NO_MATCH)}"
    rows = "".join(_row(hit) for hit in result.hits)
    return (
        f'<div class="anchorgraph-result"><p>{caption}</p><table><thead><tr>{header}</tr>'
        f"</thead><tbody>{rows}</tbody></table></div>"
    )


def _row(hit: Hit) -> str:
    paths = ", ".join(f"{name} {score.contribution:.3f}" for name, score in hit.paths.items())
    if hit.signals is not None:
        paths = ", ".join(
            f"{name} {value:.3f}" for name, value in hit.signals.contributions.items()
        )
    priors = ", ".join(f"{name} {value:.3f}" for name, value in hit.priors.items())
    fd = "" if hit.fd is None else f"{hit.fd.rescaled:.2f}"
    supporting = ", ".join(s.chunk_id for s in hit.supporting)
    snippet = hit.text[:SNIPPET_CHARS] + ("…" if len(hit.text) > SNIPPET_CHARS else "")
    cells = (
        str(hit.rank),
        f"{hit.score:.3f}",
        f"{escape(hit.title)}<br><small>{escape(hit.chunk_id)}</small>",
        escape(paths),
        escape(priors),
        fd,
        escape(supporting),
        escape(snippet),
    )
    return "<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>"
