"""Wiring the suite into Locust: what every locustfile imports. Importing this module
registers two listeners; everything else hangs off ``environment.suite``, the run object the
init event creates, the way Locust's own runner and stats hang off the environment. A profile's
locustfile takes its shape from ``use("ramp")``, which makes "ramp" the profile unless PROFILE
says otherwise.

The run object is the role's class, as Locust's runner is, which Locust knows only once its
runner exists: a worker's (session.WorkerRun) records and sends, and imports nothing that
reports; the process that keeps the results makes a roles.LocalRun (the local runner) or a
roles.MasterRun, and only then imports the reporting stack (Jinja2, matplotlib, numpy).
"""

import functools
import os

from locust import events
from locust.runners import MasterRunner, WorkerRunner

from common.environment import BadSetting, env_bool, given
from locustfiles.suite.core import start_form
from locustfiles.suite.run.session import WorkerRun
from locustfiles.suite.users.shape import SuiteShape


def use(profile: str) -> type[SuiteShape]:
    os.environ.setdefault("PROFILE", profile)
    return SuiteShape


def offer_profiles(learners) -> None:
    """Let the web UI's start form pick any profile (run/start_form.py); ``learners(env)`` gives
    the (closed model, open model) user classes for a run's environment. The locustfile calls it
    as Locust imports it, before the parser and the environment are made: the form's fields
    join the parser, and the run object is made with the learners (no state kept here)."""
    events.init_command_line_parser.add_listener(form_options)
    events.init.remove_listener(_init)
    events.init.add_listener(functools.partial(_init, learners=learners))


@events.init_command_line_parser.add_listener
def _options(parser):
    # Sizes, thresholds and the profile come from the environment (the make variables), the
    # same in every Locust process; only the report's folder is an option. make run's start
    # form posts them too, as fields of its own (below).
    parser.add_argument("--suite-run-dir", default="", include_in_web_ui=False, help="where the report goes")
    # WEB_LOGIN=true: Locust's --web-login, for every web UI of the suite (run/control.py).
    try:
        parser.set_defaults(web_login=bool(env_bool("WEB_LOGIN")))
    except BadSetting as exc:
        parser.error(str(exc))


def form_options(parser) -> None:
    """The start form's fields (make run's, offer_profiles): named as the make variables, read
    from the form only (run/start_form.py), never from this command line."""
    for field in start_form.fields(os.environ):
        parser.add_argument(
            f"--suite-form-{field.name.lower().replace('_', '-')}",
            dest=field.name,
            default=field.default,
            choices=field.choices,
            help=field.help,
            include_in_web_ui=True,
        )


@events.init.add_listener
def _init(environment, learners=None, **_):
    if environment.parsed_options is None:  # locust used as a library without our options
        return
    profile = given("PROFILE") or "manual"
    if isinstance(environment.runner, WorkerRunner):
        environment.suite = WorkerRun(environment, profile, os.environ)
    else:
        # Imported here, in the process that keeps the results only: a Locust worker never
        # loads the reports (pyproject.toml names this file's exception to PLC0415).
        from locustfiles.suite.run import control, page_state
        from locustfiles.suite.run.roles import LocalRun, MasterRun

        if environment.web_ui:  # first: nothing reaches it that its operator did not send
            control.ControlPlane(environment.web_ui, form_names_settings=bool(learners)).attach()
            page_state.PageState(environment.web_ui).attach()
        role = MasterRun if isinstance(environment.runner, MasterRunner) else LocalRun
        environment.suite = role(environment, profile, os.environ, learners)
    environment.suite.attach()
