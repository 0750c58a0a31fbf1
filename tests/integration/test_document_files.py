"""PDF, Word and scans through every way in: a multipart ``POST /documents``, the library's
``ingest`` of a folder and ``anchorgraph ingest``; what the graph keeps of them (pages, OCR
confidence, links, table rows) and what a search hit cites; and the files refused, with
nothing written.

Plumbing only: the fake embedder and no spaCy pipeline, so this runs in the fast lane."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from clients import api_client
from fastapi.testclient import TestClient

from anchorgraph.embedding import Embedder
from anchorgraph.graph.gateway import Graph
from anchorgraph.library import Library
from anchorgraph.retrieval.results import Hit
from anchorgraph.runtime import Runtime
from anchorgraph.settings import Settings
from benchmarks.document_files import (
    ACROSS_PAGES,
    BROKEN_PAGES,
    FACTS,
    LEDGER_URL,
    REGISTER_URL,
    REPORT_PAGES,
    RUNNING_HEADER,
    letter_image,
    pdf_of_pages,
    png,
    running_pdf,
    two_page_pdf,
    word_report,
)

pytestmark = pytest.mark.integration
needs_tesseract = pytest.mark.skipif(
    shutil.which("tesseract") is None, reason="Tesseract is not installed: `make ocr`"
)
PDF_TYPE = "application/pdf"
DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


def app_client(settings: Settings, fake_embedder: Embedder, **update: Any) -> TestClient:
    # Small chunks, so the two pages of the report are chunks of their own.
    return api_client(settings, fake_embedder, chunk_tokens=24, **update)


@pytest.fixture
def client(clean_graph: Graph, settings: Settings, fake_embedder: Embedder) -> Iterator[TestClient]:
    with app_client(settings, fake_embedder) as test_client:
        yield test_client


def upload(client: TestClient, name: str, data: bytes, content_type: str) -> Any:
    return client.post("/documents", files={"file": (name, data, content_type)})


def document_count(graph: Graph) -> int:
    return int(
        graph.driver.execute_query("MATCH (d:Document) RETURN count(d) AS n").records[0]["n"]
    )


def test_a_pdf_upload_keeps_its_pages_and_hits_cite_them(client: TestClient) -> None:
    created = upload(client, "reports/1978.pdf", two_page_pdf(), PDF_TYPE)
    assert created.status_code == 201, created.text
    assert created.json()["links"] == 1

    document = client.get("/documents/reports/1978.pdf").json()
    assert document["title"] == "Annual report of the museum"
    assert document["source_type"] == "pdf" and document["n_pages"] == 2
    assert document["ocr_confidence"] is None
    assert [link["href"] for link in document["links"]] == [REGISTER_URL]
    pages_of = {chunk["id"]: chunk["pages"] for chunk in document["chunks"]}
    assert {(1,), (2,)} <= {tuple(pages) for pages in pages_of.values()}

    for query, page in (("Tarsila do Amaral portrait", 1), ("41,000 visitors", 2)):
        hits = client.post("/search", json={"query": query, "mode": "bm25", "k": 3}).json()
        top = hits["hits"][0]
        assert top["document_id"] == "reports/1978.pdf"
        assert top["pages"] == [page], (query, top)
        assert top["pages"] == pages_of[top["chunk_id"]]  # as stored on the chunk
        span = f"characters {top['start']}–{top['end']}"
        assert Hit.model_validate(top).citation() == f"reports/1978.pdf, page {page}, {span}"
    both = Hit.model_validate({**top, "pages": [1, 2]})
    assert both.citation() == f"reports/1978.pdf, pages 1–2, {span}"


def test_each_fact_of_a_paged_pdf_cites_its_own_page_and_span(client: TestClient) -> None:
    """A fact a page, under a running header and above a running footer: each search hit names
    the page and the characters of its own text, and no chunk holds a header or footer."""
    for name, pages in (("reports/1978.pdf", REPORT_PAGES), ("reports/roof.pdf", BROKEN_PAGES)):
        assert upload(client, name, running_pdf(pages), PDF_TYPE).status_code == 201
    chunks = {
        name: {chunk["id"]: chunk for chunk in client.get(f"/documents/{name}").json()["chunks"]}
        for name in ("reports/1978.pdf", "reports/roof.pdf")
    }
    for chunk in [*chunks["reports/1978.pdf"].values(), *chunks["reports/roof.pdf"].values()]:
        assert RUNNING_HEADER not in chunk["text"] and "page" not in chunk["text"], chunk
    cited = [(fact, "reports/1978.pdf", [n]) for n, fact in enumerate(FACTS, start=1)]
    for sentence, name, pages in [*cited, (ACROSS_PAGES, "reports/roof.pdf", [1, 2])]:
        answer = client.post("/search", json={"query": sentence, "mode": "bm25", "k": 1}).json()
        (hit,) = answer["hits"]
        assert (hit["document_id"], hit["pages"]) == (name, pages), (sentence, hit)
        stored = chunks[name][hit["chunk_id"]]
        assert (hit["start"], hit["end"]) == (stored["start"], stored["end"])
        assert hit["end"] - hit["start"] == len(hit["text"])
        assert sentence in " ".join(hit["text"].split())  # the sentence across pages, whole


def test_only_a_file_part_is_read_as_a_binary_format(client: TestClient) -> None:
    # A plain form field is text, whatever its id says; a file part is known by its name.
    fields = {"file": (None, "Loan of twelve paintings."), "id": (None, "n.pdf")}
    plain = client.post("/documents", files=fields)
    assert plain.status_code == 201, plain.text
    assert client.get("/documents/n.pdf").json()["source_type"] == "text"
    as_file = upload(client, "n2.pdf", b"Loan of twelve paintings.", "text/plain")
    assert as_file.status_code == 422 and "not a readable PDF" in as_file.json()["detail"]


def test_a_word_upload_keeps_headings_tables_and_links(client: TestClient) -> None:
    created = upload(client, "loans.docx", word_report(), DOCX_TYPE)
    assert created.status_code == 201, created.text
    document = client.get("/documents/loans.docx").json()
    assert document["title"] == "Loans of 1978" and document["n_pages"] == 0
    assert sorted(link["href"] for link in document["links"]) == [LEDGER_URL, REGISTER_URL]
    text = "\n".join(chunk["text"] for chunk in document["chunks"])
    assert "Work: Abaporu; Borrower: Museu de Arte Moderna; Returned: 1979" in text
    assert any("paintings-lent" in chunk["heading_slugs"] for chunk in document["chunks"])


@needs_tesseract
def test_a_scan_upload_stores_and_shows_its_ocr_confidence(client: TestClient) -> None:
    created = upload(client, "carta_oficio_138_11031978.png", png(letter_image()), "image/png")
    assert created.status_code == 201, created.text
    document = client.get("/documents/carta_oficio_138_11031978.png").json()
    assert document["n_pages"] == 1 and document["ocr_confidence"] > 0.8
    assert all(chunk["ocr_confidence"] > 0.8 for chunk in document["chunks"])
    hit = client.post("/search", json={"query": "empréstimo pinturas", "mode": "bm25"}).json()
    assert hit["hits"][0]["pages"] == [1] and hit["hits"][0]["ocr_confidence"] > 0.8


@pytest.mark.parametrize(
    ("name", "data", "content_type", "status", "kind"),
    [
        ("bad.pdf", two_page_pdf()[:500], PDF_TYPE, 422, "unreadable-document"),
        ("locked.pdf", two_page_pdf(encrypt="s3cret"), PDF_TYPE, 422, "unreadable-document"),
        ("locked.docx", word_report(encrypt="s3cret"), DOCX_TYPE, 422, "unreadable-document"),
        ("bad.docx", word_report()[:4000], DOCX_TYPE, 422, "unreadable-document"),
        ("empty.pdf", b"", PDF_TYPE, 400, "invalid-input"),
        ("blank.pdf", pdf_of_pages(None), PDF_TYPE, 400, "invalid-input"),
    ],
)
def test_unreadable_files_are_refused_and_nothing_is_written(
    client: TestClient,
    clean_graph: Graph,
    name: str,
    data: bytes,
    content_type: str,
    status: int,
    kind: str,
) -> None:
    answer = upload(client, name, data, content_type)
    assert answer.status_code == status, answer.text
    problem = answer.json()
    assert problem["type"].endswith(kind) and name in problem["detail"]
    assert document_count(clean_graph) == 0


def test_size_and_page_limits(
    clean_graph: Graph, settings: Settings, fake_embedder: Embedder
) -> None:
    report = two_page_pdf()
    with app_client(settings, fake_embedder, max_file_bytes=len(report) - 1) as client:
        too_large = upload(client, "report.pdf", report, PDF_TYPE)
        assert too_large.status_code == 413, too_large.text
        assert f"{len(report):,} bytes is over the limit" in too_large.json()["detail"]
    with app_client(settings, fake_embedder, max_pages=1) as client:
        too_long = upload(client, "report.pdf", report, PDF_TYPE)
        assert too_long.status_code == 422 and too_long.json()["type"].endswith("too-many-pages")
        assert "2 pages is over the limit of 1 pages" in too_long.json()["detail"]
        # A file within the limits still goes in.
        assert upload(client, "loans.docx", word_report(), DOCX_TYPE).status_code == 201
    assert document_count(clean_graph) == 1


def test_without_tesseract_a_scan_is_503_and_other_files_still_go_in(
    clean_graph: Graph, settings: Settings, fake_embedder: Embedder, tmp_path: Path
) -> None:
    missing = str(tmp_path / "no-tesseract")
    with app_client(settings, fake_embedder, tesseract_command=missing) as client:
        scan = upload(client, "letter.png", png(letter_image()), "image/png")
        assert scan.status_code == 503, scan.text
        assert "tesseract-ocr" in scan.json()["detail"]
        assert upload(client, "report.pdf", two_page_pdf(), PDF_TYPE).status_code == 201
    assert document_count(clean_graph) == 1


def test_the_library_ingests_a_folder_of_files_and_skips_a_corrupt_one(
    runtime: Runtime, clean_graph: Graph, tmp_path: Path
) -> None:
    (tmp_path / "report.pdf").write_bytes(two_page_pdf())
    (tmp_path / "loans.docx").write_bytes(word_report())
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4\n%%EOF")
    stats = Library(runtime).ingest(tmp_path, collection="archive")
    assert stats.written == 2
    assert any(
        "broken.pdf" in warning and "not a readable PDF" in warning for warning in stats.warnings
    )
    records = clean_graph.driver.execute_query(
        "MATCH (d:Document {collection: 'archive'}) RETURN d.id AS id, d.n_pages AS pages "
        "ORDER BY id"
    ).records
    assert [(r["id"], r["pages"]) for r in records] == [
        ("archive/loans.docx", None),
        ("archive/report.pdf", 2),
    ]


def test_the_command_line_refuses_a_corrupt_file_before_writing(
    clean_graph: Graph, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from anchorgraph.cli.main import app
    from anchorgraph.graph.driver import neo4j_auth

    locked = tmp_path / "locked.pdf"
    locked.write_bytes(two_page_pdf(encrypt="s3cret"))
    monkeypatch.setenv("ANCHORGRAPH_NEO4J_URI", settings.bolt_uri)
    monkeypatch.setenv("ANCHORGRAPH_NEO4J_PASSWORD", neo4j_auth(settings)[1])
    result = CliRunner().invoke(app, ["ingest", str(locked)], terminal_width=200)
    assert result.exit_code == 1
    assert "locked.pdf: the PDF is encrypted" in result.output
    assert document_count(clean_graph) == 0
