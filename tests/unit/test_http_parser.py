"""Both services parse requests with gunicorn_h1c's C parser unless told otherwise
(``<PREFIX>_HTTP_PARSER``), and a parser that cannot be had stops gunicorn before it starts."""

import sys

import pytest
from gunicorn.config import Config
from gunicorn.http import message

from common.environment import BadSetting
from settings import gunicorn_common


def gunicorn_config(values: dict) -> Config:
    config = Config()
    for name in ("http_parser", "worker_class"):
        config.set(name, values[name])
    return config


@pytest.fixture(autouse=True)
def fresh_parser_check(monkeypatch):
    """gunicorn remembers whether gunicorn_h1c imports; each test finds out anew."""
    monkeypatch.setattr(message, "_fast_parser_available", None)
    monkeypatch.setattr(message, "_fast_parser_module", None)


@pytest.mark.parametrize("service, prefix", [("ecommerce", "ECOMMERCE"), ("lms_stub", "LMS")])
def test_by_default_gunicorn_parses_with_the_c_parser(monkeypatch, tmp_path, service, prefix):
    monkeypatch.setenv("VAR_DIR", str(tmp_path))
    monkeypatch.delenv(f"{prefix}_HTTP_PARSER", raising=False)
    values = gunicorn_common.service_config(service, prefix)
    assert values["http_parser"] == "fast"
    assert message._check_fast_parser(gunicorn_config(values)) is True  # gunicorn's own decision


def test_python_is_gunicorns_own_parser(monkeypatch, tmp_path):
    monkeypatch.setenv("VAR_DIR", str(tmp_path))
    monkeypatch.setenv("LMS_HTTP_PARSER", "python")
    values = gunicorn_common.service_config("lms_stub", "LMS")
    assert values["http_parser"] == "python"
    assert message._check_fast_parser(gunicorn_config(values)) is False


def test_an_unknown_parser_is_refused_by_name(monkeypatch):
    monkeypatch.setenv("ECOMMERCE_HTTP_PARSER", "auto")
    with pytest.raises(BadSetting, match="ECOMMERCE_HTTP_PARSER must be one of fast, python, not 'auto'"):
        gunicorn_common.http_parser("ECOMMERCE")


def test_the_c_parser_missing_stops_the_configuration_not_the_first_request(monkeypatch):
    monkeypatch.delenv("LMS_HTTP_PARSER", raising=False)
    monkeypatch.setitem(sys.modules, "gunicorn_h1c", None)  # import fails as if not installed
    with pytest.raises(BadSetting, match="LMS_HTTP_PARSER=fast needs the gunicorn_h1c package"):
        gunicorn_common.http_parser("LMS")
