"""The end of a test in the process that keeps the results: read what the run left (the
services' statements first, then the machine's calibration, the profile's settling, the audit,
the profile's own reading), summarise and judge it (run/summary.py). ``run`` is the keeper
(run/keeper.py); report.write and the exit code are its own."""

import json

from common import calibration
from common.environment import given
from locustfiles.suite.core.learner_settings import mix_settings
from locustfiles.suite.core.names import START_FILE
from locustfiles.suite.core.summary import Summary
from locustfiles.suite.record import provenance
from locustfiles.suite.run import summary as summaries
from locustfiles.suite.stack import services
from locustfiles.suite.verdict import audit


def summarise(run, finished: float) -> Summary:
    """Read and audit what the run left, then summarise and judge it."""
    recorded = summaries.Recorded(run.plan, run.recorder, run.readings, run.begun, run.t0, finished)
    # The services' statements, read first: chaos's retries and the audit's look-ups run the
    # services' own commands in their schemas, which the digests cannot tell from requests.
    sql = run.sampler.statements(run.digests_before)
    # As soon as the load is over, before the settling and the audit add work of their own.
    calibrated = calibration.sitting(run.calibrated_before, calibration.attempt(run.env))
    settled = run.profile.settle(run)  # before the audit: chaos retries what it left
    audited = audited_counts(run, summaries.successes(run.profile, run.recorder))
    # The learners' configured mix, beside the measured one (edX's client has its own).
    weights = None if run.profile.purchase_endpoints else mix_settings(run.env)["weights"]
    read = summaries.Read(
        configuration(run),
        run.started_from,
        load(run),
        weights,
        settled,
        audited,
        sql,
        behind_balancer=bool(run.balancer),
        profile=run.profile.read(run),  # what the profile reads after the audit
        settings=run.profile.run_settings(run.env).record(),
        calibration=calibrated,
    )
    summary = summaries.measured(run.profile, recorded, read)
    run_provenance = provenance.collect(
        run.env,
        services.running_settings(run.env),
        open_model=run.profile.open_model,
        git_at_start=run.git_at_start,
    )
    run.sampler.close()
    return summaries.judged(summary, run.profile, run.rules, run_provenance, read.profile)


def configuration(run) -> dict:
    """The stack's settings (SUITE_CONFIG) with what the run started on, when the command line
    that started it recorded that (START_FILE)."""
    config = json.loads(given("SUITE_CONFIG", run.env) or "{}")
    start = run.run_dir / START_FILE
    if start.exists():
        config["database_at_start"] = json.loads(start.read_text())
    return config


def load(run) -> dict:
    """Who made the load: Locust's host, spawn rate, workers and the hosts they ran on."""
    return {
        "host": run.environment.host,
        "spawn_rate": getattr(run.options, "spawn_rate", None),
        "locust_workers": run.locust_workers,
        "locust_hosts": dict(sorted(run.cpu.hosts.items())),
        "locust_workers_expected": run.expected_workers,
    }


def audited_counts(run, successes: int) -> dict:
    """The audit's counts (verdict/audit.py), or why it could not run: a failed audit."""
    if run.marks is None:
        return {"passed": False, "error": "no watermarks before the run", "successes": successes}
    try:
        return audit.audit(run.run_dir, run.marks, successes)
    except Exception as exc:
        return {"passed": False, "error": str(exc), "successes": successes}
