"""CPU per purchase in the report (its table and definition, the resources table) and in the
terminal's line, in ms and, for a calibrated run, in calibration units."""

from common import calibration
from locustfiles.suite import report
from locustfiles.suite.core import blocks
from locustfiles.suite.figures import cpu
from locustfiles.suite.report import terminal
from locustfiles.suite.report.sections import machine
from tests.loadsuite import synthetic


def test_the_report_has_a_cpu_per_purchase_table_with_its_definition(tmp_path):
    planted = synthetic.cpu_summary()
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
    planted = synthetic.cpu_summary(machine_cpu=None)
    for row in planted["steps"]:
        for key in ("cpu_ms", "cpu_ms_per_purchase", "purchases", "other_cpu_percent"):
            row.pop(key)
    del planted["cpu_ms_per_purchase"], planted["cpu_accounting"]
    report.write(planted, tmp_path)
    text = (tmp_path / "report.md").read_text()
    assert "## CPU per purchase" not in text and "CPU % machine" not in text
    assert "CPU per purchase" not in "\n".join(terminal.lines(planted))


def test_the_terminal_prints_the_runs_cpu_per_purchase_in_one_line():
    planted = synthetic.cpu_summary()
    f = planted["cpu_ms_per_purchase"]
    (line,) = [x for x in terminal.lines(planted) if x.startswith("CPU per purchase")]
    assert line == (
        f"CPU per purchase: services {f['services']:g} ms = ecommerce {f['ecommerce']:g} + lms_stub "
        f"{f['lms_stub']:g} + mariadb {f['mariadb']:g} + rollup {f['rollup']:g}; Locust {f['locust']:g}, "
        f"other {f['other']:g}, machine {f['machine']:g} "
        f"({planted['cpu_accounting']['purchases']} free + 0 paid purchases)"
    )


def test_the_resources_section_shows_each_workers_cpu_per_step():
    rows = [
        {
            "index": 0,
            "label": "600 RPM",
            "worker_cpu_percent": {"ecommerce": [60.0, 10.0], "lms_stub": [30.5]},
        },
        {"index": 1, "label": "900 RPM"},  # not read
    ]
    found = machine.per_worker(rows)
    assert found["headers"] == ["step", "ecommerce workers, CPU % each", "lms_stub workers, CPU % each"]
    assert [[c["text"] for c in row] for row in found["rows"]] == [
        ["600 RPM", "60 / 10", "30.5"],
        ["900 RPM", "–", "–"],
    ]
    assert machine.per_worker([{"index": 0, "label": "1 user"}]) is None
    # Counted: each worker's requests beside its CPU, in the same order.
    rows[0]["worker_requests"] = {"ecommerce": [5120, None], "lms_stub": [880]}
    found = machine.per_worker(rows)
    assert found["headers"] == [
        "step",
        "ecommerce workers, CPU % each",
        "ecommerce workers, requests each",
        "lms_stub workers, CPU % each",
        "lms_stub workers, requests each",
    ]
    assert [[c["text"] for c in row] for row in found["rows"]] == [
        ["600 RPM", "60 / 10", "5,120 / ?", "30.5", "880"],
        ["900 RPM", "–", "–", "–", "–"],
    ]


def test_a_calibrated_runs_cpu_is_also_given_in_cal_in_the_report_and_the_terminal(tmp_path):
    planted = synthetic.calibrated(synthetic.cpu_summary(), 4.0, 4.4)
    in_cal = planted["cpu_cal_per_purchase"]
    report.write(planted, tmp_path)
    part = (tmp_path / "report.md").read_text().split("## CPU per purchase (ms of CPU)")[1].split("\n## ")[0]
    services = planted["cpu_ms_per_purchase"]["services"]
    assert (
        f"The services spent {services:g} ms of CPU per purchase over the run: {in_cal['services']:g} cal "
        "per purchase for the services; 1 cal = 4.20 ms of CPU (4.00 ms before, 4.40 ms after: +10.0 %)."
    ) in part
    # The whole run's row again, in cal, after the ms rows; and what a cal is.
    shown = [key for key in machine.CPU_COLUMNS.values() if key != "haproxy"]
    cells = [planted["cpu_accounting"]["purchases"], *(in_cal[k] for k in shown)]
    assert "| all, in cal | " + " | ".join(blocks.fmt(c) for c in cells) + " |" in part
    assert in_cal["ecommerce"] == round(planted["cpu_ms_per_purchase"]["ecommerce"] / 4.2, 3)
    assert "all, in cal: the run's figures over the ms of the machine's calibration" in part
    lines = terminal.lines(planted)
    at = next(i for i, x in enumerate(lines) if x.startswith("CPU per purchase"))
    assert lines[at + 1] == (
        f"  in calibration units: {in_cal['services']:g} cal per purchase for the services; "
        "1 cal = 4.20 ms of CPU (4.00 ms before, 4.40 ms after: +10.0 %)"
    )


def test_a_run_whose_calibration_failed_says_why_beside_its_cpu_in_ms(tmp_path):
    planted = synthetic.cpu_summary()
    planted["calibration"] = calibration.sitting("calibration: MariaDB not reachable", None)
    planted["cpu_cal_per_purchase"] = cpu.calibrated(planted["cpu_ms_per_purchase"], planted["calibration"])
    report.write(planted, tmp_path)
    part = (tmp_path / "report.md").read_text().split("## CPU per purchase (ms of CPU)")[1].split("\n## ")[0]
    assert "over the run: no calibration (before: calibration: MariaDB not reachable)." in part
    assert "| all, in cal |" not in part
