"""Issue 44: the security review's reproductions, rerun as written against make run's real
Locust web UI (locustfiles/buy_seat.py in a process of its own, over HTTP), each refused: a
start posted from another origin, hidden options that would write files anywhere, names
echoed as HTML; and with WEB_LOGIN=true nothing answers before the login. No stack is needed:
nothing may start, and the UI's host is a closed port."""

import json
import os
import stat
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from tests.support.servers import free_port
from tests.support.stack import LocustWebUI

CLOSED = "http://127.0.0.1:9"  # the load would go there, were it started
FORM = {"user_count": "1", "spawn_rate": "1", "host": CLOSED}


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


OPENER = urllib.request.build_opener(NoRedirect)


def call(url: str, form: dict | None = None, headers: dict | None = None) -> tuple[int, dict, str]:
    """(status, headers, body) of one request, whatever its status; a POST when ``form``."""
    data = urllib.parse.urlencode(form).encode() if form is not None else None
    request = urllib.request.Request(url, data=data, headers=headers or {})
    try:
        with OPENER.open(request, timeout=10) as answer:
            return answer.status, dict(answer.headers), answer.read().decode()
    except urllib.error.HTTPError as answer:
        return answer.code, dict(answer.headers), answer.read().decode()


def web_ui(var: Path, **extra: str) -> LocustWebUI:
    env = {
        **os.environ,
        "LOCUST_PORT": str(free_port()),
        "VAR_DIR": str(var),
        "LMS_URL": CLOSED,
        "WEB_LOGIN": "false",
        **extra,
    }
    env.pop("WEB_LOGIN_PASSWORD_FILE", None)  # the table's: under VAR_DIR
    ui = LocustWebUI(env)
    ui.wait_ready()
    return ui


@pytest.fixture(scope="module")
def ui(tmp_path_factory):
    made = web_ui(tmp_path_factory.mktemp("var"))
    yield made
    made.stop()


def state(ui: LocustWebUI) -> tuple[str, int]:
    stats = json.loads(call(ui.url + "/stats/requests")[2])
    return stats["state"], stats["user_count"]


def test_a_start_posted_from_another_origin_is_refused_and_nothing_runs(ui):
    """Review, 1: curl -X POST :PORT/swarm -H 'Origin: https://evil.example' ... was 200, the
    run under way 3 s later, Access-Control-Allow-Origin: https://evil.example."""
    status, headers, body = call(ui.url + "/swarm", FORM, {"Origin": "https://evil.example"})
    assert status == 403 and headers["Content-Type"] == "application/json"
    assert json.loads(body)["success"] is False
    assert headers["Access-Control-Allow-Origin"] == ui.url
    time.sleep(3)
    assert state(ui) == ("ready", 0)


def test_hidden_options_are_refused_and_no_folder_is_made(ui, tmp_path):
    """Review, 2: suite_run_dir=/elsewhere/chosen&json_file=/elsewhere/j/stats wrote a run
    folder and Locust's JSON outside var/runs."""
    elsewhere = tmp_path / "elsewhere"
    hidden = {"suite_run_dir": str(elsewhere / "chosen"), "json_file": str(elsewhere / "j/stats")}
    status, _, body = call(ui.url + "/swarm", {**FORM, **hidden})
    assert status == 400 and json.loads(body)["message"].startswith("suite_run_dir: /swarm does not take it")
    for name in ("json_file", "html_file", "csv_prefix", "headless"):
        status, _, body = call(ui.url + "/swarm", {**FORM, name: str(elsewhere / name)})
        assert status == 400 and json.loads(body)["message"].startswith(f"{name}: "), body
    time.sleep(1)
    assert not elsewhere.exists() and state(ui) == ("ready", 0)


def test_a_misspelt_setting_is_refused_naming_the_nearest(ui):
    status, _, body = call(ui.url + "/swarm", {**FORM, "PROFILE": "smoke", "RMP": "5"})
    assert status == 200 and json.loads(body) == {
        "success": False,
        "message": "RMP: no such setting; did you mean RPM?",
        "host": CLOSED,
    }
    assert state(ui) == ("ready", 0)


@pytest.mark.parametrize(
    "path, status",
    [
        ("/suite/compare?a=" + urllib.parse.quote("<script>alert(1)</script>"), 400),
        ("/suite/runs/" + urllib.parse.quote("<img src=x onerror=alert(1)>") + "/report.html", 404),
    ],
)
def test_a_name_is_echoed_as_text_never_as_html(ui, path, status):
    """Review, 4: both echoed the name into a text/html body."""
    got, headers, body = call(ui.url + path)
    assert got == status and headers["Content-Type"].startswith("text/plain")
    assert headers["X-Content-Type-Options"] == "nosniff" and "<" in body


def test_with_web_login_nothing_answers_before_the_login(tmp_path):
    ui = web_ui(tmp_path, WEB_LOGIN="true")
    try:
        secret = tmp_path / "locust-web-password"
        assert stat.S_IMODE(secret.stat().st_mode) == 0o600
        status, headers, _ = call(ui.url + "/")
        assert status == 302 and headers["Location"].startswith("/login")
        assert call(ui.url + "/suite/runs")[0] == 302
        assert call(ui.url + "/swarm", FORM)[0] == 401
        assert str(secret) in ui.log() and secret.read_text() not in ui.log()
    finally:
        ui.stop()
