"""The options of ``anchorgraph search``, generated from ``SearchOptions``: a flag per field a
terminal can give in one word (a number, a switch, a name, a list of names), its own or in one of
its groups (``expand.depth``), described and bounded as the model has them; a field added to the
model is a flag without a line here, and the model alone decides defaults and refusals (an option
left out is not sent). A flag is named by the field's first, flat name where it had one
(``--expand-depth``, ``--fd-lambda``: ``FLAT_NAMES``), else by its path (``--fusion-method``).

The command reads the flags from ``search_flags.json`` beside this module, which ``python -m
anchorgraph.cli.search_flags`` writes from the model: reading the model itself would import
pydantic and the retrieval types into the start of every command, help included (~140 ms, where
the whole help takes ~60), and a unit test keeps the file equal to what the model gives
(tests/unit/test_cli_search.py).
"""

from __future__ import annotations

import inspect
import json
import types
from dataclasses import asdict, dataclass
from enum import Enum
from importlib import resources
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union, get_args, get_origin

import typer

if TYPE_CHECKING:
    from pydantic import BaseModel
    from pydantic.fields import FieldInfo

FLAGS_FILE = "search_flags.json"
# Fields the command takes its own way: the query as an argument; collections, folders and tags
# as repeatable options of their own (-c, --folder, --tag: the filters are a model of five lists).
OWN_WAY = frozenset({"query", "collections", "filters"})
# Fields that are no single word on a command line: maps from names to numbers. A request body
# (``--api``, the library, POST /search) sets them.
NOT_A_FLAG = frozenset({"fusion.weights", "signal_weights"})
SHORT = {"k": "-k"}

Kind = Literal["int", "float", "bool", "name", "names"]
Path = tuple[str, ...]  # a field's names from the request down: ("expand", "depth")
_PYTHON: dict[str, Any] = {
    "int": int,
    "float": float,
    "bool": bool,
    "name": str,
    "names": list[str],
}
# Built at run time, so spelled through a name mypy does not read as a type.
_ANNOTATED: Any = Annotated


@dataclass(frozen=True)
class SearchFlag:
    """One option of ``anchorgraph search``: its name, the field it sets (a path through the
    groups) and what its help says."""

    name: str
    path: Path
    kind: Kind
    help: str
    choices: tuple[str, ...] = ()

    @property
    def option(self) -> str:
        return "--" + self.name.replace("_", "-")

    def parameter(self) -> inspect.Parameter:
        """The command's parameter: default None (left out, the model's default applies); a
        switch also has its ``--no-`` form, which turns off what is on by default
        (``--no-expand``)."""
        option = f"{self.option}/--no-{self.option[2:]}" if self.kind == "bool" else self.option
        names = [option, *([SHORT[self.name]] if self.name in SHORT else [])]
        declared = _ANNOTATED[_PYTHON[self.kind] | None, typer.Option(*names, help=self.help)]
        return inspect.Parameter(
            self.name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=declared
        )


def request(flags: list[SearchFlag], given: dict[str, Any]) -> dict[str, Any]:
    """The request the flags given (not None) make, each value at its field's path."""
    body: dict[str, Any] = {}
    for flag in flags:
        if (value := given.get(flag.name)) is not None:
            *groups, field = flag.path
            within = body
            for group in groups:
                within = within.setdefault(group, {})
            within[field] = value
    return body


def read_flags() -> list[SearchFlag]:
    """The flags as ``search_flags.json`` lists them."""
    text = resources.files("anchorgraph.cli").joinpath(FLAGS_FILE).read_text("utf-8")
    return [
        SearchFlag(
            flag["name"], tuple(flag["path"]), flag["kind"], flag["help"], tuple(flag["choices"])
        )
        for flag in json.loads(text)
    ]


def flags_of(
    model: type[BaseModel], flat_names: dict[str, tuple[str, str]] | None = None
) -> list[SearchFlag]:
    """A flag for each of ``model``'s fields, and of its groups' (fields that are models), but
    ``OWN_WAY`` and ``NOT_A_FLAG``, in its order; named by ``flat_names`` where it has one.

    Raises:
        TypeError: a field is none of the kinds a flag can be (add it to ``NOT_A_FLAG``).
    """
    flat: dict[Path, str] = {path: name for name, path in (flat_names or {}).items()}
    flags = []
    for path, info in _fields(model, ()):
        dotted = ".".join(path)
        if dotted in OWN_WAY | NOT_A_FLAG:
            continue
        kind, choices = _kind(info.annotation)
        name = flat.get(path, "_".join(path))
        flags.append(SearchFlag(name, path, kind, _help(info, choices), choices))
    return flags


def _fields(model: type[BaseModel], within: Path) -> list[tuple[Path, FieldInfo]]:
    """Each field of ``model`` by its path, a group's fields in its place."""
    from pydantic import BaseModel

    found = []
    for name, info in model.model_fields.items():
        path, group = (*within, name), info.annotation
        taken = ".".join(path) in OWN_WAY | NOT_A_FLAG
        if isinstance(group, type) and issubclass(group, BaseModel) and not taken:
            found.extend(_fields(group, path))
        else:
            found.append((path, info))
    return found


def _kind(annotation: Any) -> tuple[Kind, tuple[str, ...]]:
    """What a field's type is on a command line; Optional and Annotated are looked through."""
    if get_origin(annotation) in (Union, types.UnionType):
        (annotation,) = [arg for arg in get_args(annotation) if arg is not type(None)]
    if get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    scalar: dict[Any, Kind] = {bool: "bool", int: "int", float: "float"}
    if annotation in scalar:
        return scalar[annotation], ()
    if get_origin(annotation) is Literal:
        return "name", tuple(str(arg) for arg in get_args(annotation))
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return "name", tuple(str(member.value) for member in annotation)
    if get_origin(annotation) is list:
        kind, choices = _kind(get_args(annotation)[0])
        if kind == "name" and choices:
            return "names", choices
    raise TypeError(f"{annotation!r} is no flag: list the field in NOT_A_FLAG")


def _help(info: FieldInfo, choices: tuple[str, ...]) -> str:
    """The field's description, its choices, bounds and default."""
    parts = [(info.description or "").strip()]
    if choices:
        parts.append(f"One of: {', '.join(choices)}.")
    if bounds := _bounds(info):
        parts.append(f"Range {_interval(bounds)}.")
    default = info.get_default(call_default_factory=True)
    if default is not None and default != []:
        parts.append(f"Default: {_shown(default)}.")
    return " ".join(part for part in parts if part)


_BOUNDS = ("ge", "gt", "le", "lt")


def _bounds(info: FieldInfo) -> dict[str, float]:
    """The field's bounds: on the field, or (an optional number's) inside its type."""
    rules = list(info.metadata)
    for arg in get_args(info.annotation):
        for annotated in getattr(arg, "__metadata__", ()):
            rules.extend(getattr(annotated, "metadata", [annotated]))
    return {
        key: getattr(rule, key)
        for rule in rules
        for key in _BOUNDS
        if getattr(rule, key, None) is not None
    }


def _shown(default: object) -> str:
    if isinstance(default, Enum):
        return str(default.value)
    if isinstance(default, bool):
        return str(default).lower()
    return f"{default:g}" if isinstance(default, float) else str(default)


def _interval(bounds: dict[str, float]) -> str:
    """``[1, 1000]``, ``(0, 1]``: closed ends for ge/le, open for gt/lt and for none."""
    lower = (
        f"[{bounds['ge']:g}"
        if "ge" in bounds
        else f"({bounds['gt']:g}"
        if "gt" in bounds
        else "(-∞"
    )
    upper = (
        f"{bounds['le']:g}]" if "le" in bounds else f"{bounds['lt']:g})" if "lt" in bounds else "∞)"
    )
    return f"{lower}, {upper}"


def flags_json(model: type[BaseModel], flat_names: dict[str, tuple[str, str]]) -> str:
    """What ``search_flags.json`` holds for ``model``."""
    flags = [asdict(flag) for flag in flags_of(model, flat_names)]
    return json.dumps(flags, indent=1, ensure_ascii=False) + "\n"


if __name__ == "__main__":  # python -m anchorgraph.cli.search_flags > service/cli/search_flags.json
    from anchorgraph.retrieval.options import FLAT_NAMES, SearchOptions

    print(flags_json(SearchOptions, FLAT_NAMES), end="")
