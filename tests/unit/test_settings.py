"""Settings come from ANCHORGRAPH_* variables and derive the local server's addresses."""

from __future__ import annotations

from pathlib import Path

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


def test_the_data_dir_moves_the_servers_homes(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """ANCHORGRAPH_DATA_DIR alone moves the local Neo4j and the evaluation's servers (their
    outputs are under it already); ANCHORGRAPH_NEO4J_HOME, when set, still wins."""
    from anchorgraph.evaluation.run import eval_home

    monkeypatch.delenv("ANCHORGRAPH_NEO4J_HOME", raising=False)
    monkeypatch.setenv("ANCHORGRAPH_DATA_DIR", str(tmp_path / "data"))
    settings = Settings(_env_file=None)
    assert settings.neo4j_home == tmp_path / "data" / "neo4j"
    assert eval_home("scifact") == tmp_path / "data" / "eval-neo4j" / "scifact"
    assert Settings(_env_file=None, data_dir=tmp_path / "other").neo4j_home == (
        tmp_path / "other" / "neo4j"
    )
    monkeypatch.setenv("ANCHORGRAPH_NEO4J_HOME", "")  # empty: unset
    assert Settings(_env_file=None).neo4j_home == tmp_path / "data" / "neo4j"
    monkeypatch.setenv("ANCHORGRAPH_NEO4J_HOME", str(tmp_path / "elsewhere"))
    assert Settings(_env_file=None).neo4j_home == tmp_path / "elsewhere"


@pytest.mark.parametrize(
    ("host", "url"),
    [("127.0.0.1", "http://127.0.0.1:8123"), ("0.0.0.0", "http://127.0.0.1:8123"),
     ("api.internal", "http://api.internal:8123"), ("::1", "http://[::1]:8123")],
)  # fmt: skip
def test_the_api_url_is_where_this_machine_reaches_the_api(host: str, url: str) -> None:
    assert Settings(_env_file=None, api_host=host, api_port=8123).api_url == url
