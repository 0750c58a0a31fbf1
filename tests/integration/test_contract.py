"""The published contract, checked the way a user checks it: schemathesis (``--checks all``)
against the real API, served over HTTP on loopback, on the real server, model and sample corpus.

It runs the same command docs/reliability.md gives for ``make run``, bounded: at most
``MAX_EXAMPLES`` cases per operation in each phase (examples, coverage, fuzzing, stateful), a
fixed seed, no example database, one worker. Every check must pass: a server error, a status or
content type the OpenAPI document does not list, a body that breaks its schema, a request valid
by the schema that is refused, or one invalid by it that is accepted. What the API refuses that a
random run rarely sends (a document holding a NUL) is checked by hand against the schema too.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from jsonschema import Draft202012Validator
from sample_graph import SampleGraphs
from uvicorn_thread import served

from anchorgraph.app import create_app
from anchorgraph.embedding import Embedder
from anchorgraph.graph.gateway import Graph
from anchorgraph.graph.queries import Query, cypher
from anchorgraph.ingestion import sample_gazetteer
from anchorgraph.settings import Settings

pytestmark = [pytest.mark.integration, pytest.mark.slow]

MAX_EXAMPLES = 25
SEED = 1
# The project's judgement of the API, read whoever runs it (a 412 is an answer, as a 409 is).
CONFIG = Path(__file__).resolve().parents[2] / "schemathesis.toml"
# The whole run's bound; it takes about 1.5 minutes here.
TIMEOUT_S = 420


def schemathesis_run(base_url: str, workdir: Path) -> subprocess.CompletedProcess[str]:
    command = [
        sys.executable,
        "-m",
        "schemathesis.cli",
        "--config-file",
        str(CONFIG),
        "run",
        f"{base_url}/openapi.json",
        "--checks",
        "all",
        "--max-examples",
        str(MAX_EXAMPLES),
        "--seed",
        str(SEED),
        "--generation-database",
        "none",
        "--workers",
        "1",
        "--request-timeout",
        "30",
        "--no-color",
    ]
    # Its own folder: nothing is left behind, and no configuration is read but the project's.
    return subprocess.run(
        command, cwd=workdir, capture_output=True, text=True, timeout=TIMEOUT_S, check=False
    )


@pytest.fixture(scope="module")
def api(
    sample_graph: SampleGraphs,
    settings: Settings,
    embedder: Embedder,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[str, Graph]]:
    """The API served over the sample graph; its base URL, and the graph."""
    # No spaCy pipeline: the documents schemathesis writes are ingested on gazetteer and
    # patterns alone, which keeps the run short; the contract is the same. The files its ingest
    # jobs upload wait in a data folder of the test's own.
    update = {
        "spacy_model": "",
        "gazetteer": sample_gazetteer(),
        "data_dir": tmp_path_factory.mktemp("api-data"),
    }
    api_settings = settings.model_copy(update=update)
    # The sample in its own collection, as `make run` loads it, with the API's extractor.
    graph = sample_graph(
        embedder, gazetteer=True, casing_names=api_settings.casing_names, collections=["sample"]
    )
    app = create_app(api_settings, embedder_factory=lambda _: embedder)
    with served(app, access_log=False) as base_url:
        yield base_url, graph


def test_the_schema_says_what_a_document_may_not_hold(api: tuple[str, Graph]) -> None:
    """A text holding a NUL is refused (400, nothing written), and the published schema says
    so for the JSON body and the upload alike: a request it calls well formed is one the API
    takes, which schemathesis's positive phases check."""
    base_url, _ = api
    document = httpx.get(f"{base_url}/openapi.json").json()
    content = document["paths"]["/documents"]["post"]["requestBody"]["content"]

    def schema(media_type: str) -> Draft202012Validator:
        body = content[media_type]["schema"]
        return Draft202012Validator({**body, "components": document["components"]})

    refused = {"id": "nul.md", "text": "before\x00after"}
    answer = httpx.post(f"{base_url}/documents", json=refused)
    assert answer.status_code == 400 and "NUL" in answer.json()["detail"]
    assert not schema("application/json").is_valid(refused)
    assert schema("application/json").is_valid({**refused, "text": "before after"})

    part = {"file": ("nul.md", b"before\x00after", "text/markdown")}
    answer = httpx.post(f"{base_url}/documents", files=part, data={"id": "nul.md"})
    assert answer.status_code == 400 and "NUL" in answer.json()["detail"]
    upload = schema("multipart/form-data")
    assert not upload.is_valid({"id": "nul.md", "file": "before\x00after"})
    assert upload.is_valid({"id": "nul.md", "file": "before after"})
    assert httpx.get(f"{base_url}/documents/nul.md").status_code == 404


def test_schemathesis_finds_nothing(api: tuple[str, Graph], tmp_path: Path) -> None:
    base_url, graph = api
    started = time.monotonic()
    completed = schemathesis_run(base_url, tmp_path)
    elapsed = time.monotonic() - started
    graph.driver.execute_query(cypher(Query.DELETE_ALL))  # what the run wrote
    summary = completed.stdout[completed.stdout.rfind("SUMMARY") :]
    print(f"schemathesis: exit {completed.returncode} in {elapsed:.0f} s\n{summary}")  # -s
    assert completed.returncode == 0, completed.stdout[-20_000:] + completed.stderr[-5_000:]
    assert "No issues found" in completed.stdout
    # Every operation was tested, in every phase.
    selected = re.search(r"Selected: (\d+)/(\d+)", summary)
    tested = re.search(r"Tested: (\d+)", summary)
    assert selected and tested and selected[1] == selected[2] == tested[1], summary
    for phase in ("Examples", "Coverage", "Fuzzing", "Stateful"):
        assert f"✅ {phase}" in summary, summary
