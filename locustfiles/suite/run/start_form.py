"""make run's start form, in the process that keeps the results: Start with a profile picked
(core/start_form.py's fields) runs it as `make <profile>` with the same values would. The
values are checked as the command line checks them (run/admission.py), so a bad one is refused
in the form with the message `make <profile>` prints; Locust's /swarm answers that refusal as
JSON, which its form shows. A good start sets the next test up: the profile's plan and
thresholds on the run object (KeptRun.take), the learners' classes for its environment (open
model: ArrivingLearner; closed: Learner), and the profile's load shape (none for manual, whose
users are the form's). A profile with a client of its own (edx2015) runs that client's users
instead, its locustfile imported afresh under the run's environment (users/fresh_locustfile.py),
with the listener that records its purchases' order numbers for the audit from the Start until
that test stops (make run's learners record their own). PRELOAD fills the databases before the
test starts, as on the command line; every run of make run's web UI gets what the command line
gives its folder: the database it started on and Locust's CSVs.
"""

import functools
import json
import os

import gevent
from flask import jsonify, request
from locust.runners import STATE_RUNNING, STATE_SPAWNING, MasterRunner
from locust.stats import PERCENTILES_TO_REPORT, StatsCSVFileWriter

from locustfiles.suite.core import catalogue
from locustfiles.suite.core import start_form as fields
from locustfiles.suite.core.learner_settings import load_settings
from locustfiles.suite.core.plan import Plan
from locustfiles.suite.run import admission
from locustfiles.suite.run.control import SWARM
from locustfiles.suite.run.session import logger
from locustfiles.suite.stack import services
from locustfiles.suite.stack.commands import ROOT
from locustfiles.suite.tools import preload
from locustfiles.suite.users import edx2015_orders
from locustfiles.suite.users.fresh_locustfile import FreshLocustfile
from locustfiles.suite.users.shape import SuiteShape
from locustfiles.suite.verdict import facts


class FormShape(SuiteShape):
    """A profile's shape started from the form. Common options stay on so that Locust keeps the
    users and ramp-up fields in the form for a later manual run."""

    use_common_options = True


class StartForm:
    def __init__(self, run, learners):
        self.run = run  # the KeptRun of this process
        self.learners = learners  # env -> (closed model's user class, open model's)
        self.started: dict | None = None  # the environment of the run the form set up
        self.own_stop_timeout = run.environment.stop_timeout  # make run's, for a manual run
        self.csv: LocustCsv | None = None
        self.client = FreshLocustfile("EDX2015_LOCUSTFILE")  # edx2015's: the 2015 client
        self.recording = None  # the client's order-number listener, while its run is set up

    def attach(self, web_ui) -> None:
        # The page's script (run/static/suite-ui.js) shows the picked profile's fields only.
        web_ui.template_args["suite_fields"] = fields.read_by()
        app = web_ui.app
        # The page hands Locust's form its fields through Jinja's tojson, which sorts them by name
        # unless told otherwise: unsorted, the profile comes first, the rest in the form's order.
        app.jinja_env.policies["json.dumps_kwargs"] = {"sort_keys": False}
        app.before_request(self.before_swarm)
        # After the run's own listeners: its folder exists at the start, its report is written
        # at the stop.
        self.run.environment.events.test_start.add_listener(self.on_test_start)
        self.run.environment.events.test_stop.add_listener(self.on_test_stop)

    def before_swarm(self):
        """A refusal answered as Locust's /swarm answers one; None lets Locust start the test."""
        # The form's fields are named as the make variables, in capitals; so is a misspelt one,
        # which the form refuses naming the nearest (run/control.py leaves it to the form).
        if request.method != "POST" or request.endpoint != SWARM:
            return None
        if not any(name.isupper() for name in request.form):
            return None
        refusal = self.start(request.form)
        if refusal is None:
            return None
        return jsonify({"success": False, "message": refusal, "host": self.run.environment.host})

    def start(self, form) -> str | None:
        """Set the next test up as the form asks; or why it cannot start."""
        wanted = form.get("PROFILE") or fields.MANUAL
        refusal = self.refusal(wanted)
        if refusal is not None:
            return refusal
        try:  # a name the form does not have is refused even while a run is under way
            profile, env = fields.run_environment(os.environ, form)
        except ValueError as exc:
            return str(exc)
        if self.run.runner.state in (STATE_SPAWNING, STATE_RUNNING):
            return None  # the form changes the users of the manual run under way
        try:
            admitted = admission.admit(profile, env)
            users = self.users(catalogue.get(profile), env)
        except ValueError as exc:
            return str(exc)
        settings_of = functools.partial(load_settings, open_model=catalogue.get(profile).open_model)
        if isinstance(self.run.runner, MasterRunner) and settings_of(env) != settings_of(os.environ):
            return "the learners of a distributed web UI take their settings from the workers' environment"
        refusal = self.prepare(env, admitted.preload)
        if refusal is None:
            self.set_up(profile, env, users, admitted.plan)
        return refusal

    def users(self, profile: catalogue.Profile, env: dict) -> list:
        """The user classes of ``profile``'s run in ``env``: its own client's, or the learners."""
        client = profile.client_locustfile(env)
        if client:
            return self.client.user_classes(ROOT / client, env)
        closed, arriving = self.learners(env)
        return [arriving if profile.open_model else closed]

    def prepare(self, env: dict, preload_to: int | None) -> str | None:
        """What the command line does before Locust starts: the configuration under test for the
        report, and the databases preloaded; why the run cannot start, if it cannot."""
        running = services.running_settings(env)
        env["SUITE_CONFIG"] = json.dumps(admission.service_config(running, {}))
        if preload_to:
            try:
                admission.preload_up_to(preload_to, running, env)
            except (SystemExit, OSError) as exc:  # preload's own words; the batches written stay
                return f"PRELOAD could not fill the databases: {exc}"
        return None

    def set_up(self, profile: str, env: dict, users: list, plan: Plan) -> None:
        """The next test is ``profile``'s run in ``env`` by ``plan`` (admitted: run/admission.py),
        with ``users`` and the profile's shape."""
        self.started = env
        self.run.take(profile, env, plan)
        environment = self.run.environment
        environment.user_classes = users
        self.stop_recording()
        if catalogue.get(profile).client_locustfile(env):
            self.recording = edx2015_orders.recorder(environment)
            environment.events.request.add_listener(self.recording)
        if profile == fields.MANUAL:
            environment.shape_class, environment.stop_timeout = None, self.own_stop_timeout
        else:  # as the command line starts Locust for a profile
            environment.shape_class, environment.stop_timeout = FormShape(), admission.STOP_TIMEOUT
            environment.shape_class.runner = self.run.runner

    def refusal(self, wanted: str) -> str | None:
        """Why ``wanted`` cannot start now, if it cannot."""
        current = self.run.profile.name
        if self.run.runner.state in (STATE_SPAWNING, STATE_RUNNING):
            if wanted == current == fields.MANUAL:
                return None
            return f"a {current} run is under way: stop it before starting another"
        if self.run.t0 is not None:  # stopped, its report not written yet
            return f"the {current} run that just stopped is still writing its report: start again in a moment"
        if isinstance(self.run.runner, MasterRunner) and wanted != fields.MANUAL:
            return (
                f"a distributed web UI runs the manual profile only (its workers loaded make run's "
                f"learners): use make {wanted} WORKERS=N"
            )
        return None

    def on_test_start(self, environment, **_):
        """Into the run's folder, as the command line has them: Locust's CSVs, and the database
        the form's run started on, read beside the load, whose first step starts on the next
        whole second (a database this process cannot read leaves it unrecorded, as the report
        then says)."""
        if self.run.run_dir is None:
            return
        self.csv = LocustCsv(environment, self.run.run_dir)
        if self.started is not None:
            gevent.spawn(database_at_start, self.started, self.run.run_dir)
        self.started = None

    def on_test_stop(self, environment, **_):
        self.stop_recording()
        if self.csv is not None:
            self.csv.close()
            self.csv = None

    def stop_recording(self) -> None:
        """No more order numbers from the client's listener (its run stopped, or another is set up)."""
        if self.recording is not None:
            self.run.environment.events.request.remove_listener(self.recording)
            self.recording = None


class LocustCsv:
    """Locust's CSVs of one run, as ``--csv <run folder>/locust`` writes them for a make target
    (make run's Locust has one web UI for many runs): written every second from the test's
    start until its report is written, then closed."""

    def __init__(self, environment, run_dir):
        self.writer = StatsCSVFileWriter(environment, PERCENTILES_TO_REPORT, str(run_dir / "locust"))
        self.greenlet = gevent.spawn(self.writer.stats_writer)

    def close(self) -> None:
        self.greenlet.kill(block=True)
        self.writer.close_files()


def database_at_start(env: dict, run_dir) -> None:
    try:
        size_mb = round(preload.tablespace_bytes(facts.databases()) / 2**20, 1)
    except Exception as exc:  # no database this process can read (a deployed Locust master)
        logger.warning(f"the database at start was not recorded: {exc}")
        return
    admission.database_at_start(env, run_dir, size_mb)
