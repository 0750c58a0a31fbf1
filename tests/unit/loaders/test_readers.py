"""Readers: text, spans and metadata of Markdown, HTML, text, JSONL and folders."""

from __future__ import annotations

import codecs
import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from anchorgraph.errors import DocumentTooLarge, InvalidInput, UnsupportedFormat
from anchorgraph.loaders.formats import FORMAT_NAMES
from anchorgraph.loaders.model import SourceDocument
from anchorgraph.loaders.read import (
    Skipped,
    detect_format,
    read_beir_corpus,
    read_bytes,
    read_jsonl,
    read_path,
)
from anchorgraph.text.normalise import normalise_text

LIMIT = 1_000_000
SAMPLE_CORPUS = Path(__file__).resolve().parents[3] / "loaders" / "sample_corpus"


def assert_spans_hold(doc: SourceDocument) -> None:
    """The invariants every reader promises: spans point into the normalised text."""
    assert normalise_text(doc.text) == doc.text
    for link in doc.links:
        assert doc.text[link.start : link.end] == link.anchor_text, link
        assert link.anchor_text == link.anchor_text.strip() != ""
    for heading in doc.headings:
        assert doc.text[heading.start : heading.start + len(heading.text)] == heading.text
    assert [link.start for link in doc.links] == sorted(link.start for link in doc.links)


def markdown(source: str, doc_id: str = "guides/setup.md", **kwargs: object) -> SourceDocument:
    return read_bytes(source.encode(), doc_id=doc_id, fmt="markdown", max_bytes=LIMIT, **kwargs)  # type: ignore[arg-type]


GUIDE = """\
---
title: "Setup: the guide"
tags:
  - install
  - 'ops'
author: Ana Souza
---

# Getting  Started

Install the [command-line tool](../tools/cli.md#install "CLI docs") first.\tThen read
the [*overview*](index.md) and ![a diagram](img/arch.png) the architecture.
Code like `[not](a-link.md)` stays code.

## Getting Started

- see [the FAQ](#faq)
- mail [the team](mailto:team@example.org)

## FAQ

Caf\u0065\u0301 [nai\u0308ve link](#getting-started-1) and <https://example.org/x>.
"""


def test_markdown_text_links_and_headings() -> None:
    doc = markdown(GUIDE)
    assert_spans_hold(doc)
    assert doc.text.startswith("Getting Started\n\nInstall the command-line tool first.")
    assert "---" not in doc.text and "author" not in doc.text  # front matter is not text
    assert "#" not in doc.text.split("\n")[0]
    assert "`[not](a-link.md)`" not in doc.text and "[not](a-link.md)" in doc.text
    assert [(link.href, link.anchor_text) for link in doc.links] == [
        ("../tools/cli.md#install", "command-line tool"),
        ("index.md", "overview"),
        ("#faq", "the FAQ"),
        ("mailto:team@example.org", "the team"),
        ("#getting-started-1", "naïve link"),
        ("https://example.org/x", "https://example.org/x"),
    ]
    assert [(h.slug, h.text, h.level) for h in doc.headings] == [
        ("getting-started", "Getting Started", 1),
        ("getting-started-1", "Getting Started", 2),
        ("faq", "FAQ", 2),
    ]
    assert "a diagram" in doc.text and "img/arch.png" not in doc.text


def test_markdown_front_matter_gives_title_tags_and_metadata() -> None:
    doc = markdown(GUIDE, tags=("caller",))
    assert doc.title == "Setup: the guide"
    assert doc.tags == ("caller", "install", "ops")
    assert doc.metadata == {"author": "Ana Souza"}
    assert doc.source_type == "markdown"


@pytest.mark.parametrize(
    ("source", "title"),
    [
        ("---\ntags: [a, b]\n---\nIntro.\n\n# First H1\n\n# Second", "First H1"),
        ("Just a paragraph.\n\n## Only H2", "setup"),  # the file stem
    ],
)
def test_markdown_title_falls_back_to_h1_then_stem(source: str, title: str) -> None:
    assert markdown(source).title == title


def test_markdown_bracket_tags_and_given_title() -> None:
    doc = markdown('---\ntitle: Ignored\ntags: [one, "two"]\n---\nText.', title="Given")
    assert doc.title == "Given"
    assert doc.tags == ("one", "two")


def test_markdown_spans_survive_crlf_tabs_and_nbsp() -> None:
    source = (
        "# Title\r\n\r\nA\u00a0\u00a0[link\u00a0text](a.md)\t\there\r\nand [e\u0301](b.md).\r\n"
    )
    doc = markdown(source)
    assert_spans_hold(doc)
    assert doc.text == "Title\n\nA link text here and é."
    assert [link.anchor_text for link in doc.links] == ["link text", "é"]


def test_markdown_inline_and_block_html() -> None:
    source = (
        '<h1 align="center">Project <a href="home.md">home</a></h1>\n\n'
        'Text with <a href="x.md">inline link</a> and<br>a break.\n'
    )
    doc = markdown(source)
    assert_spans_hold(doc)
    assert [(h.slug, h.text) for h in doc.headings] == [("project-home", "Project home")]
    assert [(link.href, link.anchor_text) for link in doc.links] == [
        ("home.md", "home"),
        ("x.md", "inline link"),
    ]


def test_sample_corpus_keeps_every_span_invariant() -> None:
    docs = list(read_path(SAMPLE_CORPUS, max_bytes=LIMIT))
    assert len(docs) >= 10
    for doc in docs:
        assert_spans_hold(doc)
        assert doc.links and doc.headings and doc.title


PAGE = """<!DOCTYPE html>
<html><head><title>Museum  &amp; Archive</title><style>p { color: red }</style></head>
<body>
<script>var hidden = "never shown";</script>
<h1 id="top">Main&nbsp;Title</h1>
<p>Hello <a href="a.html#s">the   <b>bold</b> link</a> world.<br>Next line</p>
<ul><li>One</li><li>Two <a href="two.html"><img alt="pic"></a></li></ul>
<pre>  keep
  lines</pre>
<h2>Main Title</h2><h2>Main Title</h2>
<div hidden>secret</div>
<!-- a comment -->
<table><tr><th>Year</th><th>Visitors</th></tr><tr><td>2019</td><td>312,000</td></tr></table>
</body></html>"""


def test_html_text_links_and_headings() -> None:
    doc = read_bytes(PAGE.encode(), doc_id="site/page.html", fmt="html", max_bytes=LIMIT)
    assert_spans_hold(doc)
    assert doc.title == "Museum & Archive"
    for hidden in ("never shown", "color", "secret", "a comment", "Museum"):
        assert hidden not in doc.text
    assert "Main Title\n\nHello the bold link world.\nNext line\n\nOne\n\nTwo pic" in doc.text
    assert " keep\n lines" in doc.text
    # The header row heads the row below it rather than standing alone.
    assert doc.text.endswith("Main Title\n\nYear: 2019; Visitors: 312,000")
    assert [(link.href, link.anchor_text) for link in doc.links] == [
        ("a.html#s", "the bold link"),
        ("two.html", "pic"),
    ]
    assert [(h.slug, h.level) for h in doc.headings] == [
        ("top", 1),
        ("main-title", 2),
        ("main-title-1", 2),
    ]


def test_html_title_falls_back_to_first_h1() -> None:
    doc = read_bytes(
        b"<h2>Sub</h2><h1>The <i>real</i> title</h1>", doc_id="x.html", fmt="html", max_bytes=LIMIT
    )
    assert doc.title == "The real title"


def test_text_title_is_first_line_truncated() -> None:
    line = "word " * 60
    doc = read_bytes(
        f"\ufeff{line}\nbody".encode(), doc_id="notes/a.txt", fmt="text", max_bytes=LIMIT
    )
    assert len(doc.title) <= 200 and line.startswith(doc.title)
    assert doc.text.startswith("word word")  # the BOM is gone
    assert doc.links == () and doc.headings == ()


def test_invalid_utf8_names_document_and_offset() -> None:
    with pytest.raises(InvalidInput, match=r"doc-7.*offset 6"):
        read_bytes(b"valid \xff rest", doc_id="doc-7", fmt="text", max_bytes=LIMIT)


def test_invalid_utf8_offset_counts_the_bom() -> None:
    with pytest.raises(InvalidInput, match="offset 4"):
        read_bytes(b"\xef\xbb\xbfa\xc3", doc_id="d", fmt="text", max_bytes=LIMIT)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32"])
def test_unicode_text_with_its_byte_order_mark_is_read(encoding: str) -> None:
    text = "# Doação\n\nA coleção foi doada ao museu."
    data = text.encode(encoding)
    if not encoding.endswith(("16", "32")):  # Python writes the mark only for the bare names
        data = codecs.BOM_UTF16_BE + data
    doc = read_bytes(data, doc_id="carta.md", fmt="markdown", max_bytes=LIMIT)
    as_utf8 = read_bytes(text.encode(), doc_id="carta.md", fmt="markdown", max_bytes=LIMIT)
    assert (doc.title, doc.text) == (as_utf8.title, as_utf8.text) == ("Doação", doc.text)
    assert "coleção foi doada" in doc.text


def test_text_with_a_nul_character_is_refused_as_not_text() -> None:
    unmarked = "Hello world".encode("utf-16-le")  # UTF-16 without its mark: valid UTF-8
    for data in (unmarked, b"hello\x00world"):
        with pytest.raises(InvalidInput, match=r"d\.txt: holds a NUL character"):
            read_bytes(data, doc_id="d.txt", fmt="text", max_bytes=LIMIT)


@pytest.mark.parametrize(
    ("data", "fmt"),
    [
        (b"", "text"),
        (" \n\t\u00a0 ".encode(), "text"),
        (b"<script>x()</script>", "html"),
        (b"---\ntitle: T\n---\n", "markdown"),
    ],
)
def test_empty_documents_are_rejected(data: bytes, fmt: str) -> None:
    with pytest.raises(InvalidInput, match="no text"):
        read_bytes(data, doc_id="empty", fmt=fmt, max_bytes=LIMIT)


def test_oversize_document_reports_sizes() -> None:
    with pytest.raises(DocumentTooLarge, match=r"big.*1,001 bytes.*1,000 bytes"):
        read_bytes(b"x" * 1001, doc_id="big", fmt="text", max_bytes=1000)


def test_read_bytes_refuses_multi_document_formats() -> None:
    with pytest.raises(UnsupportedFormat):
        read_bytes(b"{}", doc_id="x", fmt="jsonl", max_bytes=LIMIT)


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("a.txt", "text"),
        ("a.TEXT", "text"),
        ("dir/a.md", "markdown"),
        ("a.markdown", "markdown"),
        ("a.html", "html"),
        ("a.HTM", "html"),
        ("docs.jsonl", "jsonl"),
        ("scifact/corpus.jsonl", "beir"),
    ],
)
def test_detect_format(name: str, fmt: str) -> None:
    assert detect_format(Path(name)) == fmt
    assert fmt in FORMAT_NAMES


def test_unknown_format_names_file_and_formats() -> None:
    with pytest.raises(UnsupportedFormat, match=r"report\.xls.*markdown.*html.*pdf.*docx"):
        detect_format("folder/report.xls")


def write_jsonl(path: Path, records: list[object]) -> Path:
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n")
    return path


def test_read_jsonl_records(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "docs.jsonl",
        [
            {"_id": "a", "text": "Alpha  text.", "title": "A", "tags": ["x"], "metadata": {"n": 3}},
            {"id": 7, "text": "Beta.", "source_type": "review"},
        ],
    )
    docs = list(read_jsonl(path, source_type="tier", max_bytes=LIMIT))
    assert [(d.id, d.text, d.title, d.tags, d.source_type) for d in docs] == [
        ("a", "Alpha text.", "A", ("x",), "tier"),
        ("7", "Beta.", "", (), "review"),
    ]
    assert docs[0].metadata == {"n": "3"}
    assert docs[0].source == tmp_path.name and docs[0].uri == path.resolve().as_uri()


@pytest.mark.parametrize(
    ("bad_line", "message"),
    [
        ("{not json", "line 2: not valid JSON"),
        ('["a list"]', "line 2: expected a JSON object"),
        ('{"text": "no id"}', "line 2: '_id'"),
        ('{"_id": "x", "text": "  "}', "line 2: document 'x' has no text"),
        ('{"_id": "x", "text": "t", "tags": "a"}', "line 2: 'tags'"),
        ('{"_id": "x", "text": "t", "metadata": {"k": [1]}}', "line 2: metadata 'k'"),
    ],
)
def test_bad_jsonl_line_is_named(tmp_path: Path, bad_line: str, message: str) -> None:
    path = tmp_path / "docs.jsonl"
    path.write_text('{"_id": "ok", "text": "Fine."}\n' + bad_line + "\n")
    with pytest.raises(InvalidInput, match=message):
        list(read_jsonl(path, max_bytes=LIMIT))


def test_beir_corpus(tmp_path: Path) -> None:
    dataset = tmp_path / "scifact"
    dataset.mkdir()
    write_jsonl(dataset / "corpus.jsonl", [{"_id": "4983", "title": "T", "text": "Body."}])
    (doc,) = read_beir_corpus(dataset, max_bytes=LIMIT)
    assert (doc.id, doc.title, doc.text, doc.source, doc.source_type) == (
        "4983",
        "T",
        "Body.",
        "scifact",
        "beir",
    )


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "handbook"
    (root / "guides" / "deep").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "index.md").write_text("# Home\n\nSee [setup](guides/setup.md).")
    (root / "guides" / "setup.md").write_text("# Setup\n\nRun it.")
    (root / "guides" / "deep" / "notes.txt").write_text("Deep notes.")
    (root / "guides" / "page.html").write_text("<p>Page.</p>")
    (root / "guides" / "empty.md").write_text("   ")
    (root / "logo.svg").write_text("<svg/>")
    (root / "logo.png").write_bytes(b"\x89PNG")  # a PNG's signature and nothing more
    (root / ".hidden.md").write_text("Hidden.")
    (root / ".git" / "HEAD.md").write_text("Hidden too.")
    return root


def test_read_folder_ids_folders_and_skips(tree: Path) -> None:
    skipped: list[Skipped] = []
    docs = {d.id: d for d in read_path(tree, max_bytes=LIMIT, on_skip=skipped.append)}
    assert sorted(docs) == [
        "guides/deep/notes.txt",
        "guides/page.html",
        "guides/setup.md",
        "index.md",
    ]
    setup = docs["guides/setup.md"]
    assert (setup.folder, setup.source, setup.source_type) == ("guides", "handbook", "markdown")
    assert docs["index.md"].folder == "" and docs["guides/deep/notes.txt"].folder == "guides/deep"
    assert setup.uri == (tree / "guides" / "setup.md").resolve().as_uri()
    assert setup.size_bytes == len("# Setup\n\nRun it.")
    assert setup.modified is not None and setup.modified.tzinfo == UTC
    assert abs(setup.modified - datetime.now(UTC)).total_seconds() < 600
    reasons = {s.path: s.reason for s in skipped}
    assert sorted(reasons) == ["guides/empty.md", "logo.png", "logo.svg"]
    assert "no text" in reasons["guides/empty.md"] and "supported" in reasons["logo.svg"]
    assert "not a readable PNG, JPEG or TIFF image" in reasons["logo.png"]
    # Each reason is said once, after the path the skip names: not the file's name again.
    assert not any(reason.startswith(path.rsplit("/")[-1]) for path, reason in reasons.items())


def test_read_folder_with_forced_format_and_source_type(tree: Path) -> None:
    docs = {d.id: d for d in read_path(tree, fmt="text", source_type="review", max_bytes=LIMIT)}
    assert docs["index.md"].text.startswith("# Home")  # read as plain text
    assert {d.source_type for d in docs.values()} == {"review"}


def test_read_folder_skips_oversize_files(tree: Path) -> None:
    skipped: list[Skipped] = []
    docs = list(read_path(tree, max_bytes=15, on_skip=skipped.append))
    assert "index.md" not in {d.id for d in docs}
    assert any(s.path == "index.md" and "over the limit" in s.reason for s in skipped)


def test_beir_dataset_folder_reads_only_the_corpus(tmp_path: Path) -> None:
    dataset = tmp_path / "nfcorpus"
    (dataset / "qrels").mkdir(parents=True)
    write_jsonl(dataset / "corpus.jsonl", [{"_id": "MED-10", "title": "T", "text": "Body."}])
    write_jsonl(dataset / "queries.jsonl", [{"_id": "q1", "text": "A question?"}])
    (dataset / "qrels" / "test.tsv").write_text("q1\tMED-10\t1\n")
    skipped: list[Skipped] = []
    docs = list(read_path(tmp_path, max_bytes=LIMIT, on_skip=skipped.append))
    assert [(d.id, d.source, d.source_type, d.folder) for d in docs] == [
        ("MED-10", "nfcorpus", "beir", "nfcorpus")
    ]
    assert {s.path for s in skipped} == {"nfcorpus/queries.jsonl", "nfcorpus/qrels/test.tsv"}


def test_single_file_has_its_name_as_id(tree: Path) -> None:
    (doc,) = read_path(tree / "guides" / "setup.md", max_bytes=LIMIT)
    assert (doc.id, doc.folder, doc.source, doc.title) == ("setup.md", "", "guides", "Setup")


def test_single_file_errors(tree: Path) -> None:
    with pytest.raises(UnsupportedFormat, match=r"logo\.svg"):
        read_path(tree / "logo.svg", max_bytes=LIMIT)
    with pytest.raises(InvalidInput, match="no such file"):
        read_path(tree / "missing.md", max_bytes=LIMIT)
    with pytest.raises(UnsupportedFormat, match="xls"):
        read_path(tree, fmt="xls", max_bytes=LIMIT)
    with pytest.raises(DocumentTooLarge):
        list(read_path(tree / "index.md", max_bytes=5))


def test_walk_is_sorted_and_deterministic(tree: Path) -> None:
    first = [d.id for d in read_path(tree, max_bytes=LIMIT)]
    os.utime(tree / "index.md")
    assert [d.id for d in read_path(tree, max_bytes=LIMIT)] == first
    assert first[0] == "index.md"  # a folder's own files come before its subfolders
