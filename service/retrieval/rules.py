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
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Protocol, Self

from pydantic import BaseModel


class Condition(Protocol):
    """Something a request satisfies or not, in Python and in JSON Schema alike."""

    def holds(self, request: BaseModel) -> bool: ...

    def schema(self, model: type[BaseModel]) -> dict[str, Any]: ...

    def spelled_as(self, spellings: Mapping[str, str]) -> Condition:
        """The same condition, its fields named in the schema as ``spellings`` has them."""
        ...


@dataclass(frozen=True)
class Test:
    """``check`` of one field's value; ``keywords``: the JSON Schema of the values it passes.
    ``name`` is a field, or a dotted path into a group of fields (``fusion.walk_weight``)."""

    name: str
    check: Callable[[Any], bool]
    keywords: Mapping[str, Any] = field(default_factory=dict)
    # The property the schema names, when not ``name`` (the same field spelled otherwise).
    spelled: str | None = None

    def spelled_as(self, spellings: Mapping[str, str]) -> Test:
        """This test of the same field, in the schema under its other spelling, if it has one."""
        return replace(self, spelled=spellings.get(self.name))

    def holds(self, request: BaseModel) -> bool:
        value: Any = request
        for part in self.name.split("."):
            value = getattr(value, part)
        return bool(self.check(value))

    def schema(self, model: type[BaseModel]) -> dict[str, Any]:
        """``keywords`` under each part of the path; each part required when the field's
        default fails the test (an absent group stands for its default, too). A group is an
        object: a group's name holding anything else (a deprecated spelling of one of its
        fields, ``anchorgraph.retrieval.options.FLAT_NAMES``) fails a test of its fields."""
        parts = self.name.split(".")
        default: Any = model.model_fields[parts[0]].get_default(call_default_factory=True)
        for part in parts[1:]:
            default = getattr(default, part)
        required = not self.check(default)
        said: dict[str, Any] = dict(self.keywords)
        spelled = (self.spelled or self.name).split(".")
        for depth, part in reversed(list(enumerate(spelled))):
            said = {"properties": {part: said}} | ({"required": [part]} if required else {})
            if depth:
                said["type"] = "object"
        return said


@dataclass(frozen=True)
class _Joined:
    """Conditions that must all hold (``AllOf``) or one of which (``AnyOf``), and the JSON
    Schema keyword that says the same."""

    conditions: tuple[Condition, ...]
    keyword: ClassVar[str]
    every: ClassVar[bool]

    def spelled_as(self, spellings: Mapping[str, str]) -> Self:
        return replace(self, conditions=tuple(c.spelled_as(spellings) for c in self.conditions))

    def holds(self, request: BaseModel) -> bool:
        held = (condition.holds(request) for condition in self.conditions)
        return all(held) if self.every else any(held)

    def schema(self, model: type[BaseModel]) -> dict[str, Any]:
        return {self.keyword: [condition.schema(model) for condition in self.conditions]}


class AllOf(_Joined):
    keyword = "allOf"
    every = True


class AnyOf(_Joined):
    keyword = "anyOf"
    every = False


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

    def spelled_as(self, spellings: Mapping[str, str]) -> Requires:
        """The same rule over fields spelled otherwise in a request (its schema only: the
        model is checked once, whatever the spelling)."""
        return Requires(
            self.when.spelled_as(spellings), self.then.spelled_as(spellings), self.message
        )


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
