"""Wiring the suite into Locust. Importing this module registers two listeners; everything
else hangs off ``environment.suite``, the run object (loadrun.LoadRun) that the init event
creates, the way Locust's own runner and stats hang off the environment. The locustfiles do
it through ``locustfiles.suite.profile``.
"""

import os

from locust import events

from locustfiles.suite.loadrun import LoadRun


@events.init_command_line_parser.add_listener
def _options(parser):
    # Sizes, thresholds and the profile come from the environment (the make variables), the
    # same in every Locust process; only the report's folder is an option.
    parser.add_argument("--suite-run-dir", default="", include_in_web_ui=False, help="where the report goes")


@events.init.add_listener
def _init(environment, **_):
    if environment.parsed_options is None:  # locust used as a library without our options
        return
    environment.suite = LoadRun(environment, os.environ.get("PROFILE", "manual"), os.environ)
    environment.suite.attach()
