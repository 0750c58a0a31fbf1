"""The entity bridges the graph keeps (``(:Chunk)-[:BRIDGE]->(:Chunk)``, graph/bridges.py) are,
after every kind of write, exactly those its mentions and vectors give, computed here in Python
from the chunks' mentions and embeddings: after ingesting, replacing and deleting documents, as
an entity's mentions cross the bound and come back under it, after re-embedding the collection,
and after an upgrade of a graph an earlier version wrote without them."""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from anchorgraph.embedding import HashEmbedder, Vectors
from anchorgraph.graph.bounds import BRIDGED_MENTIONS
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.schema import apply_schema
from anchorgraph.ingestion import read_all
from anchorgraph.loaders.entities import EntityExtractor, GazetteerEntry
from anchorgraph.loaders.graph_writer import delete_documents
from anchorgraph.loaders.ingest import Ingestor
from anchorgraph.loaders.reembed import reembed_collection
from anchorgraph.settings import Settings

pytestmark = pytest.mark.integration

COLLECTION = "kept"
GAZETTEER = [
    GazetteerEntry(name="Walter Zanini", type="PERSON"),
    GazetteerEntry(name="Ada Lovelace", type="PERSON"),
    GazetteerEntry(name="Lina Bo Bardi", type="PERSON"),
]

# (entity id, chunk id, document id, chunk embedding) per mention, and a bridge as
# (from chunk, to chunk, entity id, mentions) with its validation.
Bridges = dict[tuple[str, str, str, int], float]


class SaltedEmbedder(HashEmbedder):
    """Another deterministic model: the same texts, other vectors."""

    def embed(self, texts: Sequence[str]) -> Vectors:
        return super().embed([f"salted: {text}" for text in texts])


def kept(graph: Graph) -> Bridges:
    records = graph.driver.execute_query(
        "MATCH (s:Chunk)-[b:BRIDGE]->(t:Chunk) "
        "RETURN s.id AS s, t.id AS t, b.entity_id AS entity, b.mentions AS mentions, "
        "b.validation AS validation"
    ).records
    found = {(r["s"], r["t"], r["entity"], r["mentions"]): r["validation"] for r in records}
    assert len(found) == len(records)  # one bridge per pair of chunks and entity
    return found


def given(graph: Graph) -> Bridges:
    """The bridges the mentions give: for each entity 2 to BRIDGED_MENTIONS chunks mention,
    every ordered pair of them in two documents, its validation their embeddings' cosine
    (2·s − 1 of Neo4j's vector.similarity.cosine s, which is (1 + cos)/2)."""
    records = graph.driver.execute_query(
        "MATCH (d:Document)-[:HAS_CHUNK]->(c:Chunk)-[:MENTIONS]->(e:Entity) "
        "RETURN e.id AS entity, c.id AS chunk, d.id AS document, c.embedding AS embedding"
    ).records
    chunks = defaultdict(list)
    for r in records:
        chunks[r["entity"]].append((r["chunk"], r["document"], np.asarray(r["embedding"])))
    bridges: Bridges = {}
    for entity, mentioned in chunks.items():
        if not 2 <= len(mentioned) <= BRIDGED_MENTIONS:
            continue
        for (s, sd, sv), (t, td, tv) in itertools.permutations(mentioned, 2):
            if sd != td:
                cosine = float(sv @ tv / (np.linalg.norm(sv) * np.linalg.norm(tv)))
                bridges[(s, t, entity, len(mentioned))] = cosine
    return bridges


def assert_current(graph: Graph) -> Bridges:
    found, expected = kept(graph), given(graph)
    assert found.keys() == expected.keys()
    for key, validation in expected.items():
        assert found[key] == pytest.approx(validation, abs=1e-5)
    return found


def entities_of(bridges: Bridges) -> set[str]:
    return {entity.split("/")[-1] for _, _, entity, _ in bridges}


def write(folder: Path, pages: dict[str, str]) -> None:
    for name, text in pages.items():
        (folder / name).write_text(f"{text}\n")


def test_each_write_keeps_the_bridges_its_mentions_give(
    clean_graph: Graph, settings: Settings, fake_embedder: HashEmbedder, tmp_path: Path
) -> None:
    ingestor = Ingestor(clean_graph, fake_embedder, EntityExtractor(None, GAZETTEER))

    def ingest(folder: Path) -> None:
        documents, _ = read_all(settings, folder)
        ingestor.ingest(documents, collection=COLLECTION)

    folder = tmp_path / "pages"
    folder.mkdir()
    write(
        folder,
        {
            "zanini.md": "Walter Zanini directed the museum; Lina Bo Bardi built its home.",
            "biennial.md": "The biennial of 1981 was curated by Walter Zanini.",
            "masp.md": "Lina Bo Bardi drew the glass easels of the picture gallery.",
            "engine.md": "Ada Lovelace wrote of the analytical engine.",
        },
    )
    ingest(folder)
    assert entities_of(assert_current(clean_graph)) == {"walter zanini", "lina bo bardi"}

    # A document rewritten from the same file without the name loses its bridges, and so does
    # the one it shared them with.
    write(folder, {"biennial.md": "The biennial of 1981 gave a floor to video art."})
    ingest(folder)
    assert entities_of(assert_current(clean_graph)) == {"lina bo bardi"}

    # Deleted, its chunks' bridges go, and the mentions left count one fewer.
    (folder / "masp.md").unlink()
    delete_documents(clean_graph, COLLECTION, ["masp.md"])
    assert assert_current(clean_graph) == {}

    # An entity more chunks mention than the bound keeps no bridge; brought back under it, it
    # bridges again, every bridge with its new mention count.
    crowd = {f"note-{n:02}.md": f"Note {n} on Ada Lovelace." for n in range(BRIDGED_MENTIONS)}
    write(folder, crowd)
    ingest(folder)
    assert "ada lovelace" not in entities_of(assert_current(clean_graph))
    (folder / "note-00.md").unlink()
    delete_documents(clean_graph, COLLECTION, ["note-00.md"])
    bridges = assert_current(clean_graph)
    assert {mentions for *_, mentions in bridges} == {BRIDGED_MENTIONS}

    # Re-embedded with another model, every validation follows the new vectors.
    before = bridges
    reembed_collection(clean_graph, SaltedEmbedder(name="salted-hash"), COLLECTION)
    after = assert_current(clean_graph)
    assert after.keys() == before.keys()
    assert after != before


def test_an_upgrade_builds_the_bridges_of_a_graph_written_without_them(
    clean_graph: Graph, settings: Settings, fake_embedder: HashEmbedder, tmp_path: Path
) -> None:
    write(
        tmp_path,
        {
            "zanini.md": "Walter Zanini directed the museum.",
            "biennial.md": "The biennial of 1981 was curated by Walter Zanini.",
        },
    )
    documents, _ = read_all(settings, tmp_path)
    Ingestor(clean_graph, fake_embedder, EntityExtractor(None, GAZETTEER)).ingest(
        documents, collection=COLLECTION
    )
    built = assert_current(clean_graph)
    assert len(built) == 2  # one each way
    # As an earlier version left it: no bridges, no entity marked, the collection unmarked.
    clean_graph.driver.execute_query(
        "MATCH ()-[b:BRIDGE]->() DELETE b "
        "WITH count(*) AS gone MATCH (e:Entity) REMOVE e.bridged "
        "WITH count(*) AS unmarked MATCH (c:Collection) REMOVE c.bridge_bound"
    )
    assert kept(clean_graph) == {}

    apply_schema(clean_graph, fake_embedder.dimension)
    assert assert_current(clean_graph) == built
    bound = clean_graph.driver.execute_query(
        "MATCH (c:Collection {name: $name}) RETURN c.bridge_bound AS bound", name=COLLECTION
    ).records[0]["bound"]
    assert bound == BRIDGED_MENTIONS
