"""The findings about CPU: spare CPU on the whole machine, a machine shared with other work,
and the run's CPU per purchase."""

from locustfiles.suite.figures import cpu
from locustfiles.suite.verdict import findings
from tests.loadsuite import synthetic


def test_findings_judge_spare_cpu_on_the_whole_machine():
    # ecommerce 70 % + lms_stub 20 + mariadb 9 + rollup 1 + Locust 40 = 140 % at 3 users
    quiet = findings.findings(synthetic.cpu_summary(machine_cpu=150.0))
    (busiest,) = [f for f in quiet if f["text"].startswith("The busiest server process")]
    assert busiest == {
        "level": "info",
        "text": "The busiest server process was ecommerce: 70 % of one core at 3 users; the machine's "
        "2 cores were 75 % busy then (the stack with Locust 70 %, everything else 5 %), so 25 % of the "
        "host's CPU was to spare.",
    }
    # The stack alone would look fine (70 %); something else on the machine takes the rest.
    full = findings.findings(synthetic.cpu_summary(machine_cpu=190.0))
    (busiest,) = [f for f in full if f["text"].startswith("The busiest server process")]
    assert busiest["level"] == "warning"
    assert "were 95 % busy then (the stack with Locust 70 %, everything else 25 %)" in busiest["text"]
    assert busiest["text"].endswith("so the host's CPU was nearly full.")


def test_a_machine_shared_with_other_work_is_a_warning():
    # At 1 user the stack and Locust use 120 % of one core: the machine's 190 % leaves 70 %.
    (said,) = [
        f
        for f in findings.findings(synthetic.cpu_summary(machine_cpu=190.0))
        if "shared the machine" in f["text"]
    ]
    assert said == {
        "level": "warning",
        "text": "Processes outside the stack and Locust used 35 % of the machine's CPU at 1 user (70 % of "
        "one core: the kernel's own work, a profiler or another job): the run shared the machine, and "
        "its response times may show it.",
    }
    # 150 %: at most 30 % of one core, 15 % of the machine, is the kernel's share of a run.
    assert not [
        f
        for f in findings.findings(synthetic.cpu_summary(machine_cpu=150.0))
        if "shared the machine" in f["text"]
    ]
    assert not [
        f
        for f in findings.findings(synthetic.cpu_summary(machine_cpu=None))
        if "shared the machine" in f["text"]
    ]


def test_a_finding_gives_the_runs_cpu_per_purchase():
    planted = synthetic.cpu_summary()
    f = planted["cpu_ms_per_purchase"]
    (said,) = [t["text"] for t in findings.findings(planted) if "ms of CPU per purchase" in t["text"]]
    assert said == (
        f"The services spent {f['services']:g} ms of CPU per purchase (ecommerce {f['ecommerce']:g}, "
        f"lms_stub {f['lms_stub']:g}, mariadb {f['mariadb']:g}, rollup {f['rollup']:g}); Locust "
        f"{f['locust']:g} ms, the whole machine {f['machine']:g} ms, over "
        f"{planted['cpu_accounting']['purchases']} free and 0 paid purchases."
    )
    planted["cpu_ms_per_purchase"] = dict.fromkeys(cpu.KEYS)
    assert "No CPU per purchase: the run completed no purchase in its steps." in [
        t["text"] for t in findings.findings(planted) if t["level"] == "warning"
    ]
