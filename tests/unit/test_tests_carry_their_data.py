"""Every test runs from a clone of the repository alone: no test module builds a path into the
``../shared`` folder that only the developers have (its datasets are not in a clone). A test's
data lives under tests/fixtures (tests/fixtures/scifact/README.md) or is made by the test;
`make test-clone` runs the whole suite in such a clone."""

from __future__ import annotations

import ast
import importlib.util
import json
from itertools import pairwise
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
SCIFACT = TESTS / "fixtures" / "scifact"
SHARED = "shared"
PATH_CALLS = {"Path", "PurePath", "open", "join", "joinpath"}


def _names_shared(text: str) -> bool:
    """A path string whose first part, or a part after ``..``, is the shared folder."""
    parts = text.replace("\\", "/").split("/")
    return parts[0] == SHARED or any(
        before == ".." and part == SHARED for before, part in pairwise(parts)
    )


def paths_into_shared(source: str) -> list[int]:
    """Lines of ``source`` that build a path into the shared folder: ``… / "shared…"``, or a
    path call (``Path``, ``open``, ``os.path.join``, ``joinpath``) given ``"../shared…"``."""
    lines: list[int] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            strings = [node.right]
        elif isinstance(node, ast.Call):
            function = node.func
            name = function.attr if isinstance(function, ast.Attribute) else None
            name = function.id if isinstance(function, ast.Name) else name
            strings = node.args if name in PATH_CALLS else []
        else:
            continue
        if any(
            isinstance(s, ast.Constant) and isinstance(s.value, str) and _names_shared(s.value)
            for s in strings
        ):
            lines.append(node.lineno)
    return sorted(set(lines))


def test_the_check_finds_the_ways_a_path_into_shared_is_built() -> None:
    found = paths_into_shared(
        "from pathlib import Path\n"
        'A = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "scifact"\n'
        'B = Path(__file__).parents[3] / "shared/datasets/healthfc/Datensatz.csv"\n'
        'C = Path("../shared/datasets/nfcorpus")\n'
        'D = open("../../shared/DESIGN.md")\n'
        'E = Path(__file__).parent.joinpath("..", "shared")\n'
    )
    assert found == [2, 3, 4, 5, 6]
    assert not paths_into_shared(
        'FIXTURES = Path(__file__).parents[1] / "fixtures" / "scifact"\n'
        'shared = entity_documents(driver, ["aerograph ag-2048"])\n'
        'assert unknown_words("eval --dataset ../shared/datasets/scifact")\n'
        'NOTE = "docs name ../shared as a folder only the developers have"\n'
    )


def test_no_test_module_reads_the_shared_folder() -> None:
    offenders = [
        f"{path.relative_to(TESTS.parent)}:{line}"
        for path in sorted(TESTS.rglob("*.py"))
        for line in paths_into_shared(path.read_text(encoding="utf-8"))
    ]
    assert not offenders, f"a test reads ../shared, which a clone does not have: {offenders}"


def test_the_scifact_slice_is_what_its_script_makes_of_it(tmp_path: Path) -> None:
    """The slice follows its rule (tests/fixtures/scifact/make.py, with relevance_pins.json's
    counts): made again from itself, it is the same bytes, so no line was added, dropped or
    moved by hand."""
    spec = importlib.util.spec_from_file_location("make_scifact", SCIFACT / "make.py")
    assert spec is not None and spec.loader is not None
    make = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make)
    counts = json.loads((TESTS / "fixtures" / "relevance_pins.json").read_text())["slice"]
    source = SCIFACT / "train_slice"
    make.make_train_slice(source, tmp_path, counts["queries"], counts["distractors"])
    for name in ("corpus.jsonl", "queries.jsonl", "qrels/train.tsv"):
        assert (tmp_path / name).read_bytes() == (source / name).read_bytes(), name
    assert len((source / "queries.jsonl").read_text().splitlines()) == counts["queries"]
