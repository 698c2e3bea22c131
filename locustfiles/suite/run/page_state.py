"""What Locust's page reads of the run's state (GET /stats/requests) is what the run is doing.

Locust's page asks for the state every 2 s while a run is under way, and stops asking once an
answer says none is: it shows its start form again, for good, whatever the run then does. Two
answers said so while a run was starting, and the page went back to its form with the run under
way (the browser test of make run's own Start, on a fresh root and then here):
* Locust keeps its answer for 2 s (memoize, in its locust/util/cache.py): a Start within 2 s of
  the page's load read the "ready" kept from before it. After a change, the next answer is new.
* Locust fires test_start before the runner leaves "ready" (runners.py, start), and the suite's
  listener (run/keeper.py) calibrates the machine there for about a second, its statements
  letting the web server answer meanwhile. From an accepted Start until the runner moves on
  (its users spawned, or the test stopped), another change (a stop) or START_SECONDS, the
  answer says "spawning", which the run is; and an answer Locust kept from before a change of
  state says the state as it is now.
"""

import json
import time

from flask import Response, request
from locust.runners import STATE_INIT, STATE_SPAWNING, STATE_STOPPED

from locustfiles.suite.run.control import READS, SWARM

STATE = "locust.request_stats"  # GET /stats/requests: the state and figures the page polls
START_SECONDS = 60.0  # a start's listeners (the calibration, the first readings) take seconds
IDLE = (STATE_INIT, STATE_STOPPED)


class PageState:
    """The answers of ``web_ui`` (Locust's WebUI) about its run's state, kept true from a Start."""

    def __init__(self, web_ui):
        self.web_ui = web_ui
        self.forget = getattr(web_ui.app.view_functions.get(STATE), "clear_cache", None)
        self.starting_since: float | None = None

    def attach(self) -> None:
        self.web_ui.app.after_request(self.after)
        # The runner moved on, whether or not the page asked meanwhile (a shape's short run
        # ends before the next poll).
        events = self.web_ui.environment.events
        events.spawning_complete.add_listener(self.started)
        events.test_stop.add_listener(self.started)

    def started(self, **_) -> None:
        self.starting_since = None

    def after(self, response: Response) -> Response:
        if request.method not in READS and response.status_code < 400:
            if self.forget is not None:
                self.forget()
            # A start begins the window; any other change (a stop above all) ends it.
            starting = request.endpoint == SWARM and accepted(response) and self.state() in IDLE
            self.starting_since = time.monotonic() if starting else None
        elif request.endpoint == STATE:
            return self.current(response)
        return response

    def state(self) -> str:
        return self.web_ui.environment.runner.state

    def current(self, response: Response) -> Response:
        """The answer with the state as it is now: Locust's kept answer may be older than a
        change of state (one kept while a start was under way said "ready" once it ran)."""
        state = self.state()
        if self.starting_since is not None:
            if state in IDLE and time.monotonic() - self.starting_since <= START_SECONDS:
                state = STATE_SPAWNING
            else:
                self.starting_since = None
        answer = response.get_json(silent=True)
        if not isinstance(answer, dict) or answer.get("state") in (None, state):
            return response
        # A new answer: the one Locust keeps is left as it was made.
        return Response(
            json.dumps({**answer, "state": state}), status=response.status_code, headers=response.headers
        )


def accepted(response: Response) -> bool:
    """Whether /swarm took the start (a refusal is answered 200 too: decision 0089)."""
    answer = response.get_json(silent=True)
    return isinstance(answer, dict) and answer.get("success") is True
