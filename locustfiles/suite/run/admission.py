"""What both ways of starting a run do before Locust runs it: the command line
(``python -m locustfiles.suite.run``, run/cli.py) and make run's start form (run/start_form.py).
A run is admitted once its settings, plan, thresholds, learners' mix and readings hosts are
checked, with the same messages for both; the form hands the plan it checked to the run
(KeptRun.take), while the command line's Locust, another process, builds it again from the same
settings with the same parser."""

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from common.environment import get, given
from locustfiles.suite import profiles
from locustfiles.suite.core import catalogue, learner_settings, thresholds
from locustfiles.suite.core.names import START_FILE
from locustfiles.suite.core.plan import Plan
from locustfiles.suite.core.settings import RunSettings
from locustfiles.suite.record.hosts import parse_hosts
from locustfiles.suite.tools import preload

# Seconds a stopping Locust lets each user end the journey it is on, whichever way it started.
STOP_TIMEOUT = 30


@dataclass(frozen=True)
class Admitted:
    """A run that may start: its settings and plan, the purchases to preload (None: none) and
    the Locust workers to start (0: the local runner)."""

    settings: RunSettings
    plan: Plan
    preload: int | None
    workers: int


def admit(profile: str, env: dict) -> Admitted:
    """``profile``'s run in ``env``, checked before anything starts; a ValueError (SettingError
    among them) names what is refused."""
    settings = catalogue.get(profile).run_settings(env)
    plan = profiles.get(profile).plan(env)
    thresholds.parse(given("THRESHOLDS", env) or "")
    learner_settings.load_settings(env, open_model=catalogue.get(profile).open_model)
    parse_hosts(get("READINGS_HOSTS", env))
    return Admitted(settings, plan, settings.whole("PRELOAD"), settings.whole("WORKERS") or 0)


def service_config(running: dict, host: dict) -> dict:
    """What the report records about the configuration under test: the services' settings as
    they run (the stack resolves them, defaults included), and the learners' course choice."""
    config = {key.lower(): value for key, value in running.items() if value}
    config["courses_bought"] = given("COURSES") or running.get("CATALOG_COURSES") or get("COURSES")
    config["host_profile"] = host.get("name") or "this machine"
    if host.get("name"):
        config["host_vcpus"] = host["vcpus"]
        config["ecommerce_workers"] = host["ecommerce_workers"]
        config["pinned_cpus"] = host["pinned_cpus"] or host["note"]
    return config


def preload_up_to(total: int, running: dict, env: dict) -> None:
    """Both databases filled as ``total`` purchases would, over the running stack's courses."""
    courses = int(running.get("CATALOG_COURSES") or get("CATALOG_COURSES", env))
    preload.preload(total, courses, preload.BATCH, env=env)


def database_at_start(env: dict, run_dir: Path, size_mb: float) -> None:
    """What the run started on, into its folder (START_FILE) for the report: the size on disk
    (read before Locust started) and the purchases preloaded, which both services are asked
    for while Locust starts (each answer takes a Django start; the run's own purchases are
    not counted among them). Without an answer the report says it was not recorded."""
    try:
        state = preload.status(env)
    except (SystemExit, OSError, ValueError) as exc:
        print(f"the database at start was not recorded: {exc}", file=sys.stderr)
        return
    found = {"preloaded_purchases": min(half["done"] for half in state.values()), "size_mb": size_mb}
    partial = run_dir / (START_FILE + ".part")
    partial.write_text(json.dumps(found))
    partial.rename(run_dir / START_FILE)
