"""Issue 44: the web UI answers its operator only (run/control.py), on Locust's own WebUI (its
Flask app, its routes, its runner) driven through Flask's test client: a request from another
origin changes nothing, CORS names the UI's own origin only, /swarm takes only the fields the
page offers, every answer forbids framing, and with the login nothing but the login page
answers before it."""

import os
import sys
from types import SimpleNamespace

import gevent
import pytest
from locust import User, argument_parser, constant, events, task
from locust.env import Environment
from locust.event import Events
from locust.runners import STATE_INIT, STATE_RUNNING, STATE_SPAWNING, STATE_STOPPED

from locustfiles.suite.core import start_form
from locustfiles.suite.run import control, hooks, page_state
from locustfiles.suite.run.session import LoadRun

OWN = "http://localhost"  # Flask's test client addresses localhost
START = {"user_count": "1", "spawn_rate": "1", "host": "http://127.0.0.1:9"}
# What a browser says of a request posted by a page of another origin, as Chromium sends it.
FOREIGN = {
    "another site": {"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"},
    "another local port": {"Origin": "http://localhost:8000", "Sec-Fetch-Site": "same-site"},
    "an origin it hides": {"Origin": "null"},
    "only a referer": {"Referer": "https://evil.example/page.html"},
    "only its fetch metadata": {"Sec-Fetch-Site": "cross-site"},
}
CHANGES = [("/swarm", START), ("/stop", {}), ("/stats/reset", {}), ("/user", None)]


class Idle(User):
    wait_time = constant(60)

    @task
    def rest(self):
        pass


@pytest.fixture
def make_ui(monkeypatch, tmp_path):
    """make_ui(login=False, host="127.0.0.1"): (environment, Flask test client) of a Locust web
    UI with make run's form fields, the control plane attached; never served on a port."""
    monkeypatch.setattr(sys, "argv", ["locust"])  # Locust reads the page's parameters from it
    # The form's fields join Locust's parser, as offer_profiles has them join (make run's).
    events.init_command_line_parser.add_listener(hooks.form_options)
    monkeypatch.setenv("WEB_LOGIN_PASSWORD_FILE", str(tmp_path / "password"))
    made = []

    def make(login: bool = False, host: str = "127.0.0.1"):
        options = argument_parser.get_parser().parse_args([])
        environment = Environment(user_classes=[Idle], events=Events(), parsed_options=options)
        environment.create_local_runner()
        made.append(environment)
        web_ui = environment.create_web_ui(host, 0, web_login=login, delayed_start=True)
        control.ControlPlane(web_ui, form_names_settings=True).attach()
        page_state.PageState(web_ui).attach()  # as run/hooks.py attaches both
        return environment, web_ui.app.test_client()

    yield make
    events.init_command_line_parser.remove_listener(hooks.form_options)
    for environment in made:
        environment.runner.quit()


def post(client, path: str, form: dict | None, headers: dict):
    if form is None:  # Locust's /user takes JSON
        return client.post(path, json={"user_class_name": "Idle"}, headers=headers)
    return client.post(path, data=form, headers=headers)


@pytest.mark.parametrize("said", FOREIGN.values(), ids=FOREIGN.keys())
def test_a_page_of_another_origin_starts_stops_resets_and_changes_nothing(make_ui, said):
    environment, client = make_ui()
    options = dict(vars(environment.parsed_options))
    for path, form in CHANGES:
        answer = post(client, path, form, said)
        assert answer.status_code == 403, path
        assert answer.json["success"] is False and "only the web UI's own page" in answer.json["message"]
        assert answer.headers["Access-Control-Allow-Origin"] == OWN  # the browser keeps it from the page
    assert environment.runner.state == STATE_INIT and environment.runner.user_count == 0
    assert environment.host is None and vars(environment.parsed_options) == options


def test_the_uis_own_page_starts_and_stops_a_run(make_ui):
    environment, client = make_ui()
    own = {"Origin": OWN, "Sec-Fetch-Site": "same-origin", "Referer": OWN + "/"}
    started = client.post("/swarm", data=START, headers=own)
    assert started.status_code == 200 and started.json["success"], started.json
    assert environment.host == START["host"]
    assert client.post("/stop", headers=own).status_code == 200
    assert environment.runner.state == STATE_STOPPED


OWN_PAGE = {"Origin": OWN, "Sec-Fetch-Site": "same-origin", "Referer": OWN + "/"}


def test_the_state_read_after_a_start_or_a_stop_is_the_new_one(make_ui):
    """run/page_state.py: Locust keeps /stats/requests's answer for 2 s, and its page stops
    asking once an answer says no run is under way: a Start within 2 s of the page's load read
    the "ready" kept from before, and the page went back to its start form for good."""
    environment, client = make_ui()
    assert client.get("/stats/requests").json["state"] == STATE_INIT
    assert client.post("/swarm", data=START, headers=OWN_PAGE).json["success"]
    gevent.sleep(0.2)  # the swarm's greenlet starts the runner
    assert environment.runner.state in (STATE_SPAWNING, STATE_RUNNING)
    assert client.get("/stats/requests").json["state"] == environment.runner.state
    assert client.post("/stop", headers=OWN_PAGE).status_code == 200
    gevent.sleep(0.2)
    assert environment.runner.state == STATE_STOPPED
    assert client.get("/stats/requests").json["state"] == STATE_STOPPED


def test_a_run_whose_start_takes_a_while_is_said_to_be_spawning_meanwhile(make_ui):
    """Locust fires test_start before its runner leaves "ready", and the suite's listener takes
    about a second there (the calibration): an answer meanwhile said "ready", and the page went
    back to its start form for good while the run went on."""
    environment, client = make_ui()
    seen = []

    def slow_start(**_):
        seen.append(client.get("/stats/requests").json["state"])  # the page asking meanwhile
        gevent.sleep(0.3)
        seen.append(client.get("/stats/requests").json["state"])

    environment.events.test_start.add_listener(slow_start)
    refused = client.post("/swarm", data={**START, "user_count": "x"}, headers=OWN_PAGE)
    assert refused.status_code == 400 or refused.json["success"] is False
    assert client.get("/stats/requests").json["state"] == STATE_INIT  # a refused start: none
    assert client.post("/swarm", data=START, headers=OWN_PAGE).json["success"]
    assert client.get("/stats/requests").json["state"] == STATE_SPAWNING  # accepted, not begun
    gevent.sleep(0.6)
    assert seen == [STATE_SPAWNING, STATE_SPAWNING]
    assert environment.runner.state in (STATE_SPAWNING, STATE_RUNNING)
    assert client.get("/stats/requests").json["state"] == environment.runner.state


def test_a_run_that_ended_unseen_is_said_to_be_stopped(make_ui):
    """A shape's short run (edx2015's from the form) started and stopped between two polls:
    the answer after it said "spawning" still, the window of its start never closed."""
    environment, client = make_ui()
    assert client.post("/swarm", data=START, headers=OWN_PAGE).json["success"]
    gevent.sleep(0.3)  # it runs, and no one asks
    environment.runner.stop()  # as its shape stops it
    assert environment.runner.state == STATE_STOPPED
    assert client.get("/stats/requests").json["state"] == STATE_STOPPED


def test_a_stop_while_the_start_takes_a_while_is_said_to_be_stopped(make_ui):
    environment, client = make_ui()
    environment.events.test_start.add_listener(lambda **_: gevent.sleep(0.5))
    assert client.post("/swarm", data=START, headers=OWN_PAGE).json["success"]
    gevent.sleep(0.1)  # its listeners under way
    assert client.get("/stats/requests").json["state"] == STATE_SPAWNING
    assert client.post("/stop", headers=OWN_PAGE).status_code == 200
    assert environment.runner.state == STATE_STOPPED
    assert client.get("/stats/requests").json["state"] == STATE_STOPPED


def test_a_client_that_is_no_browser_is_the_operators(make_ui):
    """curl, the tests: no Origin, no Referer, no fetch metadata. Behind the login with one."""
    environment, client = make_ui()
    assert client.post("/swarm", data=START).json["success"]
    assert client.post("/stop").status_code == 200


def test_cors_answers_for_the_uis_own_origin_only(make_ui):
    _, client = make_ui()
    read = client.get("/stats/requests", headers={"Origin": "https://evil.example"})
    assert read.headers["Access-Control-Allow-Origin"] == OWN and "Origin" in read.headers["Vary"]
    asked = {
        "Origin": "https://evil.example",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Private-Network": "true",
    }
    preflight = client.options("/swarm", headers=asked)
    assert preflight.headers["Access-Control-Allow-Origin"] == OWN
    assert "Access-Control-Allow-Private-Network" not in preflight.headers


def test_a_request_to_a_name_that_is_not_this_machines_is_refused(make_ui):
    """A page whose name was made to resolve to 127.0.0.1 (DNS rebinding) reads nothing."""
    _, client = make_ui()
    assert client.get("/stats/requests", base_url="http://evil.example:8089").status_code == 403
    for name in ("http://localhost:8089", "http://127.0.0.1:8089", "http://[::1]:8089", "http://127.0.0.1"):
        assert client.get("/stats/requests", base_url=name).status_code == 200, name


@pytest.mark.parametrize("path", ["/", "/stats/requests", "/login"])
def test_every_answer_forbids_framing_and_sniffing(make_ui, path):
    _, client = make_ui()
    answer = client.get(path)
    assert answer.headers["X-Frame-Options"] == "DENY"
    assert answer.headers["Content-Security-Policy"] == "frame-ancestors 'none'"
    assert answer.headers["X-Content-Type-Options"] == "nosniff"


def test_swarm_refuses_every_option_that_is_not_a_field_of_the_page(make_ui):
    """Locust copies any form key that names an option into the parsed options, hidden ones
    included: each of them (the run folder, --json-file, --html, --csv, --headless, ...) and a
    name that is no option are refused, naming it, and nothing changes."""
    environment, client = make_ui()
    options = dict(vars(environment.parsed_options))
    offered = {field.name for field in start_form.fields(os.environ)}
    refused = [name for name in options if name not in control.SWARM_FIELDS | offered]
    assert {"suite_run_dir", "json_file", "html_file", "csv_prefix", "headless", "web_login"} <= set(refused)
    for name in [*refused, "csv", "html"]:
        answer = client.post("/swarm", data={**START, name: "/elsewhere/chosen"})
        assert answer.status_code == 400, name
        assert answer.json["message"].startswith(f"{name}: /swarm does not take it"), name
    assert vars(environment.parsed_options) == options
    assert environment.runner.state == STATE_INIT and environment.host is None


def test_swarm_takes_locusts_standard_fields_and_the_forms_own(make_ui):
    environment, client = make_ui()
    form = {**START, "run_time": "30s", "PROFILE": "manual", "RPM": "", "COURSES": "1"}
    assert client.post("/swarm", data=form).json["success"]
    assert environment.parsed_options.COURSES == "1" and environment.parsed_options.run_time == 30


def test_where_the_start_form_picks_the_profile_swarm_refuses_locusts_own(make_ui):
    """The trial's item 2: make run's page hides Locust's "profile" (a label grouping Locust's
    test runs) and does not post it (static/suite-ui.js); posted anyway, it is refused by name,
    and nothing starts. A web UI without the start form (UI=1, a deployed master) shows it and
    takes it, as Locust does."""
    environment, client = make_ui()
    answer = client.post("/swarm", data={**START, "PROFILE": "manual", "profile": "smoke"})
    assert answer.status_code == 400
    assert answer.json["message"].startswith("profile: /swarm does not take it")
    assert environment.runner.state == STATE_INIT and environment.profile is None
    plain = control.ControlPlane(
        SimpleNamespace(template_args={}, web_login=False), form_names_settings=False
    )
    assert plain.refused_field({**START, "run_time": "", "profile": "a label"}) is None


def test_a_misspelt_setting_is_left_to_the_start_form_which_names_the_nearest():
    plane = control.ControlPlane(SimpleNamespace(template_args={}, web_login=False), form_names_settings=True)
    assert plane.refused_field({"RMP": "5", "user_count": "1"}) is None  # start_form.run_environment's
    without_form = control.ControlPlane(SimpleNamespace(template_args={}, web_login=False), False)
    assert without_form.refused_field({"RMP": "5"}) == "RMP"


def test_a_body_larger_than_any_form_is_refused_before_it_is_read(make_ui):
    environment, client = make_ui()
    answer = client.post("/swarm", data={**START, "PROFILE": "x" * (control.MAX_BODY + 1)})
    assert answer.status_code == 413 and environment.runner.state == STATE_INIT


# --- the login -------------------------------------------------------------------------------


def log_in(client, password: str):
    return client.post(
        control.LOGIN, data={"username": "operator", "password": password}, headers={"Origin": OWN}
    )


def test_with_the_login_nothing_but_the_login_page_answers_before_it(make_ui, tmp_path, caplog):
    caplog.set_level("INFO")
    environment, client = make_ui(login=True)
    secret = tmp_path / "password"
    password = secret.read_text()
    assert len(password) >= 20 and secret.stat().st_mode & 0o777 == 0o600
    assert password not in caplog.text and str(secret) in caplog.text  # its file is said, never its value

    assert client.get("/").status_code == 302 and client.get("/").location.startswith("/login")
    assert client.get("/stats/requests").status_code == 302
    assert client.get("/login").status_code == 200
    assert client.post("/swarm", data=START).status_code == 401
    assert log_in(client, "guess").location == "/login"
    assert client.get("/stats/requests").status_code == 302
    assert client.post(control.LOGIN, data={"username": "admin", "password": password}).location == "/login"

    assert log_in(client, password).location == "/"
    assert client.get("/stats/requests").status_code == 200
    cross = client.post("/swarm", data=START, headers={"Origin": "https://evil.example"})
    assert cross.status_code == 403 and environment.runner.state == STATE_INIT  # logged in or not
    assert client.post("/swarm", data=START, headers={"Origin": OWN}).json["success"]


def test_a_login_page_posted_from_another_origin_is_refused(make_ui, tmp_path):
    _, client = make_ui(login=True)
    password = (tmp_path / "password").read_text()
    forged = client.post(
        control.LOGIN,
        data={"username": "operator", "password": password},
        headers={"Origin": "https://evil.example"},
    )
    assert forged.status_code == 403 and client.get("/").status_code == 302


def test_the_password_file_is_the_owners_alone_and_kept(make_ui, tmp_path):
    secret = tmp_path / "password"
    secret.write_text("chosen-by-the-roles\n")
    secret.chmod(0o600)
    _, client = make_ui(login=True)
    assert log_in(client, "chosen-by-the-roles").location == "/"  # kept, not made again
    secret.chmod(0o640)
    with pytest.raises(SystemExit, match="may be read by others"):
        make_ui(login=True)
    secret.write_text("")
    secret.chmod(0o600)
    with pytest.raises(SystemExit, match="is empty"):
        make_ui(login=True)


@pytest.mark.parametrize("host", ["", "0.0.0.0", "10.0.0.5"])
def test_a_web_ui_beyond_this_machine_requires_the_login(make_ui, host):
    with pytest.raises(SystemExit, match="with no login"):
        make_ui(host=host)
    make_ui(login=True, host=host)  # with the login it may


def test_the_run_folders_root_is_read_once_at_the_start():
    options = SimpleNamespace(suite_run_dir="/var/runs/chosen")
    run = LoadRun(SimpleNamespace(parsed_options=options), "manual", {})
    options.suite_run_dir = "/elsewhere"  # as Locust's /swarm would write it
    assert run.run_dir_given == "/var/runs/chosen"
