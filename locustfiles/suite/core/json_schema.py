"""A JSON Schema (draft 2020-12) from TypedDict annotations: the few forms core/summary.py
uses (TypedDict, list, dict with string keys, ``X | None``, str, int, float, bool, Any, and a
``Literal`` of strings, which becomes an enum). Each TypedDict becomes one entry of ``$defs``;
its NotRequired keys are left out of ``required``; those named ``closed`` refuse keys they do
not list."""

import types
import typing
from typing import Any, is_typeddict

DRAFT = "https://json-schema.org/draft/2020-12/schema"
SCALARS = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null"}


def schema(root: type, closed: tuple[type, ...] = (), **header: str) -> dict:
    """The schema of ``root`` (a TypedDict), with ``header`` ($id, title...) on top."""
    definitions: dict[str, dict] = {}
    reference = _type(root, definitions, closed)
    return {"$schema": DRAFT, **header, **reference, "$defs": dict(sorted(definitions.items()))}


def _type(annotation: Any, definitions: dict[str, dict], closed: tuple[type, ...]) -> dict:
    if annotation is Any:
        return {}
    if annotation in SCALARS:
        return {"type": SCALARS[annotation]}
    if is_typeddict(annotation):
        return _reference(annotation, definitions, closed)
    origin, arguments = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is list:
        return {"type": "array", "items": _type(arguments[0], definitions, closed)}
    if origin is dict and arguments[0] is str:
        return {"type": "object", "additionalProperties": _type(arguments[1], definitions, closed)}
    if origin is typing.Literal:
        return {"enum": list(arguments)}
    if origin in (typing.Union, types.UnionType):
        return {"anyOf": [_type(choice, definitions, closed) for choice in arguments]}
    raise TypeError(f"no JSON Schema for {annotation!r}")


def _reference(typed: Any, definitions: dict[str, dict], closed: tuple[type, ...]) -> dict:
    # typed is a TypedDict class: no static type names one, nor its __required_keys__.
    name = typed.__name__
    if name not in definitions:
        definitions[name] = {}  # a placeholder: a type that refers to itself stops here
        hints = typing.get_type_hints(typed)
        definitions[name] = {
            "type": "object",
            **({"description": " ".join(typed.__doc__.split())} if typed.__doc__ else {}),
            "properties": {key: _type(hint, definitions, closed) for key, hint in hints.items()},
            "required": [key for key in hints if key in typed.__required_keys__],
            "additionalProperties": typed not in closed,
        }
    return {"$ref": f"#/$defs/{name}"}
