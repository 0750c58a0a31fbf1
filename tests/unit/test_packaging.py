"""One import name: a wheel installs `anchorgraph` and nothing else, with every file the package
reads at run time, and the checkout's folders map onto it as pyproject's `[tool.setuptools]` says
(docs/development.md)."""

import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from typing import Any

import pytest

import anchorgraph

ROOT = Path(__file__).resolve().parents[2]


def _setuptools() -> dict[str, Any]:
    config: dict[str, Any] = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return dict(config["tool"]["setuptools"])


# pyproject's `package-dir`: each folder of the checkout → the package it installs as.
ROOTS = {folder: package for package, folder in _setuptools()["package-dir"].items()}


def _files(pattern: str) -> list[Path]:
    """The checkout's files under the package folders, caches left out."""
    return [
        path
        for folder in ROOTS
        for path in (ROOT / folder).rglob(pattern)
        if path.is_file() and "__pycache__" not in path.parts
    ]


def _installed(path: Path) -> str:
    """Where a file or folder of the checkout is installed: ``loaders/read.py`` →
    ``anchorgraph/loaders/read.py``."""
    top, *rest = path.relative_to(ROOT).parts
    return "/".join([*ROOTS[top].split("."), *rest])


def test_the_listed_packages_are_the_folders_with_an_init() -> None:
    on_disk = {_installed(init.parent).replace("/", ".") for init in _files("__init__.py")}
    assert set(_setuptools()["packages"]) == on_disk


def test_the_installed_package_is_the_checkout_and_holds_every_module_of_it() -> None:
    # The strict editable install links each file; a module added since needs `make setup`.
    assert Path(anchorgraph.__file__).resolve().parent == ROOT / "service"
    site = Path(anchorgraph.__file__).parent.parent
    for module in _files("*.py"):
        assert (site / _installed(module)).exists(), f"{module} is not linked: run `make setup`"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    # Built from a copy: setuptools would reuse the checkout's build/ and hide a missing glob.
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    caches = shutil.ignore_patterns("__pycache__")
    for folder in ROOTS:
        shutil.copytree(ROOT / folder, source / folder, ignore=caches)
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(out), str(source)],
        check=True,
        capture_output=True,
    )
    (built,) = out.glob("anchorgraph-*.whl")
    return zipfile.ZipFile(built)


def test_the_wheel_installs_one_top_level_name(wheel: zipfile.ZipFile) -> None:
    tops = {name.split("/")[0] for name in wheel.namelist()}
    assert {top for top in tops if not top.endswith(".dist-info")} == {"anchorgraph"}
    entry_points = next(n for n in wheel.namelist() if n.endswith("entry_points.txt"))
    assert "anchorgraph = anchorgraph.cli.main:main" in wheel.read(entry_points).decode()


def test_the_wheel_carries_every_file_the_package_reads(wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    for file in _files("*"):
        assert _installed(file) in names, f"{file} is not in the wheel"
