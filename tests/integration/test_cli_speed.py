"""Each `anchorgraph` command loads only what it uses: the real program, run in a fresh process
against the test Neo4j, with CPython listing every module it imports (PYTHONPROFILEIMPORTTIME).

Commands that embed nothing load no model; `search` embeds its query with the model's checked
ONNX export and the tokenizer alone, giving the library's hits, and so do the commands that embed
short texts (`audit blindness|coverage`, `graph link-titles`); `search --api` asks a running
API and opens neither Neo4j nor a model. How fast they are is measured by
benchmarks/cli_timing.py, not here."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx
import numpy as np
import pytest
from sample_graph import SampleGraphs
from uvicorn_thread import served

from anchorgraph.app import create_app
from anchorgraph.embedding import (
    Embedder,
    HashEmbedder,
    QueryEmbedder,
    declared_dimension,
    load_query_embedder,
)
from anchorgraph.graph.driver import neo4j_auth
from anchorgraph.graph.gateway import Graph
from anchorgraph.library import open_search
from anchorgraph.loaders.entities import EntityExtractor
from anchorgraph.loaders.ingest import Ingestor
from anchorgraph.loaders.model import SourceDocument
from anchorgraph.loaders.read import read_bytes
from anchorgraph.onnx_encoder import OnnxUnavailable
from anchorgraph.runtime import embedding_dimension, query_embedder
from anchorgraph.settings import Settings

pytestmark = pytest.mark.integration

ANCHORGRAPH = Path(sys.executable).parent / "anchorgraph"
MODEL = {"torch", "sentence_transformers", "transformers", "spacy"}
COLLECTION = "quick"
QUESTION = "Who asked the Fundação Aurora to give its collection to a new museum?"


@dataclass(frozen=True)
class Run:
    returncode: int
    stdout: str
    messages: str  # stderr without CPython's import listing
    imported: frozenset[str]  # the top-level packages the process imported


def anchorgraph(args: Sequence[str], env: dict[str, str], cwd: Path) -> Run:
    """``anchorgraph ARGS`` as a user runs it, and what it imported."""
    done = subprocess.run(
        [str(ANCHORGRAPH), *args],
        capture_output=True,
        text=True,
        timeout=600,
        env={**env, "PYTHONPROFILEIMPORTTIME": "1", "COLUMNS": "200"},
        cwd=cwd,
        check=False,
    )
    listing = [line for line in done.stderr.splitlines() if line.startswith("import time:")]
    messages = [line for line in done.stderr.splitlines() if not line.startswith("import time:")]
    imported = frozenset(
        line.rsplit("|", 1)[1].strip().split(".")[0] for line in listing if "|" in line
    )
    assert "anchorgraph" in imported, done.stderr[-2000:]  # the listing is there
    return Run(done.returncode, done.stdout, "\n".join(messages), imported)


@pytest.fixture
def cli_env(settings: Settings, tmp_path: Path) -> dict[str, str]:
    """The test server for the commands; outputs into a data folder of the test's own."""
    return {
        **os.environ,
        "ANCHORGRAPH_NEO4J_URI": settings.bolt_uri,
        "ANCHORGRAPH_NEO4J_PASSWORD": neo4j_auth(settings)[1],
        "ANCHORGRAPH_CACHE_DIR": str(settings.cache_dir),
        "ANCHORGRAPH_DATA_DIR": str(tmp_path / "data"),
    }


def documents() -> list[SourceDocument]:
    dense = "In 1974 the museum opened 3 galleries with 120 works. "
    sparse = "The museum is a place that many people think about in many ways. "
    return [
        read_bytes(
            f"# Note {i}\n\n{(dense if i % 2 else sparse) * (1 + i % 5)}\n".encode(),
            doc_id=f"note-{i}.md",
            fmt="markdown",
            max_bytes=10**6,
        )
        for i in range(12)
    ]


@pytest.fixture
def stand_in(settings: Settings) -> HashEmbedder:
    """The fake embedder standing in for the configured model: a collection it writes records
    that model, so the commands that embed a query with the model read the collection as theirs
    (these tests are of what they import, not of what they find)."""
    return HashEmbedder(dimension=384, name=settings.embedding_model)


@pytest.fixture
def quick(clean_graph: Graph, stand_in: HashEmbedder) -> Graph:
    """A small collection written with the stand-in (FD* bins fitted)."""
    ingestor = Ingestor(clean_graph, stand_in, EntityExtractor(None), chunk_tokens=40)
    ingestor.ingest(documents(), collection=COLLECTION)
    return clean_graph


def test_commands_that_embed_nothing_load_no_model(
    quick: Graph, cli_env: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "plots"
    expected = {
        ("db", "init"): "vectors of 384 dimensions",
        ("fd", "stats", "-c", COLLECTION): "medium",
        ("collections", "list"): COLLECTION,
        ("audit", "length", "-c", COLLECTION, "--out", str(out)): "Length confound",
        ("audit", "tiers", "-c", COLLECTION, "--out", str(out)): "Tier variance",
    }
    for args, says in expected.items():
        run = anchorgraph(args, cli_env, tmp_path)
        assert run.returncode == 0, (args, run.stdout, run.messages)
        assert says in run.stdout, (args, run.stdout)
        assert run.imported & (MODEL | {"onnxruntime"}) == set(), args
    assert (out / "length.png").exists() and (out / "tiers.png").exists()


def test_an_ingest_or_sync_that_finds_nothing_new_loads_no_model(
    clean_graph: Graph, embedder: Embedder, cli_env: dict[str, str], tmp_path: Path
) -> None:
    """An ingest of new files embeds them through the model's recorded ONNX export (the
    `embedder` fixture loaded the model, which recorded it), without sentence-transformers
    (spaCy's thinc still imports torch); one that finds nothing new, a sync of unchanged files
    and a dry run load no model at all."""
    folder = tmp_path / "notes"
    folder.mkdir()
    for name in ("a.md", "b.md"):
        (folder / name).write_text(f"# {name}\n\nThe museum opened 3 galleries in 1974.\n")
    first = anchorgraph(["ingest", str(folder), "-c", "notes"], cli_env, tmp_path)
    assert first.returncode == 0 and "2 written" in first.stdout, first.messages
    assert {"onnxruntime", "spacy"} <= first.imported
    assert first.imported & {"sentence_transformers", "transformers"} == set()

    again = anchorgraph(["ingest", str(folder), "-c", "notes"], cli_env, tmp_path)
    assert again.returncode == 0 and "0 written" in again.stdout, again.messages
    assert again.imported & MODEL == set()
    synced = anchorgraph(["sync", str(folder), "-c", "notes"], cli_env, tmp_path)
    assert synced.returncode == 0 and "2 unchanged" in synced.stdout, synced.messages
    (folder / "a.md").write_text("# a.md\n\nThe museum closed in 1999.\n")
    dry = anchorgraph(["sync", str(folder), "-c", "notes", "--dry-run"], cli_env, tmp_path)
    assert dry.returncode == 0 and "Would add 0, update 1" in dry.stdout, dry.messages
    assert synced.imported & MODEL == set() and dry.imported & MODEL == set()


def test_commands_that_embed_short_texts_use_the_query_encoder(
    quick: Graph, embedder: Embedder, settings: Settings, cli_env: dict[str, str], tmp_path: Path
) -> None:
    """The audits that embed queries or claims, and the title links' contexts, are embedded as
    the service embeds a query (the `embedder` fixture loaded the model, which recorded its
    export): ONNX Runtime, no torch."""
    claims = tmp_path / "claims.jsonl"
    claims.write_text(
        "\n".join(
            json.dumps({"_id": str(i), "text": f"The museum opened {i} galleries."})
            for i in range(3)
        )
    )
    out = tmp_path / "plots"
    expected = {
        ("audit", "blindness", "museum galleries", "-c", COLLECTION, "--out", str(out)): "cosine",
        ("audit", "coverage", str(claims), "-c", COLLECTION, "--out", str(out)): "Coverage: cosine",
        ("graph", "link-titles", "-c", COLLECTION): "title links:",
    }
    for args, says in expected.items():
        run = anchorgraph(args, cli_env, tmp_path)
        assert run.returncode == 0, (args, run.stdout, run.messages)
        assert says in run.stdout, (args, run.stdout)
        assert "onnxruntime" in run.imported, args
        assert run.imported & MODEL == set(), args
        assert "note:" not in run.messages, args  # no full model loaded
    assert (out / "blindness.png").exists() and (out / "coverage.png").exists()


def test_the_dimension_db_init_reads_is_the_models(embedder: Embedder, settings: Settings) -> None:
    assert declared_dimension(settings.embedding_model) == embedder.dimension == 384
    assert embedding_dimension(settings) == embedder.dimension


def test_the_query_embedder_gives_the_services_vectors(
    embedder: Embedder, settings: Settings
) -> None:
    """Built from what the full model recorded (the `embedder` fixture loaded it with the ONNX
    cache), without torch: the same vectors as the service's for a query, within float32
    rounding of sentence-transformers' own for any text, the same token counts."""
    encoder = load_query_embedder(settings.embedding_model, settings.cache_dir)
    assert isinstance(encoder, QueryEmbedder) and encoder.runtime == "onnx"
    assert encoder.dimension == embedder.dimension
    texts = [QUESTION, "Ünïcödé façade — naïve café, 東京", "long passage " * 300]
    for text in texts:  # one text at a time: the service's query path (the same export)
        np.testing.assert_allclose(encoder.embed([text]), embedder.embed([text]), atol=1e-6)
        assert encoder.count_tokens(text) == embedder.count_tokens(text)
    batch = embedder.embed(texts)  # a batch: sentence-transformers through torch
    cosines = np.sum(encoder.embed(texts) * batch, axis=1)
    assert cosines.min() > 0.9999


def test_without_a_recorded_export_the_full_model_loads_once_and_records_it(
    embedder: Embedder, settings: Settings, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    (cache / "onnx").mkdir(parents=True)
    for export in (settings.cache_dir / "onnx").glob("*.onnx"):  # spare the test an export
        shutil.copy(export, cache / "onnx")
    fresh = settings.model_copy(update={"cache_dir": cache})
    notices: list[str] = []

    first = query_embedder(fresh, notice=notices.append)
    assert not isinstance(first, QueryEmbedder)  # the full model, which recorded the export
    assert len(notices) == 1 and "no checked ONNX export" in notices[0]
    again = query_embedder(fresh, notice=notices.append)
    assert isinstance(again, QueryEmbedder) and len(notices) == 1
    np.testing.assert_allclose(again.embed([QUESTION]), first.embed([QUESTION]), atol=1e-6)

    # A model changed in place (another fingerprint) is not embedded with the old export.
    (manifest,) = (cache / "onnx" / "queries").glob("*[0-9a-f].json")
    recorded = json.loads(manifest.read_text())
    manifest.write_text(json.dumps(recorded | {"fingerprint": "another model"}))
    with pytest.raises(OnnxUnavailable, match="changed"):
        load_query_embedder(settings.embedding_model, cache)


def test_search_embeds_with_the_recorded_export_and_finds_what_the_library_finds(
    sample_graph: SampleGraphs,
    embedder: Embedder,
    settings: Settings,
    cli_env: dict[str, str],
    tmp_path: Path,
) -> None:
    sample_graph(embedder, collections=["sample"])
    load_query_embedder(settings.embedding_model, settings.cache_dir)  # recorded: no fallback

    for mode in ("hybrid", "dense"):
        run = anchorgraph(
            ["search", QUESTION, "-c", "sample", "--mode", mode, "-k", "5", "--json"],
            cli_env,
            tmp_path,
        )
        assert run.returncode == 0, run.messages
        assert "onnxruntime" in run.imported
        assert run.imported & MODEL == set()
        assert "note:" not in run.messages  # no full model loaded
        found = json.loads(run.stdout)["hits"]
        with open_search(settings, embedder_factory=lambda _: embedder) as searcher:
            expected = searcher(QUESTION, collections=["sample"], mode=mode, k=5).hits
        assert [(hit["collection"], hit["chunk_id"]) for hit in found] == [
            (hit.collection, hit.chunk_id) for hit in expected
        ]
        assert [hit["score"] for hit in found] == pytest.approx(
            [hit.score for hit in expected], abs=1e-6
        )


def test_search_through_the_api_opens_neither_neo4j_nor_a_model(
    quick: Graph,
    settings: Settings,
    stand_in: HashEmbedder,
    cli_env: dict[str, str],
    tmp_path: Path,
) -> None:
    # Nothing answers at this URI: a search that opened Neo4j would fail.
    env = cli_env | {"ANCHORGRAPH_NEO4J_URI": "bolt://127.0.0.1:1"}
    app = create_app(settings, embedder_factory=lambda _: stand_in)
    with served(app) as url:
        run = anchorgraph(
            ["search", "museum galleries", "-c", COLLECTION, "-k", "3", "--json", "--api", url],
            env,
            tmp_path,
        )
        direct = httpx.post(
            f"{url}/search",
            json={"query": "museum galleries", "collections": [COLLECTION], "k": 3},
            timeout=60,
        ).json()
        table = anchorgraph(
            ["search", "museum galleries", "-c", COLLECTION, "--api", url], env, tmp_path
        )
        missing = anchorgraph(["search", "museum", "-c", "nowhere", "--api", url], env, tmp_path)
        # Without a URL, --api asks the configured API (here on a port of the test's own).
        configured = anchorgraph(
            ["search", "museum galleries", "-c", COLLECTION, "-k", "3", "--json", "--api"],
            env | {"ANCHORGRAPH_API_PORT": url.rsplit(":", 1)[1]},
            tmp_path,
        )
    assert run.returncode == 0, run.messages
    assert run.imported & (MODEL | {"neo4j", "onnxruntime"}) == set()
    found = json.loads(run.stdout)
    assert found["collections"] == [COLLECTION]
    assert [hit["chunk_id"] for hit in found["hits"]] == [hit["chunk_id"] for hit in direct["hits"]]
    assert len(found["hits"]) == 3
    assert table.returncode == 0 and "Note" in table.stdout and "round trips" in table.stdout
    assert missing.returncode == 1 and "404" in missing.messages and "nowhere" in missing.messages
    assert configured.returncode == 0, configured.messages
    assert [hit["chunk_id"] for hit in json.loads(configured.stdout)["hits"]] == [
        hit["chunk_id"] for hit in direct["hits"]
    ]
