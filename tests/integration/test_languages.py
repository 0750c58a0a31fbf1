"""Languages: each document's language is detected (or declared), its chunks and document carry
its language's labels, and a query in that language is analysed, and matched, by that
language's Lucene analyzer (service/text/language.py)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from anchorgraph.graph.gateway import Graph
from anchorgraph.library import Library
from anchorgraph.runtime import Runtime

pytestmark = pytest.mark.integration

# Written for this test. The stored word forms differ from the queried ones: plurals in -ões and
# -ções, which Portuguese stemming joins to their singular and English stemming does not.
CARTA = """# Carta sobre a doação

São Paulo, 11 de março de 1978.

Senhor Secretário, a diretora do museu, Helena Vasconcelos, confirma a doação de doze gravuras
e pede a restauração da moldura da gravura maior. A coleção recebe a doação no dia 20 de março.
"""
LETTER = """# Letter about the donation

The director of the museum confirms the donation of twelve prints and asks for the frame of the
largest print to be restored. The collection receives the donation on 20 March.
"""
LETTERA = """# Lettera sulla donazione

Milano, 15 settembre 1975. La galleria conferma la donazione di dodici stampe al museo e chiede
il restauro della cornice della stampa più grande.
"""


@pytest.fixture
def library(runtime: Runtime, clean_graph: Graph) -> Library:
    library = Library(runtime)
    library.add_text("carta.md", CARTA, collection="arquivo")
    library.add_text("letter.md", LETTER, collection="arquivo")
    library.add_text("lettera.md", LETTERA, collection="arquivo")
    library.add_text("english-only.md", LETTER, collection="plain")
    return library


def run(graph: Graph, statement: str, **parameters: Any) -> list[dict[str, Any]]:
    return [r.data() for r in graph.driver.execute_query(statement, parameters).records]


def bm25(library: Library, query: str, collection: str = "arquivo") -> list[str]:
    result = library(query, mode="bm25", collections=[collection], level="document")
    return [hit.document_id for hit in result.hits]


def test_each_document_gets_its_language_and_its_language_s_labels(library: Library) -> None:
    rows = run(
        library.graph,
        "MATCH (d:Document) OPTIONAL MATCH (d)-[:HAS_CHUNK]->(c:Chunk) "
        "RETURN d.id AS id, d.language AS language, "
        "[l IN labels(d) WHERE l ENDS WITH 'Document' AND l <> 'Document'] AS labels, "
        "collect(DISTINCT [l IN labels(c) WHERE l ENDS WITH 'Chunk' AND l <> 'Chunk']) AS chunk",
    )
    found = {row["id"]: (row["language"], row["labels"], row["chunk"]) for row in rows}
    assert found == {
        "arquivo/carta.md": ("pt", ["PortugueseDocument"], [["PortugueseChunk"]]),
        "arquivo/letter.md": ("en", [], [[]]),
        "arquivo/lettera.md": ("it", ["ItalianDocument"], [["ItalianChunk"]]),
        "plain/english-only.md": ("en", [], [[]]),
    }
    collections = run(
        library.graph,
        "MATCH (c:Collection) RETURN c.name AS n, "
        "[k IN keys(c) WHERE k STARTS WITH 'documents_' | [k, c[k]]] AS l",
    )
    assert {row["n"]: sorted(row["l"]) for row in collections} == {
        "arquivo": [["documents_en", 1], ["documents_it", 1], ["documents_pt", 1]],
        "plain": [["documents_en", 1]],
    }


def test_a_query_is_matched_by_its_own_language_s_analyzer(library: Library) -> None:
    # Portuguese stemming joins "doações" to "doação" and drops "de", "do", "a"; English
    # stemming does not, so the same words searched as English find nothing in Portuguese.
    assert bm25(library, "doações") == ["carta.md"]
    assert bm25(library, "de doações") == ["carta.md"]
    graph = library.graph
    english = run(graph, "CALL db.index.fulltext.queryNodes('document_text', 'doações') "
                  "YIELD node RETURN node.id AS id")  # fmt: skip
    assert english == []
    # An English query reads the English index, which holds every document.
    assert bm25(library, "donations of prints")[0] == "letter.md"
    # Italian: "stampe" and "donazioni" reach the Italian letter only.
    assert bm25(library, "donazioni di stampe") == ["lettera.md"]


def test_a_collection_in_english_only_never_detects(library: Library) -> None:
    # A Portuguese query in a collection without Portuguese documents is read as English: the
    # English index, where it finds nothing of the Portuguese letter's stems.
    assert bm25(library, "doações", collection="plain") == []
    assert bm25(library, "donation prints", collection="plain") == ["english-only.md"]


def test_a_document_written_again_in_another_language_loses_its_old_labels(
    library: Library,
) -> None:
    # Written again on purpose (replace): the same id, declared in another language.
    stats = library.add_text("carta.md", CARTA, collection="arquivo", language="it", replace=True)
    assert stats.written == 1  # the declaration is part of what the graph stores
    (row,) = run(
        library.graph,
        "MATCH (d:Document {id: 'arquivo/carta.md'})-[:HAS_CHUNK]->(c) "
        "RETURN d.language AS language, labels(d) AS document, collect(labels(c)) AS chunks",
    )
    assert row["language"] == "it"
    assert "ItalianDocument" in row["document"] and "PortugueseDocument" not in row["document"]
    assert all("ItalianChunk" in c and "PortugueseChunk" not in c for c in row["chunks"])
    (counts,) = run(library.graph, "MATCH (c:Collection {name: 'arquivo'}) "
                    "RETURN c.documents_pt AS pt, c.documents_it AS it")  # fmt: skip
    assert (counts["pt"], counts["it"]) == (0, 2)  # the letter moved from one to the other
    again = library.add_text("carta.md", CARTA, collection="arquivo", language="it")
    assert again.unchanged == 1
    library.delete(["carta.md"], collection="arquivo")
    (counts,) = run(library.graph, "MATCH (c:Collection {name: 'arquivo'}) "
                    "RETURN c.documents_pt AS pt, c.documents_it AS it")  # fmt: skip
    assert (counts["pt"], counts["it"]) == (0, 1)


def test_a_language_declared_over_rest_is_kept_and_a_wrong_one_refused(
    client: TestClient,
) -> None:
    note = {"id": "nota.md", "text": "# Nota\n\nAG-2048 12,5 %", "format": "markdown",
            "collection": "arquivo", "language": "pt"}  # fmt: skip
    assert client.post("/documents", json=note).status_code == 201
    wrong = client.post("/documents", json={**note, "id": "outra.md", "language": "xx"})
    assert wrong.status_code == 422 and "language" in wrong.text
    upload = client.post(
        "/documents",
        files={"file": ("nota.txt", b"Una nota breve.", "text/plain")},
        data={"collection": "arquivo", "language": "it"},
    )
    assert upload.status_code == 201, upload.text
    for id_, language in (("nota.md", "pt"), ("nota.txt", "it")):
        stored = client.get(f"/documents/{id_}", params={"collection": "arquivo"}).json()
        assert stored["language"] == language


def test_entities_are_found_with_or_without_their_accents(library: Library) -> None:
    """A query typed without accents names the entities a document writes with them, and the
    other way round (service/text/identifiers.py, entity_keys)."""
    library.add_text(
        "visita.md",
        "# Visit\n\nJosé Saramago wrote to the museum about the "
        "exhibition. Later, José Saramago came back.",
        collection="nomes",
    )
    library.add_text("cartas.md", "# Letters\n\nLetters from Joao Cabral reached the museum in "
                     "1978. Later, Joao Cabral wrote again.", collection="nomes")  # fmt: skip
    stored = run(library.graph, "MATCH (e:Entity {collection: 'nomes'}) RETURN e.id AS id")
    assert {"nomes/josé saramago", "nomes/joao cabral"} <= {row["id"] for row in stored}

    def exact(query: str) -> set[str]:
        result = library(query, collections=["nomes"])
        return {entity.id for entity in result.entities if entity.how == "exact"}

    assert (
        exact("jose saramago")
        == exact("José Saramago")
        == exact("JOSE SARAMAGO")
        == {"josé saramago"}
    )
    assert exact("cartas de João Cabral") == exact("cartas de Joao Cabral") == {"joao cabral"}


def test_a_language_the_front_matter_declares_but_anchorgraph_cannot_read_is_said(
    library: Library,
) -> None:
    declared = "---\nlanguage: xx\n---\n" + CARTA
    stats = library.add_text("declared.md", declared, collection="declared")
    (warning,) = stats.warnings
    assert warning.startswith("declared.md: 'xx' is not a language anchorgraph analyses")
    assert warning.endswith("; read as pt")  # detected, as if it declared none
    understood = library.add_text("understood.md", "---\nlanguage: it\n---\n" + CARTA,
                                  collection="declared")  # fmt: skip
    assert understood.written == 1 and not understood.warnings
