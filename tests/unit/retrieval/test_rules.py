"""Cross-field rules: one object checks a request and writes its JSON Schema, and an absent
field reads as its default in both (tests/unit/test_api_contract.py checks the search rules on
a grid of requests)."""

from __future__ import annotations

from typing import Literal

import pytest
from jsonschema import Draft202012Validator
from pydantic import BaseModel, ValidationError, model_validator

from anchorgraph.retrieval.rules import AnyOf, Requires, equals, none_in, positive

RULE = Requires(
    when=positive("boost"),
    then=AnyOf((equals("kind", "fast"), none_in("tags", ["slow"]))),
    message="a boost needs a fast kind or no slow tag",
)


class Request(BaseModel):
    kind: Literal["fast", "plain"] = "plain"
    boost: float = 0.0
    tags: list[str] | None = None

    @model_validator(mode="after")
    def _rule(self) -> Request:
        RULE.check(self)
        return self


def test_a_test_whose_default_fails_requires_its_field() -> None:
    assert RULE.when.schema(Request)["required"] == ["boost"]  # type: ignore[index]
    assert "required" not in none_in("tags", ["slow"]).schema(Request)
    assert equals("kind", "fast").schema(Request)["required"] == ["kind"]


@pytest.mark.parametrize(
    ("body", "accepted"),
    [
        ({}, True),
        ({"boost": 1.0}, True),
        ({"boost": 1.0, "tags": ["slow"]}, False),
        ({"boost": 1.0, "tags": ["slow"], "kind": "fast"}, True),
        ({"boost": 0.0, "tags": ["slow"]}, True),
        ({"tags": ["slow"], "kind": "plain", "boost": 2.0}, False),
    ],
)
def test_the_model_and_its_schema_agree(body: dict[str, object], accepted: bool) -> None:
    schema = Draft202012Validator({**Request.model_json_schema(), **RULE.schema(Request)})
    assert schema.is_valid(body) is accepted
    if accepted:
        Request.model_validate(body)
    else:
        with pytest.raises(ValidationError, match="a boost needs a fast kind or no slow tag"):
            Request.model_validate(body)
