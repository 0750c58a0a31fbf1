"""Only ``anchorgraph.runtime`` builds the heavy things: a connection to Neo4j and an
embedding model.

Import direction is checked by import-linter (``make check``); this checks the calls, by reading
every module of the project's packages.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("service", "loaders", "evaluation", "benchmarks")  # folders

# What may be called where: everything else goes through open_runtime.
ALLOWED = {
    "connect": {"service/runtime.py"},
    "load_embedder": {"service/runtime.py"},
    "SentenceTransformerEmbedder": {"service/embedding.py"},
    "SentenceTransformer": {"service/embedding.py"},
    # driver.py builds the process's driver; the local server probes Bolt while it starts,
    # before any process may use it.
    "GraphDatabase.driver": {"service/graph/driver.py", "service/graph/local_server.py"},
}


def called(node: ast.Call) -> str | None:
    match node.func:
        case ast.Name(id=name):
            return name
        case ast.Attribute(value=ast.Name(id="GraphDatabase"), attr="driver"):
            return "GraphDatabase.driver"
        case ast.Attribute(attr=("SentenceTransformer" | "load_embedder") as name):
            return name
    return None


def calls() -> list[tuple[str, str, int]]:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and (name := called(node)) in ALLOWED:
                    found.append((name, path.relative_to(ROOT).as_posix(), node.lineno))
    return found


def test_only_the_runtime_connects_and_loads_the_model() -> None:
    found = calls()
    assert {name for name, _, _ in found} >= {"connect", "load_embedder"}  # the scan sees them
    outside = [f"{path}:{line} calls {name}" for name, path, line in found
               if path not in ALLOWED[name]]  # fmt: skip
    assert outside == []
