"""CPU per purchase: the arithmetic of a step's and a run's figures, what counts as a purchase,
the machine's busy time as /proc/stat gives it, and what the report, the terminal, the findings
and a comparison make of them (no Locust, no stack)."""

import os
import time

import pytest

from common import hostreadings
from locustfiles.suite import report
from locustfiles.suite.core import blocks, names
from locustfiles.suite.figures import cpu, results
from locustfiles.suite.record.sampler import COUNTERS, GAUGES, ServerSampler
from locustfiles.suite.report import compare, terminal
from locustfiles.suite.report.sections import machine
from locustfiles.suite.users import paid_journey
from locustfiles.suite.verdict import findings
from tests.loadsuite import synthetic

BASKET = names.ORDER_ENDPOINT


def step(statuses=None, paid=None, seconds=10, **readings) -> dict:
    """A step's row as results.step_rows makes it: the order endpoint's and the paid read's
    statuses (as summary.json keeps them: strings), with the readings given."""
    endpoints = {BASKET: {"statuses": {str(k): v for k, v in (statuses or {}).items()}}}
    if paid is not None:
        endpoints[paid_journey.ORDER_READ] = {"statuses": {str(k): v for k, v in paid.items()}}
    return {"seconds": seconds, "endpoints": endpoints, **readings}


READINGS = {
    "cpu_percent": {"ecommerce": 60.0, "lms_stub": 40.0, "mariadb": 20.0, "rollup": 1.0},
    "locust_cpu": {"worker-0": 30.0, "worker-1": 25.0, "master": 5.0},
    "machine_cpu_percent": 190.0,
    "reading_seconds": 10.0,
}


def test_a_steps_cpu_is_percent_times_seconds_divided_by_its_purchases():
    # 100 free purchases (201, and 202: placed, enrollment to retry) and 20 paid ones read back
    row = step({201: 90, 202: 10, 409: 5, 503: 3}, {200: 20, 404: 2}, **READINGS)

    cpu.account(row)

    assert (row["purchases"], row["purchases_by_kind"]) == (120, {"free": 100, "paid": 20})
    # % of one core x 10 s: 60 % -> 6000 ms of CPU
    assert row["cpu_ms"] == {
        "ecommerce": 6000.0,
        "lms_stub": 4000.0,
        "mariadb": 2000.0,
        "rollup": 100.0,
        "haproxy": None,  # no load balancer was read
        "services": 12100.0,
        "locust": 6000.0,  # all three Locust processes
        "machine": 19000.0,
        "other": 900.0,  # 19000 - 12100 - 6000
    }
    assert row["cpu_ms_per_purchase"] == {
        "ecommerce": 50.0,
        "lms_stub": 33.33,
        "mariadb": 16.67,
        "rollup": 0.83,
        "haproxy": None,  # no load balancer was read
        "services": 100.83,
        "locust": 50.0,
        "machine": 158.33,
        "other": 7.5,
    }
    assert row["other_cpu_percent"] == 9.0


def test_a_step_without_a_purchase_has_no_figure_rather_than_a_division_by_zero():
    row = step({503: 40}, {404: 3}, **READINGS)
    cpu.account(row)
    assert row["purchases"] == 0
    assert row["cpu_ms"]["services"] == 12100.0  # the CPU was spent all the same
    assert row["cpu_ms_per_purchase"] == dict.fromkeys(cpu.KEYS)


def test_the_cpu_is_over_the_readings_seconds_when_known_else_the_steps():
    # The last step's reading runs until the run stopped: 12 s, not the step's 10.
    row = step({201: 10}, seconds=10, cpu_percent=dict.fromkeys(cpu.SERVICES, 10.0), reading_seconds=12.0)
    cpu.account(row)
    assert row["cpu_ms"]["ecommerce"] == 1200.0
    # A summary from before the reading's length was recorded: the step's length.
    row = step({201: 10}, seconds=10, cpu_percent=dict.fromkeys(cpu.SERVICES, 10.0))
    cpu.account(row)
    assert row["cpu_ms"]["ecommerce"] == 1000.0
    # Neither Locust nor the machine read: those keys are None, the services still add up.
    assert (row["cpu_ms"]["locust"], row["cpu_ms"]["machine"], row["cpu_ms"]["other"]) == (None, None, None)
    assert row["cpu_ms"]["services"] == 4000.0 and row["cpu_ms_per_purchase"]["services"] == 400.0


def test_a_step_without_readings_has_no_cpu():
    row = step({201: 10})
    cpu.account(row)
    assert row["cpu_ms"] == dict.fromkeys(cpu.KEYS) and row["cpu_ms_per_purchase"] == dict.fromkeys(cpu.KEYS)


def test_a_profiles_purchase_endpoints_count_their_2xx_answers():
    """edX's client: the LMS's free purchase, and the processor's notification for a paid one."""
    row = {
        "seconds": 10,
        "endpoints": {
            names.FREE_PURCHASE: {"statuses": {"201": 30, "409": 1}},
            names.PAID_PURCHASE: {"statuses": {"200": 2, "400": 1}},
            paid_journey.ORDER_READ: {"statuses": {"200": 99}},  # not a purchase for this client
        },
    }
    assert cpu.purchases(row, names.PURCHASES) == {"free": 30, "paid": 2}
    assert cpu.purchases(row) == {"free": 30, "paid": 99}


def test_the_steps_purchases_add_up_to_the_runs_answered_purchases():
    """Per step, the same purchases as results.successes counts for the whole run."""
    p, recorder, _, _ = synthetic.recorded(reads=0)
    start = recorder.t0 + 12  # the second step
    for status in (200, 200, 404):
        recorder.request(paid_journey.ORDER_READ, start, 10, status == 200, status)
    recorder.fold_local()
    rows = results.step_rows(p, recorder.steps, {})
    assert sum(cpu.purchases(r)["paid"] for r in rows) == 2
    total = sum(sum(cpu.purchases(r).values()) for r in rows)
    assert total == results.successes(recorder.steps, recorder.outside_plan)


def test_the_runs_figures_sum_the_steps_cpu_and_purchases():
    first = step({201: 100}, **READINGS)
    second = step({201: 50}, {200: 10}, **{**READINGS, "machine_cpu_percent": 200.0})
    for row in (first, second):
        cpu.account(row)

    run = cpu.run_accounting([first, second], {"buy": 50, "pay": 1, "read": 5})

    assert run["purchases"] == 160 and run["seconds"] == 20.0
    assert run["mix"] == {"free": 150, "paid": 10, "buy_weight": 50, "pay_weight": 1}
    assert run["cpu_ms"]["services"] == 24200.0 and run["cpu_ms"]["machine"] == 39000.0
    assert run["cpu_ms_per_purchase"]["services"] == round(24200 / 160, 2)
    services = sum(run["cpu_ms"][group] for group in cpu.SERVICES)
    assert run["cpu_ms"]["services"] == pytest.approx(services)
    # The machine not read in one step: the run's machine figure is unknown, not a part of it.
    del second["machine_cpu_percent"]
    cpu.account(second)
    run = cpu.run_accounting([first, second])
    assert run["cpu_ms"]["machine"] is None and run["cpu_ms_per_purchase"]["machine"] is None
    assert "buy_weight" not in run["mix"]
    assert cpu.run_accounting([])["cpu_ms_per_purchase"] == dict.fromkeys(cpu.KEYS)


def test_proc_stat_busy_time_leaves_out_idle_iowait_and_the_guests_counted_twice():
    text = "cpu  10 1 5 100 7 2 3 4 9 9\ncpu0 5 0 2 50 3 1 1 2 4 4\nintr 1 2 3\n"
    assert hostreadings.busy_ticks(text) == 10 + 1 + 5 + 2 + 3 + 4
    with pytest.raises(ValueError):
        hostreadings.busy_ticks("intr 1 2 3\n")
    assert hostreadings.machine_busy_seconds("/nonexistent/stat") is None


def test_the_machines_busy_time_read_from_proc_stat_counts_this_process():
    with open(cpu.PROC_STAT) as handle:
        ticks = hostreadings.busy_ticks(handle.read())
    uptime = float(open("/proc/uptime").read().split()[0])
    assert 0 < ticks / os.sysconf("SC_CLK_TCK") <= uptime * os.cpu_count() * 1.01

    before, own = hostreadings.machine_busy_seconds(), time.process_time()
    while time.process_time() - own < 0.5:  # half a second of this process's CPU
        pass
    burned = time.process_time() - own
    assert hostreadings.machine_busy_seconds() - before >= 0.8 * burned  # a tick's rounding or two


def test_a_reading_gives_the_machines_cpu_and_its_seconds(tmp_path):
    status = {name: 0 for name in (*COUNTERS, *GAUGES)}
    before = {"time": 100.0, "cpu": {"ecommerce": {1: 1.0}}, "machine": 5000.0, "rss": {}, "status": status}
    after = {"time": 110.0, "cpu": {"ecommerce": {1: 4.0}}, "machine": 5016.5, "rss": {}, "status": status}
    reading = ServerSampler(tmp_path, ("x",)).reading(before, after)
    assert reading["cpu_percent"] == {"ecommerce": 30.0}
    assert (reading["machine_cpu_percent"], reading["reading_seconds"]) == (165.0, 10.0)
    after["machine"] = None  # no /proc/stat
    assert ServerSampler(tmp_path, ("x",)).reading(before, after)["machine_cpu_percent"] is None


def summary(machine_cpu=150.0, **kwargs):
    p, recorder, _, log = synthetic.recorded(reads=kwargs.pop("reads", 0))
    return synthetic.summary_for(p, recorder, log=log, machine_cpu=machine_cpu, **kwargs)


def test_the_report_has_a_cpu_per_purchase_table_with_its_definition(tmp_path):
    planted = summary()
    report.write(planted, tmp_path)
    text = (tmp_path / "report.md").read_text()
    part = text.split("## CPU per purchase (ms of CPU)")[1].split("\n## ")[0]
    services = planted["cpu_ms_per_purchase"]["services"]
    assert f"The services spent {services:g} ms of CPU per purchase over the run." in part
    assert (
        "| step | purchases | ecommerce | lms_stub | mariadb | rollup | services | Locust | other | machine |"
        in part
    )
    first = planted["steps"][0]
    figures = first["cpu_ms_per_purchase"]
    # No load balancer was read: no haproxy column.
    shown = [key for key in machine.CPU_COLUMNS.values() if key != "haproxy"]
    cells = [first["purchases"], *(figures[k] for k in shown)]
    assert "| 1 user | " + " | ".join(blocks.fmt(c) for c in cells) + " |" in part
    assert f"| all | {planted['cpu_accounting']['purchases']} |" in part
    assert "A purchase is one the learners completed in the step" in part
    assert "per purchase of the run's mix. This run's mix:" in part
    assert "(BUY_WEIGHT 50 : PAY_WEIGHT 1)" in part
    # The resources table: the machine beside the groups, and what "other" is.
    resources = text.split("## Server resources per step")[1].split("\n## ")[0]
    assert (
        "| step | CPU % ecommerce | CPU % lms_stub | CPU % mariadb | CPU % rollup | CPU % Locust | "
        in resources
    )
    assert "| CPU % other | CPU % machine |" in resources
    assert f"| 1 user | 50 | 20 | 9 | 1 | 40 | {first['other_cpu_percent']:g} | 150 |" in resources
    assert "out of 200 % for its 2 cores" in resources
    assert (tmp_path / "resources.png").stat().st_size > 0


def test_a_summary_from_before_the_accounting_has_no_cpu_section(tmp_path):
    planted = summary(machine_cpu=None)
    for row in planted["steps"]:
        for key in ("cpu_ms", "cpu_ms_per_purchase", "purchases", "other_cpu_percent"):
            row.pop(key)
    del planted["cpu_ms_per_purchase"], planted["cpu_accounting"]
    report.write(planted, tmp_path)
    text = (tmp_path / "report.md").read_text()
    assert "## CPU per purchase" not in text and "CPU % machine" not in text
    assert "CPU per purchase" not in "\n".join(terminal.lines(planted))


def test_the_terminal_prints_the_runs_cpu_per_purchase_in_one_line():
    planted = summary()
    f = planted["cpu_ms_per_purchase"]
    (line,) = [x for x in terminal.lines(planted) if x.startswith("CPU per purchase")]
    assert line == (
        f"CPU per purchase: services {f['services']:g} ms = ecommerce {f['ecommerce']:g} + lms_stub "
        f"{f['lms_stub']:g} + mariadb {f['mariadb']:g} + rollup {f['rollup']:g}; Locust {f['locust']:g}, "
        f"other {f['other']:g}, machine {f['machine']:g} "
        f"({planted['cpu_accounting']['purchases']} free + 0 paid purchases)"
    )


def test_findings_judge_spare_cpu_on_the_whole_machine():
    # ecommerce 70 % + lms_stub 20 + mariadb 9 + rollup 1 + Locust 40 = 140 % at 3 users
    quiet = findings.findings(summary(machine_cpu=150.0))
    (busiest,) = [f for f in quiet if f["text"].startswith("The busiest server process")]
    assert busiest == {
        "level": "info",
        "text": "The busiest server process was ecommerce: 70 % of one core at 3 users; the machine's "
        "2 cores were 75 % busy then (the stack with Locust 70 %, everything else 5 %), so 25 % of the "
        "host's CPU was to spare.",
    }
    # The stack alone would look fine (70 %); something else on the machine takes the rest.
    full = findings.findings(summary(machine_cpu=190.0))
    (busiest,) = [f for f in full if f["text"].startswith("The busiest server process")]
    assert busiest["level"] == "warning"
    assert "were 95 % busy then (the stack with Locust 70 %, everything else 25 %)" in busiest["text"]
    assert busiest["text"].endswith("so the host's CPU was nearly full.")


def test_a_machine_shared_with_other_work_is_a_warning():
    # At 1 user the stack and Locust use 120 % of one core: the machine's 190 % leaves 70 %.
    (said,) = [f for f in findings.findings(summary(machine_cpu=190.0)) if "shared the machine" in f["text"]]
    assert said == {
        "level": "warning",
        "text": "Processes outside the stack and Locust used 35 % of the machine's CPU at 1 user (70 % of "
        "one core: the kernel's own work, a profiler or another job): the run shared the machine, and "
        "its response times may show it.",
    }
    # 150 %: at most 30 % of one core, 15 % of the machine, is the kernel's share of a run.
    assert not [f for f in findings.findings(summary(machine_cpu=150.0)) if "shared the machine" in f["text"]]
    assert not [f for f in findings.findings(summary(machine_cpu=None)) if "shared the machine" in f["text"]]


def test_a_finding_gives_the_runs_cpu_per_purchase():
    planted = summary()
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


def test_compare_shows_cpu_per_purchase_a_against_b_when_both_have_it():
    a, b = summary(), summary()
    b["cpu_ms_per_purchase"] = {
        **a["cpu_ms_per_purchase"],
        "ecommerce": a["cpu_ms_per_purchase"]["ecommerce"] / 2,
    }
    result = compare.compare(a, b)
    ecommerce = result["cpu_ms_per_purchase"]["ecommerce"]
    assert ecommerce["significant"] and ecommerce["pct"] == -50.0
    assert not result["cpu_ms_per_purchase"]["lms_stub"]["significant"]
    text = compare.markdown(result, "a", "b")
    assert "CPU ms per purchase, the whole run" in text
    assert (
        f"| {a['cpu_ms_per_purchase']['ecommerce']:g} → {ecommerce['b']:g} (" in text
        and " %) **!** |" in text
    )

    del a["cpu_ms_per_purchase"]
    result = compare.compare(a, b)
    assert result["cpu_ms_per_purchase"] is None
    assert "CPU per purchase: not compared (not measured in both runs)." in compare.markdown(result, "a", "b")
