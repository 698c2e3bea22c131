"""What a headless run prints when it ends: the verdict with each broken threshold (for a
capacity run, the Universal Scalability Law's predicted peak beside the measured capacity), the
per-step table, the CPU per purchase, the audit line, and for edX's 2015 client its figures
(run/cli.py prints the folder's path after them). The table is a block of the report model
(core/blocks.py), rendered as plain text."""

from collections.abc import Mapping, Sequence
from typing import Any

from locustfiles.suite.core.blocks import DASH, figure_cell, fmt, plain, table
from locustfiles.suite.core.names import ORDER_ENDPOINT
from locustfiles.suite.core.summary import THRESHOLDS_AT_BROKE_STEP, Audit, Summary
from locustfiles.suite.core.text import payment_words, plural
from locustfiles.suite.figures import results, scalability
from locustfiles.suite.figures.cpu import calibrated_words
from locustfiles.suite.report.sections import traffic

COLUMNS = (  # header, key, width
    ("step", "label", 14),
    ("users", "users", 6),
    ("target RPM", "target_rpm", 10),
    ("RPM", "rpm", 8),
    ("requests", "requests", 9),
    ("failures", "failures", 9),
    ("p50", "p50", 7),
    ("p95", "p95", 7),
    ("p99", "p99", 7),
)


SCHEDULED = ("p95 sched", 9)  # an open model's p95 from the schedule, after p95


def step_table(every: Sequence[Mapping[str, Any]]) -> dict:
    """The rows (the steps and the whole run) as a table block of the report model, marked where
    a percentile rests on too few samples; an open-model run's with its p95 from the schedule."""
    scheduled = any("from_schedule" in row for row in every)
    headers = [h for h, _, _ in COLUMNS]
    at = headers.index("p95") + 1

    def line(row: Mapping[str, Any]) -> list[dict]:
        cells = [figure_cell(row, key, None if key == "label" else "num") for _, key, _ in COLUMNS]
        return cells[:at] + [traffic.from_schedule_cell(row)] + cells[at:] if scheduled else cells

    return table(
        headers[:at] + [SCHEDULED[0]] + headers[at:] if scheduled else headers, [line(r) for r in every]
    )


def widths(block: dict) -> list[int]:
    """The terminal's least column widths for a step table (the scheduled column where it has it)."""
    least = [width for _, _, width in COLUMNS]
    if SCHEDULED[0] in block["headers"]:
        least.insert(block["headers"].index(SCHEDULED[0]), SCHEDULED[1])
    return least


def audit_line(audit: Audit) -> str:
    if audit.get("error"):
        return f"audit: could not run ({audit['error']})"
    line = (
        f"audit: {audit.get('successes')} answered 2xx, {audit.get('orders')} orders committed, "
        f"{audit.get('enrollments')} enrollments; lost {audit.get('lost')}, "
        f"duplicates {audit.get('duplicates')}, partial {audit.get('partial')}"
    )
    paid = audit.get("payments") or {}
    if paid.get("paid_orders") or paid.get("accepted") or paid.get("paid_enrollments"):
        line += (
            f"\npayments: {paid.get('paid_orders')} paid orders, {paid.get('settled')} settled; "
            f"{paid.get('accepted')} accepted, {paid.get('refund_owed')} refund owed, "
            f"{paid.get('without_order')} without order; {paid.get('enrolled_unpaid')} paid seats "
            "enrolled unpaid"
        )
    return line


def client_lines(client: dict) -> list[str]:
    """A run of edX's 2015 client (make edx2015), in the figures its acceptance asks for."""
    payments = client.get("payments")
    out = [
        f"edX 2015 client ({client['locustfile']}, task set {client['task_set']}): "
        f"{client['users']} users for {client['seconds']:g} s",
        f"  requests {client['requests']}, failures {client['failures']}, "
        f"task exceptions {client['task_exceptions']}",
        f"  purchases answered 2xx: {client['free_purchases']} free (LMS), {client['paid_purchases']} paid "
        f"(payment notifications); orders committed {client.get('orders')}, payments "
        + payment_words(payments),
    ]
    out += [f"  exception x{e['count']}: {e['message']}" for e in client.get("exception_examples", [])]
    return out


def cpu_lines(summary: Summary) -> list[str]:
    """The run's CPU ms per purchase: the services' total and split, Locust, the machine; and
    under it, for a calibrated run, the services' in calibration units."""
    figures = summary.get("cpu_ms_per_purchase")
    if not figures:
        return []
    if figures.get("services") is None:
        return [f"CPU per purchase: {DASH} (no purchase completed in the steps)"]

    def ms(key: str) -> str:
        return fmt(figures.get(key))

    mix = (summary.get("cpu_accounting") or {}).get("mix") or {}
    over = f" ({mix.get('free', 0)} free + {mix.get('paid', 0)} paid purchases)" if mix else ""
    calibrated = calibrated_words(summary)
    return [
        f"CPU per purchase: services {ms('services')} ms = ecommerce {ms('ecommerce')} + lms_stub "
        f"{ms('lms_stub')} + mariadb {ms('mariadb')} + rollup {ms('rollup')}; Locust {ms('locust')}, "
        f"other {ms('other')}, machine {ms('machine')}{over}",
        *([f"  in calibration units: {calibrated}"] if calibrated else []),
    ]


def lines(summary: Summary) -> list[str]:
    verdict = summary["verdict"]
    out = [f"verdict: {'PASS' if verdict['passed'] else 'FAIL'}"]
    out += [f"  - {failure['text']}" for failure in verdict["failures"]]
    broken = [
        f"{c['threshold']}{f' ({s})' if (s := c.get('scope')) else ''} (measured {c['value']})"
        for c in verdict["thresholds"]
        if not c["ok"]
    ]
    # A capacity run: its thresholds were judged at the step that broke above capacity.
    if verdict.get("thresholds_at") == THRESHOLDS_AT_BROKE_STEP:
        held = summary.get("capacity_rpm")
        out.append(f"capacity: {'no step' if held is None else f'{held:g} RPM'} held every threshold")
        search = summary.get("capacity_search")
        if search and (interval := search.get("interval_rpm")):
            out.append(
                f"  {interval[1]:g} RPM broke: the knee is within {search['interval_pct']:g} %"
                f" ({plural(search['probes'], 'probe')} after the climb)"
            )
        if found := summary.get("ceiling"):
            out.append(
                f"  {found['ratio']:.2f} of the machine's ceiling at that step "
                f"({found['ceiling_rpm']:g} RPM, the machine {found['machine_cpu_percent']:g} % busy "
                f"of {found['cores'] * 100} %)"
            )
            if (above := found.get("next_step")) and above.get("ratio"):
                out.append(
                    f"  {above['ratio']:.2f} of the ceiling at {above['step']}, which broke "
                    f"({above['ceiling_rpm']:g} RPM, the machine {above['machine_cpu_percent']:g} % busy)"
                )
        if broken and (row := results.broke_row(summary)):
            out.append(f"  {row.get('label')} broke {', '.join(broken)}")
        if summary.get("scalability"):
            out.append(scalability.words(summary["scalability"]))
    else:
        out += [f"  broken threshold: {b}" for b in broken]
    warm = summary.get("warm_up")
    if warm:
        out.append(
            f"warm-up (not judged, not in the table): {warm['seconds']:g} s at "
            f"{fmt(warm.get('target_rpm'))} RPM, {warm.get('requests')} requests, {warm.get('failures')} "
            f"failed, {warm.get('missed')} missed, p95 {fmt(warm.get('p95'))} ms"
        )
    out += ["", f"The order endpoint (POST {ORDER_ENDPOINT}) per step, times in ms:"]
    steps = step_table(traffic.with_whole_run(summary))
    out += plain(steps, widths(steps))
    if traffic.has_thin(traffic.with_whole_run(summary)):
        out.append(traffic.THIN_NOTE)
    if SCHEDULED[0] in steps["headers"]:
        out.append("(p95 sched: from each purchase's due time, as the arrivals were scheduled)")
    out.append("")
    out += cpu_lines(summary)
    out.append(audit_line(summary["audit"]))
    if summary.get("client"):
        out += client_lines(summary["client"])
    if summary.get("overload"):
        out += overload_lines(summary["overload"])
    return out


def overload_lines(overload: dict) -> list[str]:
    """An overload run (make overload): accepted and refused purchases, and what they left."""
    shed = ", ".join(f"{name} {n}" for name, n in overload["shed"].items()) or "none"
    return [
        f"overload: {overload['accepted']} of {overload['purchases']} purchases accepted at "
        f"{overload['achieved_rpm']} RPM (target {overload['target_rpm']}); p95 {overload['p95']} ms, "
        f"accepted purchases' p95 {overload['p95_accepted']} ms",
        f"  shed (503 overloaded): {shed}; other failures: {overload['unshed_failures']}",
        f"  orders without a 2xx answer: {overload['unanswered_orders']} "
        f"({overload['failed_after_payment']} paid journeys failed after payment); "
        f"left by refusals: {overload['orders_left_by_refusals']}",
    ]


def step_progress(plan, step, label: str, row: Mapping[str, Any]) -> str:
    """The terminal's line for a step once its last requests are in: which step of how many,
    its end in the plan's seconds, and its headline figures."""
    total = f"{plan.seconds:g}" if plan.seconds else "?"
    if step.warm_up:
        name = f"warm-up ({fmt(step.target_rpm)} RPM, not judged)"
    else:
        number = step.index + 1 - (plan.warm_up is not None)
        name = f"step {number}/{plan.step_count or '?'} ({label})"
    return (
        f"{name}, {step.start + step.seconds:g}/{total} s: {fmt(row['rpm'])} RPM, p95 {fmt(row['p95'])} ms, "
        f"{row['failures']} failed, {row['missed']} missed"
    )
