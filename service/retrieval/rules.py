"""Rules that tie a request's fields together, written once: each checks a request in Python
and says the same in JSON Schema, so that the request's schema (``POST /search`` publishes it)
says exactly what is checked.

A rule is ``Requires(when, then, message)``: a request for which ``when`` holds must satisfy
``then``, else it is refused with ``message``; in JSON Schema, ``{"if": when, "then": then}``.
Conditions are built from ``Test``, one field's values, and ``AllOf`` / ``AnyOf``.

JSON Schema reads an absent property as satisfying ``properties`` (draft 2020-12, §10.3.2.1),
while Python sees the field's default. So a ``Test`` whose default fails it also requires the
field: then an absent field fails the schema as its default fails the test, and the two agree
on every request (tests/unit/test_api_contract.py checks a grid of them).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import BaseModel


class Condition(Protocol):
    """Something a request satisfies or not, in Python and in JSON Schema alike."""

    def holds(self, request: BaseModel) -> bool: ...

    def schema(self, model: type[BaseModel]) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Test:
    """``check`` of one field's value; ``keywords``: the JSON Schema of the values it passes."""

    name: str
    check: Callable[[Any], bool]
    keywords: Mapping[str, Any] = field(default_factory=dict)

    def holds(self, request: BaseModel) -> bool:
        return self.check(getattr(request, self.name))

    def schema(self, model: type[BaseModel]) -> dict[str, Any]:
        default = model.model_fields[self.name].get_default(call_default_factory=True)
        said: dict[str, Any] = {"properties": {self.name: dict(self.keywords)}}
        if not self.check(default):
            said["required"] = [self.name]
        return said


@dataclass(frozen=True)
class AllOf:
    conditions: tuple[Condition, ...]

    def holds(self, request: BaseModel) -> bool:
        return all(condition.holds(request) for condition in self.conditions)

    def schema(self, model: type[BaseModel]) -> dict[str, Any]:
        return {"allOf": [condition.schema(model) for condition in self.conditions]}


@dataclass(frozen=True)
class AnyOf:
    conditions: tuple[Condition, ...]

    def holds(self, request: BaseModel) -> bool:
        return any(condition.holds(request) for condition in self.conditions)

    def schema(self, model: type[BaseModel]) -> dict[str, Any]:
        return {"anyOf": [condition.schema(model) for condition in self.conditions]}


@dataclass(frozen=True)
class Requires:
    """When ``when`` holds, ``then`` must; ``message`` says why a request is refused."""

    when: Condition
    then: Condition
    message: str

    def check(self, request: BaseModel) -> None:
        """Raises ``ValueError(message)`` when ``request`` breaks the rule."""
        if self.when.holds(request) and not self.then.holds(request):
            raise ValueError(self.message)

    def schema(self, model: type[BaseModel]) -> dict[str, Any]:
        return {"if": self.when.schema(model), "then": self.then.schema(model)}


# --- tests of one field -------------------------------------------------------------------------
def equals(name: str, value: str) -> Test:
    return Test(name, lambda actual: actual == value, {"const": value})


def one_of(name: str, values: list[str]) -> Test:
    return Test(name, lambda actual: actual in values, {"enum": values})


def differs(name: str, value: str) -> Test:
    return Test(name, lambda actual: actual != value, {"not": {"const": value}})


def positive(name: str) -> Test:
    """A number above 0 (not null)."""
    return Test(
        name,
        lambda actual: actual is not None and actual > 0,
        {"type": "number", "exclusiveMinimum": 0},
    )


def none_in(name: str, values: list[str]) -> Test:
    """A list with none of ``values`` in it, or null."""
    return Test(
        name,
        lambda actual: actual is None or not set(actual) & set(values),
        {"anyOf": [{"type": "null"}, {"items": {"not": {"enum": values}}}]},
    )


def any_in(name: str, values: list[str]) -> Test:
    """A list with one of ``values`` in it, or null (which stands for every value)."""
    return Test(
        name,
        lambda actual: actual is None or bool(set(actual) & set(values)),
        {"anyOf": [{"type": "null"}, {"contains": {"enum": values}}]},
    )
