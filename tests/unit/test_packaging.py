"""One import name: a wheel installs `anchorgraph` and nothing else, with every file the package
reads at run time, and the checkout's folders map onto it as pyproject's `[tool.setuptools]` says
(docs/development.md)."""

import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

import anchorgraph

ROOT = Path(__file__).resolve().parents[2]


def _setuptools() -> dict[str, object]:
    config: dict[str, object] = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"][
        "setuptools"
    ]
    return config


def _package_dirs() -> dict[str, str]:
    """The folder of every package pyproject maps, from `package-dir` and `packages`."""
    config = _setuptools()
    roots: dict[str, str] = config["package-dir"]  # type: ignore[assignment]
    folders = {}
    for package in config["packages"]:  # type: ignore[attr-defined]
        root = max((name for name in roots if package.startswith(name)), key=len)
        folders[package] = roots[root] + package.removeprefix(root).replace(".", "/")
    return folders


def test_every_folder_with_an_init_is_a_listed_package_and_every_listed_package_a_folder() -> None:
    folders = set(_package_dirs().values())
    on_disk = {
        str(init.parent.relative_to(ROOT))
        for top in ("service", "loaders", "cypher", "evaluation")
        for init in (ROOT / top).rglob("__init__.py")
    }
    assert folders == on_disk


def test_the_installed_package_is_the_checkout_and_holds_every_module_of_it() -> None:
    # The strict editable install links each file; a module added since needs `make setup`.
    installed = Path(anchorgraph.__file__).resolve().parent
    assert installed == ROOT / "service"
    package = Path(anchorgraph.__file__).parent
    for package_name, folder in _package_dirs().items():
        linked = package.joinpath(*package_name.split(".")[1:])
        for module in (ROOT / folder).glob("*.py"):
            assert (linked / module.name).exists(), f"{module} is not linked: run `make setup`"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    # Built from a copy: setuptools would reuse the checkout's build/ and hide a missing glob.
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    caches = shutil.ignore_patterns("__pycache__")
    for folder in ("service", "loaders", "cypher", "evaluation"):
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
    assert "anchorgraph = anchorgraph.cli:main" in wheel.read(entry_points).decode()


def test_the_wheel_carries_every_file_the_package_reads(wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    for package_name, folder in _package_dirs().items():
        prefix = package_name.replace(".", "/")
        for file in (ROOT / folder).rglob("*"):
            if not file.is_file() or "__pycache__" in file.parts:
                continue
            relative = file.relative_to(ROOT / folder)
            if relative.parts[0] in _subfolders_of_other_packages(folder):
                continue
            assert f"{prefix}/{relative.as_posix()}" in names, f"{file} is not in the wheel"


def _subfolders_of_other_packages(folder: str) -> set[str]:
    """The subfolders of ``folder`` that are packages of their own (checked on their own turn)."""
    return {
        Path(other).relative_to(folder).parts[0]
        for other in _package_dirs().values()
        if other != folder and Path(other).is_relative_to(folder)
    }
