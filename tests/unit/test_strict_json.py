"""The JSON both services accept: what json.loads would take, less NaN, lone surrogates and
nesting past the recursion limit, each refused as malformed rather than failing the request."""

import pytest

from common.strict_json import NotJson, is_text, loads


def test_ordinary_json_is_read():
    assert loads(b'{"a": [1, "\\ud83c\\udf93", null]}') == {"a": [1, "\U0001f393", None]}


@pytest.mark.parametrize(
    "raw",
    [
        b'{"a": "\\ud800"}',
        b'{"\\udfff": 1}',
        b'["ok", ["\\ud83c"]]',
        b'"\\udc00\\ud800"',
    ],
    ids=["value", "key", "nested", "reversed pair"],
)
def test_a_lone_surrogate_is_not_json(raw):
    with pytest.raises(NotJson, match="surrogate"):
        loads(raw)


@pytest.mark.parametrize("raw", [b"[" * 5000 + b"]" * 5000, b'{"a":' * 3000 + b"1" + b"}" * 3000])
def test_nesting_past_the_recursion_limit_is_not_json(raw):
    with pytest.raises(NotJson, match="nested too deeply"):
        loads(raw)


def test_nesting_just_under_the_limit_is_checked_without_recursion():
    assert loads(b"[" * 900 + b'"x"' + b"]" * 900) is not None


@pytest.mark.parametrize("raw", [b'{"a": NaN}', b"Infinity", b'{"a": "\xff"}', b"{'a': 1}"])
def test_what_json_loads_refuses_or_should_is_not_json(raw):
    with pytest.raises(NotJson):
        loads(raw)


def test_is_text():
    assert is_text("שלום e\u0301 \U0001f393 a\x00b")
    assert not is_text("a\ud800")
