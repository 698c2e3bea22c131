"""core/json_schema.py: each annotation form core/summary.py uses, as JSON Schema."""

from typing import Any, Literal, NotRequired, TypedDict

import pytest

from locustfiles.suite.core import json_schema


class Inner(TypedDict):
    """An inner object."""

    name: str


class Outer(TypedDict):
    count: int
    share: float | None
    flags: list[bool]
    named: dict[str, Inner]
    anything: Any
    kind: Literal["a", "b"]
    later: NotRequired[str]


def test_each_form_becomes_its_schema():
    schema = json_schema.schema(Outer, (Outer,), title="t")
    assert schema["$ref"] == "#/$defs/Outer" and schema["title"] == "t"
    outer = schema["$defs"]["Outer"]
    assert outer["properties"] == {
        "count": {"type": "integer"},
        "share": {"anyOf": [{"type": "number"}, {"type": "null"}]},
        "flags": {"type": "array", "items": {"type": "boolean"}},
        "named": {"type": "object", "additionalProperties": {"$ref": "#/$defs/Inner"}},
        "anything": {},
        "kind": {"enum": ["a", "b"]},
        "later": {"type": "string"},
    }
    assert outer["required"] == ["count", "share", "flags", "named", "anything", "kind"]


def test_only_the_closed_types_refuse_other_keys():
    definitions = json_schema.schema(Outer, (Outer,))["$defs"]
    assert definitions["Outer"]["additionalProperties"] is False
    assert definitions["Inner"]["additionalProperties"] is True
    assert definitions["Inner"]["description"] == "An inner object."


def test_an_annotation_without_a_json_form_is_refused():
    class Odd(TypedDict):
        when: complex

    with pytest.raises(TypeError, match="complex"):
        json_schema.schema(Odd)
