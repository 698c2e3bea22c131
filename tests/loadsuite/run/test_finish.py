"""The end of a run in the process that keeps the results (run/finish.py), without Locust: what
it reads from the databases, and in which order."""

from types import SimpleNamespace

import pytest

from locustfiles.suite.run import finish
from tests.loadsuite import synthetic


class Stopped(Exception):
    """Raised where the test has seen what it looks at: the rest of the run's end is not made."""


def test_the_services_statements_are_read_before_the_suites_own_work_on_their_databases(monkeypatch):
    """Chaos's retries and the audit's look-ups run the services' management commands, in the
    services' schemas: performance_schema's digests cannot tell their statements from the
    requests', so the run's statements are read before either starts. The machine is
    calibrated in between: as soon as the load is over, before the settling and the audit add
    work of their own."""
    done = []
    plan, recorder, _, _ = synthetic.recorded()
    digests_before = {"ecommerce:1": {"count": 1}}

    def statements(before):
        assert before is digests_before
        done.append("statements")
        return {"top": [], "no_index": [], "background": [], "slow_query_seconds": 1.0}

    def stop(run):
        raise Stopped

    run = SimpleNamespace(
        plan=plan,
        recorder=recorder,
        readings={},
        begun=990.0,
        t0=1000.0,
        digests_before=digests_before,
        env={},
        calibrated_before=None,
        sampler=SimpleNamespace(statements=statements),
        # (a client's purchase endpoints: the learners' settings are not read)
        profile=SimpleNamespace(settle=lambda _: done.append("settle") or {}, purchase_endpoints=("x",)),
    )
    monkeypatch.setattr(finish, "audited_counts", lambda run, successes: done.append("audit") or {})
    monkeypatch.setattr(finish.calibration, "attempt", lambda env: done.append("calibration") or "not taken")
    monkeypatch.setattr(finish, "configuration", stop)  # read right after: the order is settled by then
    with pytest.raises(Stopped):
        finish.summarise(run, 1100.0)
    assert done == ["statements", "calibration", "settle", "audit"]
