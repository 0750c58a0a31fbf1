"""The public API is the few names of ``anchorgraph`` itself, each typed, documented and where
``_LAZY`` says; the evaluation may import only those and ``anchorgraph.engine``."""

import ast
import importlib
import tomllib
from pathlib import Path

import anchorgraph

ROOT = Path(__file__).resolve().parents[2]
EVALUATION = "anchorgraph.evaluation"
EVALUATION = "anchorgraph.evaluation"


def _typed_names() -> set[str]:
    """The names the ``if TYPE_CHECKING:`` block of ``service/__init__.py`` imports."""
    tree = ast.parse((ROOT / "service" / "__init__.py").read_text())
    block = next(node for node in tree.body if isinstance(node, ast.If))
    return {alias.asname or alias.name for node in block.body for alias in node.names}  # type: ignore[attr-defined]


def test_every_public_name_is_typed_resolves_where_listed_and_has_a_docstring() -> None:
    assert set(anchorgraph.__all__) == _typed_names()
    for name in anchorgraph.__all__:
        value = getattr(anchorgraph, name)
        module = importlib.import_module(anchorgraph._LAZY[name])
        assert value is getattr(module, name)
        assert (value.__doc__ or "").strip(), f"{name} has no docstring"


def test_a_name_outside_the_public_api_is_refused() -> None:
    assert "retrieve" not in dir(anchorgraph)
    try:
        anchorgraph.retrieve  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as error:
        assert "retrieve" in str(error)
    else:
        raise AssertionError("anchorgraph.retrieve resolved")


def test_the_evaluation_contract_forbids_every_module_but_the_engine() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (contract,) = [c for c in config["contracts"] if c.get("source_modules") == [EVALUATION]]
    package = ROOT / "service"
    modules = {
        f"anchorgraph.{path.stem if path.is_file() else path.name}"
        for path in package.iterdir()
        if (path.suffix == ".py" and path.stem != "__init__") or (path / "__init__.py").exists()
    } | {"anchorgraph.loaders", "anchorgraph.cypher"}
    assert set(contract["forbidden_modules"]) == modules - {"anchorgraph.engine"}
