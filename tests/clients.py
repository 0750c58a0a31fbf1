"""Clients of the REST app for the integration tests."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi.testclient import TestClient

from anchorgraph.app import create_app
from anchorgraph.embedding import Embedder
from anchorgraph.settings import Settings


def api_client(settings: Settings, embedder: Embedder, **update: Any) -> TestClient:
    """A client of the REST app on the test server, with ``embedder`` and without spaCy (tests of
    entity extraction load it on purpose), ``settings`` changed by ``update``."""
    app = create_app(settings.model_copy(update={"spacy_model": "", **update}),
                     embedder_factory=lambda _: embedder)  # fmt: skip
    return TestClient(app)


def app_seconds(headers: Mapping[str, str]) -> float | None:
    """The API's own time for an answer, from its ``Server-Timing: app;dur=<ms>`` header (the
    deadline middleware's); None when the header is missing or says something else."""
    metric, _, duration = headers.get("server-timing", "").partition(";dur=")
    return float(duration) / 1000 if metric == "app" and duration else None
