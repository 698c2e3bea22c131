"""junit.xml from synthetic runs judged by the real verdict, read back with junitparser, a JUnit
reader as CI systems use."""

from junitparser import Error, Failure, JUnitXml, Skipped

from locustfiles.suite import profiles, report
from locustfiles.suite.core import thresholds
from locustfiles.suite.report import junit
from locustfiles.suite.run import summary as run_summary
from tests.loadsuite import synthetic


def judged(profile="ramp", env=None, rules="", extra=None, audit=None):
    """A synthetic run of ``profile``, its audit replaced by ``audit``, judged as a run is."""
    p, recorder, _, _ = synthetic.recorded(profile, env)
    summary = synthetic.summary_for(p, recorder, extra)
    summary["audit"].update(audit or {})
    summary["verdict"] = run_summary.verdict(summary, profiles.get(profile), thresholds.parse(rules))
    return summary


def read(summary, folder):
    """The run folder's junit.xml as a JUnit reader finds it: its one suite and its cases by name."""
    folder.mkdir(parents=True, exist_ok=True)
    junit.write(summary, folder)
    (suite,) = JUnitXml.fromfile(str(folder / "junit.xml"))
    return suite, {case.name: case for case in suite}


def outcome(case):
    (result,) = case.result
    return type(result), result.message


def test_a_passing_run_is_a_suite_of_passed_cases_with_their_figures(tmp_path):
    summary = judged(rules="p95<5000 errors<0.5")
    report.write(summary, tmp_path)
    suite, cases = read(summary, tmp_path)
    assert (suite.tests, suite.failures, suite.errors, suite.skipped) == (3, 0, 0, 0)
    assert suite.name == "load run: ramp" and suite.timestamp == summary["started"]
    assert set(cases) == {"p95<5000 (whole run)", "errors<0.5 (whole run)", "audit: nothing lost"}
    assert all(case.is_passed for case in cases.values())
    assert cases["p95<5000 (whole run)"].classname == "loadrun.ramp.thresholds"
    assert (
        cases["p95<5000 (whole run)"].system_out
        == f"p95<5000 (whole run): measured {summary['overall']['p95']}"
    )
    assert "lost 0, duplicates 0" in cases["audit: nothing lost"].system_out


def test_a_failing_run_fails_each_broken_check_with_what_was_measured(tmp_path):
    summary = judged(rules="p95<50 errors<0.5", audit={"lost": 2, "answered_numbers": 1, "passed": False})
    assert not summary["verdict"]["passed"]
    report.write(summary, tmp_path)
    suite, cases = read(summary, tmp_path)
    assert (suite.tests, suite.failures, suite.errors) == (3, 2, 0)
    p95 = summary["overall"]["p95"]
    assert outcome(cases["p95<50 (whole run)"]) == (Failure, f"p95<50 (whole run): measured {p95}")
    assert cases["errors<0.5 (whole run)"].is_passed
    kind, message = outcome(cases["audit: nothing lost"])
    assert kind is Failure and message == "audit failed: 2 lost"
    assert "lost 2" in cases["audit: nothing lost"].result[0].text


def test_an_audit_that_could_not_run_is_an_error_never_a_pass(tmp_path):
    summary = judged(audit={"passed": False, "error": "no watermarks before the run"})
    suite, cases = read(summary, tmp_path)
    assert (suite.tests, suite.failures, suite.errors) == (1, 0, 1)
    assert outcome(cases["audit: nothing lost"]) == (
        Error,
        "the audit could not run: no watermarks before the run",
    )


def test_a_reason_no_check_shows_is_a_failed_case_and_a_bare_failure_an_error(tmp_path):
    summary = judged("profile", extra={"profiling": {"taken": False, "reason": "no ptrace", "groups": {}}})
    suite, cases = read(summary, tmp_path / "profile")
    assert (suite.tests, suite.failures) == (2, 1)
    reason = "no profile was taken: no ptrace"
    assert outcome(cases[reason]) == (Failure, reason)
    assert cases[reason].classname == "loadrun.profile.profile"

    summary["verdict"] = {"thresholds": [], "thresholds_at": "run", "passed": False, "failures": []}
    suite, cases = read(summary, tmp_path / "bare")
    assert (suite.tests, suite.errors) == (2, 1)
    assert outcome(cases["verdict"]) == (Error, "the run failed and gave no reason")


def test_a_capacity_run_skips_the_thresholds_its_broken_step_broke(tmp_path):
    env = {"RPM": "600 1200 1800", "STEP_SECONDS": "10"}
    summary = judged("capacity", env, "p95<50 errors<0.5", {"capacity_rpm": 1200})
    assert summary["verdict"]["passed"]
    suite, cases = read(summary, tmp_path)
    broke = next(r for r in reversed(summary["steps"]) if r.get("judged", True))
    place = summary["steps"].index(broke) + 1
    name = f"p95<50 (step {place}: {broke['label']})"
    assert (suite.tests, suite.failures, suite.errors, suite.skipped) == (4, 0, 0, 1)
    kind, message = outcome(cases[name])
    assert kind is Skipped and message.startswith(f"{name}: measured {broke['p95']}, at the step that broke")
    assert cases["capacity: a step held every threshold"].system_out == "capacity 1200 RPM"

    summary = judged("capacity", env, "p95<50", {"capacity_rpm": None})
    suite, cases = read(summary, tmp_path / "none held")
    assert (suite.failures, suite.skipped) == (1, 1)
    assert outcome(cases["capacity: a step held every threshold"]) == (Failure, "no step held the thresholds")


def test_overload_checks_accepted_purchases_and_what_refusals_left(tmp_path):
    overload = {"overload": {"orders_left_by_refusals": 3}}
    summary = judged("overload", {"RPM": "600", "DURATION": "20"}, "p95<50", overload)
    assert summary["verdict"]["failures"][-1] == {
        "kind": "overload",
        "about": None,
        "text": "3 orders committed for purchases that were not answered 2xx",
    }
    suite, cases = read(summary, tmp_path)
    left = cases["overload: refusals left no committed order"]
    assert outcome(left) == (Failure, summary["verdict"]["failures"][-1]["text"])
    assert not [name for name in cases if name.startswith("3 orders")]  # shown once, by its check
    assert cases["p95<50 (whole run)"].result[0].message.startswith("p95<50 (whole run): measured")


def test_each_chaos_fault_is_a_case_failed_with_the_checks_it_broke(tmp_path):
    p, recorder, _, _ = synthetic.recorded()
    summary = {**synthetic.summary_for(p, recorder), "profile": "chaos"}
    first, second = summary["steps"][:2]

    def fault(row, name, lost):
        checks = [
            {"check": "nothing lost", "ok": lost == 0, "detail": str(lost)},
            {"check": "recovered", "ok": True, "detail": "2.5"},
        ]
        return {"index": row["index"], "fault": name, "checks": checks, "passed": lost == 0}

    summary["reliability"] = [fault(first, "lms_down", 0), fault(second, "db_restart", 4)]
    summary["verdict"] = run_summary.verdict(summary, profiles.get("chaos"), [])
    assert summary["verdict"]["failures"] == [
        {"kind": "fault", "about": "db_restart", "text": "db_restart: nothing lost"}
    ]
    suite, cases = read(summary, tmp_path)
    assert (suite.tests, suite.failures) == (3, 1)
    held = cases[f"fault lms_down (step 1: {first['label']})"]
    assert held.is_passed and "nothing lost: ok (0)" in held.system_out
    broke = cases[f"fault db_restart (step 2: {second['label']})"]
    assert outcome(broke) == (Failure, "db_restart: nothing lost (4)")
    assert broke.classname == "loadrun.chaos.chaos"


def test_a_failures_kind_not_its_words_decides_which_case_shows_it(tmp_path):
    """A client's failure worded like a broken threshold is the client's own case; a fault's
    failure is claimed by that fault's case alone, whatever its words."""
    client = {"failures": 0, "free_purchases": 1}
    summary = judged("edx2015", {"USERS": "3", "DURATION": "30"}, "p95<50", {"client": client})
    p95 = summary["overall"]["p95"]
    summary["verdict"]["failures"] = [
        {"kind": "client", "about": None, "text": "thresholds failed: the client's own words"},
        {"kind": "thresholds", "about": None, "text": "p95 too slow, in other words"},
    ]
    suite, cases = read(summary, tmp_path / "client")
    assert (suite.tests, suite.failures) == (3, 2)
    own = cases["thresholds failed: the client's own words"]
    assert outcome(own) == (Failure, "thresholds failed: the client's own words")
    assert own.classname == "loadrun.edx2015.edx2015"
    assert outcome(cases["p95<50 (whole run)"]) == (Failure, f"p95<50 (whole run): measured {p95}")
    assert "p95 too slow, in other words" not in cases  # claimed by the threshold's case

    p, recorder, _, _ = synthetic.recorded()
    summary = {**synthetic.summary_for(p, recorder), "profile": "chaos"}
    first = summary["steps"][0]
    summary["reliability"] = [{"index": first["index"], "fault": "lms_down", "passed": False, "checks": []}]
    summary["verdict"] = run_summary.verdict(summary, profiles.get("chaos"), [])
    summary["verdict"]["failures"] = [
        {"kind": "fault", "about": "db_restart", "text": "lms_down: the words of another fault"},
        {"kind": "fault", "about": "lms_down", "text": "lost orders"},
    ]
    suite, cases = read(summary, tmp_path / "chaos")
    assert set(cases) == {
        f"fault lms_down (step 1: {first['label']})",
        "audit: nothing lost",
        "lms_down: the words of another fault",
    }
