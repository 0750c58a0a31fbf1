"""The command line's help imports nothing heavy: `anchorgraph --help` and every command's
`--help` run in a fresh interpreter without the driver, the model's libraries, spaCy, scipy,
matplotlib, numpy or typer's rich help layout (each command imports what it uses when it runs;
service/cli/output.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from anchorgraph.cli.output import DEFAULT
from anchorgraph.scope import DEFAULT_COLLECTION

ANCHORGRAPH = Path(sys.executable).parent / "anchorgraph"
HEAVY = (
    "torch",
    "sentence_transformers",
    "transformers",
    "spacy",
    "neo4j",
    "scipy",
    "matplotlib",
    "numpy",
    "onnxruntime",
    "networkx",
    "pydantic_settings",
    # typer's rich help layout (typer.rich_utils) imports rich's Markdown and with it these two,
    # a third of the help's time; the groups use click's plain layout (command_group).
    "pygments",
    "markdown_it",
)

# Every command's help, from the Typer app's own tree, in one fresh interpreter; then the
# top-level packages of HEAVY that are loaded.
EVERY_HELP = """
import json, sys
import typer
from typer.testing import CliRunner
from anchorgraph.cli.main import app

def paths(command, prefix):
    yield prefix
    for name, sub in getattr(command, "commands", {}).items():
        yield from paths(sub, [*prefix, name])

runner = CliRunner()
helps = {}
for path in paths(typer.main.get_command(app), []):
    done = runner.invoke(app, [*path, "--help"])
    helps[" ".join(path)] = [done.exit_code, "Usage" in done.output]
heavy = set(sys.argv[1:])
loaded = sorted({name.split(".")[0] for name in sys.modules} & heavy)
print(json.dumps({"helps": helps, "loaded": loaded}))
"""


def _environment() -> dict[str, str]:
    return {**os.environ, "COLUMNS": "120"}


def test_every_help_imports_nothing_heavy() -> None:
    done = subprocess.run(
        [sys.executable, "-c", EVERY_HELP, *HEAVY],
        capture_output=True,
        text=True,
        timeout=120,
        env=_environment(),
        check=True,
    )
    report = json.loads(done.stdout.splitlines()[-1])
    helps = report["helps"]
    # The tree was walked: the top level, the groups and their commands.
    assert {"", "neo4j", "neo4j password", "search", "audit length", "fd stats", "db init"} <= set(
        helps
    )
    assert all(helps[path] == [0, True] for path in helps), helps
    assert report["loaded"] == []
    # For the same reason cli/output.py writes the default collection out rather than import
    # anchorgraph.scope (and pydantic with it): the two must agree.
    assert DEFAULT == DEFAULT_COLLECTION


def test_the_installed_command_imports_nothing_heavy_for_its_help() -> None:
    """The real entry point (the console script), its imports listed by CPython itself."""
    done = subprocess.run(
        [str(ANCHORGRAPH), "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**_environment(), "PYTHONPROFILEIMPORTTIME": "1"},
        check=True,
    )
    assert "Usage" in done.stdout and "search" in done.stdout
    imported = {
        line.rsplit("|", 1)[1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    assert "anchorgraph.cli.main" in imported  # the listing is of this program's imports
    assert {name.split(".")[0] for name in imported} & set(HEAVY) == set()
