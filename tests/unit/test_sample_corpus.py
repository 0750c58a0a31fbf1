"""The sample corpus is self-consistent: every link resolves, every fragment names a heading.

Pure file checks with small regexes, independent of the project's own Markdown reader, so that a
bug in the reader cannot hide a broken corpus (and the other way round).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import pytest

CORPUS = Path(__file__).resolve().parents[2] / "loaders" / "sample_corpus"
NOT_DOCUMENTS: set[str] = set()  # every Markdown file in the folder is a document

FRONT_MATTER = re.compile(r"\A---\n(?P<body>.*?)\n---\n", re.DOTALL)
TITLE = re.compile(r"^title:\s*\S.*$", re.MULTILINE)
TAGS = re.compile(r"^tags:\s*\[(?P<tags>[^\]]+)\]\s*$", re.MULTILINE)
HEADING = re.compile(r"^(?P<hashes>#{1,6})\s+(?P<text>.+?)\s*$", re.MULTILINE)
LINK = re.compile(r"(?<!!)\[(?P<anchor>[^\]]+)\]\((?P<href>[^)\s]+)\)")
EXTERNAL = re.compile(r"^https?://")


def github_slug(heading: str) -> str:
    """GitHub's anchor for a heading: lowercase, punctuation but '-' and '_' dropped, ' ' -> '-'."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@dataclass(frozen=True)
class Doc:
    path: PurePosixPath  # relative to the corpus root
    front_matter: str
    body: str
    slugs: tuple[str, ...]
    levels: tuple[int, ...]
    hrefs: tuple[str, ...]


def _read(path: Path) -> Doc:
    text = path.read_text(encoding="utf-8")
    match = FRONT_MATTER.match(text)
    front, body = (match["body"], text[match.end() :]) if match else ("", text)
    headings = list(HEADING.finditer(body))
    return Doc(
        path=PurePosixPath(path.relative_to(CORPUS).as_posix()),
        front_matter=front,
        body=body,
        slugs=tuple(github_slug(h["text"]) for h in headings),
        levels=tuple(len(h["hashes"]) for h in headings),
        hrefs=tuple(m["href"] for m in LINK.finditer(body)),
    )


DOCS = {
    doc.path: doc
    for doc in (_read(p) for p in sorted(CORPUS.rglob("*.md")) if p.name not in NOT_DOCUMENTS)
}
ALL_HREFS = [(doc.path, href) for doc in DOCS.values() for href in doc.hrefs]
RELATIVE = [(source, href) for source, href in ALL_HREFS if not EXTERNAL.match(href)]


def _resolve(source: PurePosixPath, href: str) -> tuple[PurePosixPath, str]:
    """(target document path, fragment) of a relative link written in ``source``."""
    target, _, fragment = href.partition("#")
    if not target:
        return source, fragment
    parts: list[str] = list(source.parent.parts)
    for part in PurePosixPath(target).parts:
        if part == "..":
            assert parts, f"{source}: {href!r} climbs out of the corpus"
            parts.pop()
        elif part != ".":
            parts.append(part)
    return PurePosixPath(*parts), fragment


def test_corpus_size_and_shape() -> None:
    assert len(DOCS) >= 12
    folders = {path.parent for path in DOCS}
    assert PurePosixPath(".") in folders
    assert len(folders - {PurePosixPath(".")}) >= 2


@pytest.mark.parametrize("path", sorted(DOCS), ids=str)
def test_document_structure(path: PurePosixPath) -> None:
    doc = DOCS[path]
    assert TITLE.search(doc.front_matter), "front matter needs a title"
    tags = TAGS.search(doc.front_matter)
    assert tags and all(t.strip() for t in tags["tags"].split(",")), "front matter needs tags"
    assert 1 in doc.levels and 2 in doc.levels, "needs '#' and '##' headings"
    assert len(set(doc.slugs)) == len(doc.slugs), "heading slugs must be unique in a document"
    assert 150 <= len(doc.body.split()) <= 600


@pytest.mark.parametrize(("source", "href"), RELATIVE, ids=[f"{s}->{h}" for s, h in RELATIVE])
def test_relative_link_resolves(source: PurePosixPath, href: str) -> None:
    target, fragment = _resolve(source, href)
    assert target in DOCS, f"{source}: {href!r} points at a missing file"
    if fragment:
        assert fragment in DOCS[target].slugs, f"{source}: no heading #{fragment} in {target}"


def test_link_counts() -> None:
    external = [href for _, href in ALL_HREFS if EXTERNAL.match(href)]
    with_fragment = [href for _, href in RELATIVE if "#" in href and not href.startswith("#")]
    same_document = [href for _, href in RELATIVE if href.startswith("#")]
    assert len(ALL_HREFS) >= 20
    assert len(with_fragment) >= 4
    assert same_document
    assert external == ["https://www.wikidata.org/"]
    assert any(href.startswith("../") for _, href in RELATIVE), "needs links back up a folder"


def test_link_graph_has_a_cycle() -> None:
    edges = {(source, _resolve(source, href)[0]) for source, href in RELATIVE}
    assert any((b, a) in edges for a, b in edges if a != b)


def test_gazetteer_entries_occur_in_the_corpus() -> None:
    entries = json.loads((CORPUS.parent / "sample_gazetteer.json").read_text(encoding="utf-8"))
    assert 6 <= len(entries) <= 11
    text = "\n".join(doc.body for doc in DOCS.values())
    for entry in entries:
        assert set(entry) == {"name", "type", "aliases"}
        assert isinstance(entry["aliases"], list)
        assert entry["name"] in text, f"{entry['name']} is not mentioned in the corpus"
