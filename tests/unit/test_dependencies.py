"""Every package the code imports is a dependency pyproject.toml declares (or the standard
library's): an install with any pip gets what the code needs, not only what some other package
happens to bring along."""

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("service", "loaders", "evaluation")


def _name(requirement: str) -> str:
    """The distribution a requirement names, normalised (PEP 503): "lxml_html_clean>=0.1" →
    lxml-html-clean."""
    name = re.match(r"[A-Za-z0-9._-]+", requirement)
    assert name is not None, requirement
    return re.sub(r"[-_.]+", "-", name.group()).lower()


def _declared() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"].values()
    return {_name(r) for r in [*project["dependencies"], *(r for e in extras for r in e)]}


def _imported() -> dict[str, str]:
    """Every top-level module the code imports, absolutely, with a file that imports it."""
    found: dict[str, str] = {}
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    found.setdefault(name.split(".")[0], str(path.relative_to(ROOT)))
    return found


def test_every_imported_package_is_declared() -> None:
    declared, providers = _declared(), packages_distributions()
    undeclared = {}
    for module, where in _imported().items():
        if module in sys.stdlib_module_names or module in {"anchorgraph", "__future__"}:
            continue
        distributions = {_name(d) for d in providers.get(module, [])}
        if not distributions & declared:
            undeclared[module] = (where, sorted(distributions) or "not installed")
    assert not undeclared, f"imported but not declared in pyproject.toml: {undeclared}"


def test_the_html_cleaner_jusText_needs_is_declared() -> None:
    # trafilatura → jusText imports lxml.html.clean, a project of its own since lxml 5.2: older
    # pips skip the extra (lxml[html_clean]) that asks for it, and every HTML file then fails.
    assert "lxml-html-clean" in _declared()
    import lxml.html.clean  # noqa: F401  # raises ImportError without it
