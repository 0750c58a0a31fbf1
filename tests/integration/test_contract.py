"""The published contract, checked the way a user checks it: schemathesis (``--checks all``)
against the real API, served over HTTP on loopback, on the real server, model and sample corpus.

It runs the same command docs/reliability.md gives for ``make run``, bounded: at most
``MAX_EXAMPLES`` cases per operation in each phase (examples, coverage, fuzzing, stateful), a
fixed seed, no example database, one worker. Every check must pass: a server error, a status or
content type the OpenAPI document does not list, a body that breaks its schema, a request valid
by the schema that is refused, or one invalid by it that is accepted.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sample_graph import SampleGraphs
from uvicorn_thread import served

from anchorgraph.app import create_app
from anchorgraph.embedding import Embedder
from anchorgraph.graph.queries import Query, cypher
from anchorgraph.ingestion import sample_gazetteer
from anchorgraph.settings import Settings

pytestmark = [pytest.mark.integration, pytest.mark.slow]

MAX_EXAMPLES = 25
SEED = 1
# The whole run's bound; it takes about 1.5 minutes here.
TIMEOUT_S = 420


def schemathesis_run(base_url: str, workdir: Path) -> subprocess.CompletedProcess[str]:
    command = [
        sys.executable,
        "-m",
        "schemathesis.cli",
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
    # Its own folder: no schemathesis.toml of a developer's is read, and nothing is left behind.
    return subprocess.run(
        command, cwd=workdir, capture_output=True, text=True, timeout=TIMEOUT_S, check=False
    )


def test_schemathesis_finds_nothing(
    sample_graph: SampleGraphs, settings: Settings, embedder: Embedder, tmp_path: Path
) -> None:
    # No spaCy pipeline: the documents schemathesis writes are ingested on gazetteer and
    # patterns alone, which keeps the run short; the contract is the same.
    api_settings = settings.model_copy(update={"spacy_model": "", "gazetteer": sample_gazetteer()})
    # The sample in its own collection, as `make run` loads it, with the API's extractor.
    graph = sample_graph(
        embedder, gazetteer=True, casing_names=api_settings.casing_names, collections=["sample"]
    )
    app = create_app(api_settings, embedder_factory=lambda _: embedder)
    with served(app, access_log=False) as base_url:
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
