"""Reading a variable: the environment's text, else its default (placeholders filled in), as its kind."""

import os
from collections.abc import Mapping

from common.environment.model import BUILTINS, PLACEHOLDER, BadSetting, UnknownVariable, Variable
from common.environment.table import VARIABLES

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


def variable(name: str) -> Variable:
    try:
        return VARIABLES[name]
    except KeyError:
        raise UnknownVariable(name) from None


def given(name: str, env: Mapping[str, str] | None = None) -> str | None:
    """``name``'s text as ``env`` (os.environ) sets it, None when unset or empty: for a reader
    whose default is not one value of the table (a profile's size, what the stack runs with)."""
    variable(name)
    return (os.environ if env is None else env).get(name) or None


def default(name: str, env: Mapping[str, str] | None = None, production: bool = False) -> str | None:
    """``name``'s default as text, its placeholders filled in from ``env`` (os.environ); with
    ``production``, its deployments' default if it has one."""
    template = variable(name).default
    if production and variable(name).production is not None:
        template = variable(name).production
    if template is None:
        return None
    return PLACEHOLDER.sub(lambda m: BUILTINS.get(m.group(1)) or raw(m.group(1), env) or "", template)


def raw(name: str, env: Mapping[str, str] | None = None, production: bool = False) -> str | None:
    """``name``'s text: the environment's if set and not empty, else the default."""
    variable(name)
    value = (os.environ if env is None else env).get(name)
    return value if value else default(name, env, production)


def _parse(name: str, kind: str, text: str):
    if kind == "str":
        return text
    if kind == "list":
        return [item.strip() for item in text.split(",") if item.strip()]
    if kind == "bool":
        word = text.strip().lower()
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
        raise BadSetting(name, f"{name} must be true or false, not {word!r}.")
    convert, description = {"int": (int, "a whole number"), "float": (float, "a number")}[kind]
    try:
        return convert(text)
    except ValueError:
        raise BadSetting(name, f"{name} must be {description}, not {text!r}.") from None


def get(name: str, env: Mapping[str, str] | None = None, production: bool = False):
    """``name``'s value as its kind (None when unset without a default). ``env`` is os.environ
    unless given (a run's or a child process's environment); ``production``: settings.production
    reads it, and a variable with a deployments' default takes that one when unset."""
    kind = variable(name).kind
    text = raw(name, env, production)
    if text is not None and kind != "str" and not text.strip():
        text = default(name, env, production)  # blanks are no number, flag or list: as if unset
    if text is None or (kind != "str" and not text.strip()):
        return [] if kind == "list" else None
    return _parse(name, kind, text)


def _typed(kind: str):
    def read(name: str, env: Mapping[str, str] | None = None, production: bool = False):
        if variable(name).kind != kind:
            raise TypeError(f"{name} is a {variable(name).kind} in the table, not a {kind}")
        return get(name, env, production)

    read.__name__ = f"env_{kind}"
    read.__doc__ = f"``name``'s value; the table must say it is a {kind}."
    return read


env_str = _typed("str")
env_int = _typed("int")
env_float = _typed("float")
env_bool = _typed("bool")
env_list = _typed("list")
