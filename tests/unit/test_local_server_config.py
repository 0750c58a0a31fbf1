"""The local server's configuration and helpers, without starting Java."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
import yaml

from anchorgraph.graph.local_server import (
    _PLAN_CACHE,
    LocalNeo4j,
    _java_feature_version,
    population_buffer_mb,
    vector_index_settings,
)
from anchorgraph.settings import Settings


@pytest.mark.parametrize(
    ("banner", "version"),
    [
        ('openjdk version "17.0.15" 2025-04-15', 17),
        ('openjdk version "21" 2023-09-19', 21),
        ('java version "1.8.0_392"', 8),
        ('openjdk version "25-ea" 2025-09-16', 25),
        ("no banner at all", None),
    ],
)
def test_java_version_banner(banner: str, version: int | None) -> None:
    assert _java_feature_version(banner) == version


def _server(tmp_path: Path, **overrides: object) -> LocalNeo4j:
    return LocalNeo4j(Settings(_env_file=None, neo4j_home=tmp_path, **overrides))


def test_config_binds_loopback_only_with_auth(tmp_path: Path) -> None:
    server = _server(tmp_path, neo4j_bolt_port=17001, neo4j_http_port=17002, neo4j_heap="3g")
    server.conf_dir.mkdir()
    server._write_config()
    conf = dict(
        line.split("=", 1)
        for line in (server.conf_dir / "neo4j.conf").read_text().splitlines()
        if line and not line.startswith("#")
    )
    assert conf["server.bolt.listen_address"] == "127.0.0.1:17001"
    assert conf["server.http.listen_address"] == "127.0.0.1:17002"
    assert conf["server.default_listen_address"] == "127.0.0.1"
    assert conf["dbms.security.auth_enabled"] == "true"
    assert conf["server.memory.heap.max_size"] == "3g"
    assert "BROWSER" in conf["server.http_enabled_modules"]
    # Nothing reported or fetched outside: no usage data from the server or Browser.
    assert conf["dbms.usage_report.enabled"] == "false"
    assert conf["client.allow_telemetry"] == "false"
    # One plan per statement, not one per size of its list and string parameters, compiled
    # when it is made rather than on its 11th use.
    assert conf["internal.cypher.use_parameter_size"] == "false"
    assert conf["internal.cypher.expression_engine"] == "COMPILED"
    # A 3 GB heap buffers 384 MB a population; merges stay pairwise.
    assert conf["internal.dbms.index.vector.population_ram_buffer_size"] == "384"
    assert conf["internal.dbms.index.vector.population_merge_factor"] == "2"


@pytest.mark.parametrize(
    ("heap", "megabytes"),
    [
        ("1g", 256),
        ("2g", 256),
        ("2G", 256),
        ("4096m", 512),
        ("8g", 1024),
        ("12g", 1536),
        (str(16 * 2**30), 2048),
    ],
)
def test_population_buffer_is_an_eighth_of_the_heap_and_at_least_256_mb(
    heap: str, megabytes: int
) -> None:
    assert population_buffer_mb(heap) == megabytes


@pytest.mark.parametrize("heap", ["", "g", "2gb", "two"])
def test_population_buffer_refuses_what_is_not_a_jvm_size(heap: str) -> None:
    with pytest.raises(ValueError, match="JVM memory size"):
        population_buffer_mb(heap)


def test_generated_password_is_stored_0600_and_reused(tmp_path: Path) -> None:
    server = _server(tmp_path)
    first = server.password()
    assert len(first) >= 16
    assert stat.S_IMODE(server.password_file.stat().st_mode) == 0o600
    assert server.password() == first


def test_configured_password_wins_and_is_not_written(tmp_path: Path) -> None:
    server = _server(tmp_path, neo4j_password="configured-secret")
    assert server.password() == "configured-secret"
    assert not server.password_file.exists()


def test_status_ignores_a_stale_pid_file(tmp_path: Path) -> None:
    server = _server(tmp_path)
    server.pid_file.parent.mkdir(parents=True)
    server.pid_file.write_text("999999999")
    assert not server.status().running


def test_docker_compose_keeps_the_internal_settings_of_the_local_server() -> None:
    """Vector segments and the plan cache: a server of one's own behaves as the local one."""
    compose = Path(__file__).parents[2] / "docker-compose.yml"
    environment = yaml.safe_load(compose.read_text())["services"]["neo4j"]["environment"]

    def setting(variable: str) -> str:  # the image's rule: '_' stands for '.', '__' for '_'
        return (
            variable.removeprefix("NEO4J_").replace("__", "\0").replace("_", ".").replace("\0", "_")
        )

    internal = {
        setting(name): str(value)
        for name, value in environment.items()
        if name.startswith("NEO4J_internal_")
    }
    heap = environment["NEO4J_server_memory_heap_max__size"]
    assert internal == vector_index_settings(heap) | _PLAN_CACHE
