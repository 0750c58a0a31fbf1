"""Every Python and shell example of README.md and docs/*.md, run as written against the sample
graph, so that an example cannot drift from the code.

A fenced ```python block runs in a namespace of its own in this process (sparing an
interpreter's start and imports), a ```bash block in bash (``-e -o pipefail``: a failing command
fails the block), each from the checkout's root with the settings of the test's Neo4j in the
environment (``ANCHORGRAPH_NEO4J_URI`` and its password), ``HOME`` a folder of the test's own
(holding the ``~/notes`` the README ingests) and one API served for the module over the same
graph. The examples name the API as ``make run`` serves it, ``localhost:8000``; the test points
them at its own server by rewriting that address in the block it runs, and by
``ANCHORGRAPH_API_PORT``. ``curl`` fails on an HTTP error here (``--fail-with-body``), which the
examples leave out for readability.

A block that cannot run in a test says so, with the reason, in an HTML comment on the line
before it: ``<!-- not run: starts a server until Ctrl-C -->``. Blocks in other languages
(``text``, ``json``, ``console`` sessions with their output) are not run; a command in a fence
without a language is refused, so that a shell example cannot hide from this test.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sample_graph import SampleGraphs
from uvicorn_thread import served

from anchorgraph.app import create_app
from anchorgraph.embedding import Embedder
from anchorgraph.graph.driver import neo4j_auth
from anchorgraph.ingestion import sample_gazetteer
from anchorgraph.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# The address the examples give the API: `make run`'s.
DOCUMENTED_API = re.compile(r"(?:localhost|127\.0\.0\.1):8000\b")
FENCE = re.compile(r"^```(?P<language>\S*)[^\n]*\n(?P<code>.*?)^```[ \t]*$", re.M | re.S)
NOT_RUN = re.compile(r"<!-- not run: (?P<reason>[^>]+?) -->")
RUNS = {"python": "python", "bash": "bash"}
# The start of a line that is a command, not output: such a line needs a fence that says bash.
COMMAND = re.compile(r"^(?:\.venv/bin/|anchorgraph |curl |make |python )", re.M)
# The machine is shared; a block loads the model (or a CLI does) and searches.
TIMEOUT_S = 600
# What ~/notes holds for the README's "your own folder".
NOTES = {
    "reviews.md": "# Reviews\n\nThe next review is on 3 March, in the small meeting room.\n",
    "ideas.txt": "Lend the AG-2048 sensors to the Mooca warehouse over the summer.\n",
}


@dataclass(frozen=True)
class Example:
    """A fenced block of a page: its language, its code, and why it is not run (if it is not)."""

    page: str  # relative to the checkout
    line: int  # of its opening fence
    language: str
    code: str
    not_run: str | None

    @property
    def name(self) -> str:
        return f"{self.page}:{self.line}"


def examples() -> list[Example]:
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for fence in FENCE.finditer(text):
            before = text[: fence.start()].rstrip().rpartition("\n")[2]
            marker = NOT_RUN.fullmatch(before.strip())
            found.append(
                Example(
                    page=str(page.relative_to(ROOT)),
                    line=text.count("\n", 0, fence.start()) + 1,
                    language=fence["language"],
                    code=fence["code"],
                    not_run=marker["reason"] if marker else None,
                )
            )
    return found


EXAMPLES = examples()
TO_RUN = [e for e in EXAMPLES if e.language in RUNS and e.not_run is None]


def test_every_example_is_run_or_says_why_not() -> None:
    """Commands sit in fences that say their language, every block to run is found, and a
    marker stands only before a block that would otherwise run."""
    unlabelled = [e.name for e in EXAMPLES if e.language in {"", "text"} and COMMAND.search(e.code)]
    assert not unlabelled, f"commands in a fence without a language: {unlabelled}"
    stray = [e.name for e in EXAMPLES if e.not_run is not None and e.language not in RUNS]
    assert not stray, f"a 'not run' marker before a block that would not run anyway: {stray}"
    for page in PAGES:  # no opening fence of a block to run was missed
        opened = re.findall(r"^```(?:python|bash)\b", page.read_text(encoding="utf-8"), re.M)
        name = str(page.relative_to(ROOT))
        assert len(opened) == sum(e.page == name and e.language in RUNS for e in EXAMPLES)
    skipped = [f"{e.name}: {e.not_run}" for e in EXAMPLES if e.not_run is not None]
    print("not run:\n" + "\n".join(skipped))  # -s


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A HOME of the test's own, with the ~/notes folder the README's examples read."""
    home = tmp_path_factory.mktemp("home")
    (home / "notes").mkdir()
    for name, text in NOTES.items():
        (home / "notes" / name).write_text(text, encoding="utf-8")
    return home


@pytest.fixture(scope="module")
def api(sample_graph: SampleGraphs, settings: Settings, embedder: Embedder) -> Iterator[str]:
    """The API over the sample graph as `make run` loads it (the collection `sample`, with its
    gazetteer and spaCy's pipeline); its host:port."""
    api_settings = settings.model_copy(update={"gazetteer": sample_gazetteer()})
    sample_graph(
        embedder,
        spacy=True,
        gazetteer=True,
        casing_names=api_settings.casing_names,
        collections=["sample"],
    )
    app = create_app(api_settings, embedder_factory=lambda _: embedder)
    with served(app, access_log=False) as base_url:
        yield base_url.removeprefix("http://")


@pytest.fixture(scope="module")
def environment(api: str, settings: Settings, home: Path) -> dict[str, str]:
    """What the examples' environment sets: the test's server, API and HOME."""
    bin_dir = Path(sys.executable).parent
    return {
        "HOME": str(home),
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "ANCHORGRAPH_NEO4J_URI": settings.bolt_uri,
        "ANCHORGRAPH_NEO4J_PASSWORD": neo4j_auth(settings)[1],
        "ANCHORGRAPH_CACHE_DIR": str(settings.cache_dir),
        "ANCHORGRAPH_DATA_DIR": str(home / "data"),
        "ANCHORGRAPH_API_PORT": api.rpartition(":")[2],
    }


def run_python(code: str, name: str) -> str:
    """What the block printed; an exception it raises fails the test, naming the page."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, name, "exec"), {"__name__": "__main__"})
    return printed.getvalue()


def run_bash(code: str, name: str, environment: dict[str, str]) -> str:
    preamble = 'curl() { command curl --silent --show-error --fail-with-body "$@"; }\n'
    ran = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", preamble + code],
        cwd=ROOT,
        env={**os.environ, **environment},
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    said = f"--- stdout\n{ran.stdout[-6000:]}\n--- stderr\n{ran.stderr[-6000:]}"
    assert ran.returncode == 0, f"{name} exited {ran.returncode}\n{said}"
    assert "Traceback" not in ran.stderr, said
    return ran.stdout


@pytest.mark.integration
@pytest.mark.parametrize("example", TO_RUN, ids=[e.name for e in TO_RUN])
def test_example_runs(
    example: Example, api: str, environment: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code = DOCUMENTED_API.sub(api, example.code)
    if example.language == "python":
        for key, value in environment.items():
            monkeypatch.setenv(key, value)
        monkeypatch.chdir(ROOT)
        printed = run_python(code, example.name)
    else:
        printed = run_bash(code, example.name, environment)
    assert printed.strip(), f"{example.name} printed nothing"
