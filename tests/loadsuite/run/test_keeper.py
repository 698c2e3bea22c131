"""The end of a run in the process that keeps the results (run/keeper.py), without Locust: what
it reads from the databases, and in which order."""

from types import SimpleNamespace

import pytest

from locustfiles.suite.run.keeper import KeptRun
from tests.loadsuite import synthetic


class Stopped(Exception):
    """Raised where the test has seen what it looks at: the rest of the run's end is not made."""


def test_the_services_statements_are_read_before_the_suites_own_work_on_their_databases():
    """Chaos's retries and the audit's look-ups run the services' management commands, in the
    services' schemas: performance_schema's digests cannot tell their statements from the
    requests', so the run's statements are read before either starts."""
    done = []
    run = object.__new__(KeptRun)  # the end of a run only: no Locust environment
    run.plan, run.recorder, _, _ = synthetic.recorded()
    run.readings, run.begun, run.t0 = {}, 990.0, 1000.0
    run.digests_before = {"ecommerce:1": {"count": 1}}

    def statements(before):
        assert before is run.digests_before
        done.append("statements")
        return {"top": [], "no_index": [], "background": [], "slow_query_seconds": 1.0}

    def stop():
        raise Stopped

    run.sampler = SimpleNamespace(statements=statements)
    # (a client's purchase endpoints: the learners' settings are not read)
    run.profile = SimpleNamespace(settle=lambda _: done.append("settle") or {}, purchase_endpoints=("x",))
    run._audit = lambda successes: done.append("audit") or {}
    run._config = stop  # read right after: the order is settled by then
    with pytest.raises(Stopped):
        run.finish(1100.0)
    assert done == ["statements", "settle", "audit"]
