"""Reading a JSON request body strictly, the same way in both services.

UTF-8 only; no NaN or Infinity (Python's json accepts them, no other client produces them);
no lone surrogate escapes such as "\\ud800" (valid JSON syntax, but not text: I-JSON, RFC 7493,
forbids them, and neither MySQL nor the UTF-8 encoder of an answer can take one); and nesting
deeper than Python's recursion limit refused like any other malformed body instead of failing
the request with a RecursionError.

Plain Python: no Django, so the LMS stand-in and the order service share it.
"""

import json


class NotJson(ValueError):
    """The body is not JSON this API accepts; the message says why."""


def loads(raw: bytes):
    try:
        return _checked(json.loads(raw.decode("utf-8"), parse_constant=_reject_constant))
    except RecursionError:
        raise NotJson("it is nested too deeply") from None
    except NotJson:
        raise
    except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError
        raise NotJson(str(exc)) from None


def is_text(value: str) -> bool:
    """Whether ``value`` can be written as UTF-8 (no lone surrogates)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _checked(data):
    """``data``, if no key or string in it holds a lone surrogate. Iterative: a document just
    under the parser's nesting limit must not exhaust the stack here."""
    pending = [data]
    while pending:
        value = pending.pop()
        if isinstance(value, str):
            if not is_text(value):
                raise NotJson("it holds a lone surrogate escape (\\ud800-\\udfff), which is not text")
        elif isinstance(value, dict):
            pending.extend(value.keys())
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
    return data


def _reject_constant(name: str):
    raise NotJson(f"{name} is not JSON")
