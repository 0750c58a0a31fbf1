"""Settings come from ANCHORGRAPH_* variables and derive the local server's addresses."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from anchorgraph.settings import Settings


def test_environment_prefix_and_local_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANCHORGRAPH_NEO4J_BOLT_PORT", "17999")
    monkeypatch.delenv("ANCHORGRAPH_NEO4J_URI", raising=False)
    settings = Settings(_env_file=None)
    assert settings.uses_local_server
    assert settings.bolt_uri == "bolt://127.0.0.1:17999"
    assert settings.browser_url is not None and settings.browser_url.endswith("/browser/")


def test_an_external_uri_turns_the_local_server_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANCHORGRAPH_NEO4J_URI", "neo4j://graph.internal:7687")
    settings = Settings(_env_file=None)
    assert not settings.uses_local_server
    assert settings.bolt_uri == "neo4j://graph.internal:7687"
    assert settings.browser_url is None


@pytest.mark.parametrize(
    ("variable", "value"),
    [("ANCHORGRAPH_NEO4J_BOLT_PORT", "70000"), ("ANCHORGRAPH_CHUNK_OVERLAP", "1.5")],
)
def test_bad_values_are_refused(monkeypatch: pytest.MonkeyPatch, variable: str, value: str) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ValidationError):
        Settings(_env_file=None)


def test_the_password_is_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANCHORGRAPH_NEO4J_PASSWORD", "correct-horse")
    settings = Settings(_env_file=None)
    assert "correct-horse" not in repr(settings)
