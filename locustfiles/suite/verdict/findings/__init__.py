"""The findings a report opens with: plain sentences written from a run's summary, the way a
performance engineer would summarise it (where p95 rose and by how much, what broke which
threshold, what failed with which status, which process was busiest, whether the load
generator itself was the limit, which statements used no index, which percentiles rest on
too few samples).

A finding only says what the data says; when a measurement is missing, the finding says it
is missing. Levels: "problem" (the run failed or its figures cannot be trusted), "warning"
(worth a look), "info".

What a real change is (the noise floor) is verdict/noise.py's, shared with the comparisons.
"""

from collections import Counter

from locustfiles.suite.core import refusals, thresholds
from locustfiles.suite.core.text import label, plural, shorten
from locustfiles.suite.verdict.noise import NOISE_MS, NOISE_PCT, delta

NEAR_FULL_CORE = 90.0  # % of one core at which a process (a Locust process, say) is saturated
SHARED_MACHINE_PCT = 25.0  # % of the machine's CPU outside the stack and Locust worth a warning
LEVELS = ("problem", "warning", "info")


def findings(summary: dict) -> list[dict]:
    """[{"level", "text"}], problems first."""
    found = [
        *verdict_findings(summary),
        *warm_up_findings(summary),
        *capacity_findings(summary),
        *p95_findings(summary),
        *error_findings(summary),
        *audit_findings(summary),
        *load_generator_findings(summary),
        *busiest_process_findings(summary),
        *shared_machine_findings(summary),
        *cpu_findings(summary),
        *index_findings(summary),
        *thin_findings(summary),
        *missed_findings(summary),
    ]
    return sorted(found, key=lambda f: LEVELS.index(f["level"]))


def _finding(level: str, text: str) -> dict:
    return {"level": level, "text": text}


def _ms(value) -> str:
    return f"{value:g} ms"


def _value(metric: str, value) -> str:
    """A threshold metric's value with its unit: percentiles and the mean are milliseconds."""
    if value is None:
        return "not measured"
    return _ms(value) if metric == "mean" or metric.startswith("p") else f"{value:g}"


def verdict_findings(summary: dict) -> list[dict]:
    """Each broken threshold with the steps that broke it, and every other reason to fail."""
    verdict = summary.get("verdict") or {}
    out = []
    for check in verdict.get("thresholds", []):
        if check["ok"]:
            continue
        (threshold,) = thresholds.parse(check["threshold"])
        field = thresholds.FIELDS.get(threshold.metric, threshold.metric)
        scope = check.get("scope")  # judged on a part of each row (the accepted purchases)

        def judged(row: dict, scope=scope) -> dict:
            return (row.get("accepted") or {}) if scope else row

        broke = [
            r for r in summary.get("steps", []) if r.get("requests") and not threshold.check(judged(r))[0]
        ]
        measured = (
            "was not measured"
            if check["value"] is None
            else f"was {_value(threshold.metric, check['value'])}"
        )
        of = f" for the {scope}" if scope else ""
        text = f"The threshold {check['threshold']} failed{of}: {threshold.metric} {measured}"
        if broke:
            first = broke[0]
            text += (
                f"; {plural(len(broke), 'step')} broke it, first {label(first)} "
                f"({threshold.metric} {_value(threshold.metric, judged(first).get(field))})"
            )
        # A capacity run is meant to end on the step that breaks: that is its measurement.
        out.append(_finding("warning" if "capacity_rpm" in summary else "problem", text + "."))
    for reason in verdict.get("reasons", []):
        if not reason.startswith("thresholds failed"):
            out.append(_finding("problem", f"The run failed: {reason}."))
    return out


def warm_up_findings(summary: dict) -> list[dict]:
    """What the warm-up measured, and that nothing was judged on it."""
    warm = summary.get("warm_up")
    if not warm:
        return []
    rpm = f" at {warm['target_rpm']:g} RPM" if warm.get("target_rpm") else ""
    text = (
        f"The run began with a {warm['seconds']:g} s warm-up{rpm}, reported apart from the steps and "
        f"not judged: p50 {_value('p50', warm.get('p50'))}, p95 {_value('p95', warm.get('p95'))}, "
        f"{plural(warm.get('failures') or 0, 'failure')}, {warm.get('missed') or 0} missed"
    )
    checks = (summary.get("verdict") or {}).get("thresholds") or []
    rules = thresholds.parse(" ".join(c["threshold"] for c in checks if not c.get("scope")))
    broken = (
        [str(c["threshold"]) for c in thresholds.judge(rules, warm)["checks"] if not c["ok"]] if rules else []
    )
    if warm.get("requests") and broken:
        text += f". It would have broken {', '.join(broken)}: a cold start, the reason it is not a step"
    text += ". Its orders are in the audit's counts."
    return [_finding("info", text)]


def capacity_findings(summary: dict) -> list[dict]:
    if "capacity_rpm" not in summary:
        return []
    capacity = summary["capacity_rpm"]
    steps = summary.get("steps", [])
    broken = next((r for r in steps if not r.get("held", True)), None)
    after = f"; {label(broken)} did not" if broken else "; no step broke them"
    found = []
    if capacity is None:
        found.append(_finding("problem", "No step held the thresholds, so the capacity was not reached."))
    else:
        found.append(
            _finding(
                "info", f"Capacity: {capacity:g} RPM was the highest target that held every threshold{after}."
            )
        )
    model = summary.get("scalability")
    if model:
        found.append(_finding("info", scalability_sentence(model)))
    return found


def scalability_sentence(model: dict) -> str:
    """The USL's prediction beside the measured capacity, with its first caveat."""
    if not model.get("fitted"):
        return f"The Universal Scalability Law was not fitted to the steps: {model.get('not_fitted')}."
    text = (
        f"The Universal Scalability Law fitted to the steps (λ {model['lambda_rpm']:g} RPM, "
        f"σ {model['sigma']:g}, κ {model['kappa']:g}) "
    )
    if model.get("peak_rpm") is None:
        text += "predicts no peak within the model"
        if model.get("ceiling_rpm") is not None:
            text += f" (throughput levels off towards {model['ceiling_rpm']:g} RPM)"
    else:
        text += f"predicts a peak of {model['peak_rpm']:g} RPM at {model['n_star']:g} purchases in flight"
    measured = model.get("measured_capacity_rpm")
    text += f", against {measured:g} RPM measured" if measured is not None else ", and no step held"
    caveats = [c for c in model.get("caveats") or [] if not c.startswith("No peak predicted")]
    return " ".join([text + ".", *caveats])


def p95_findings(summary: dict) -> list[dict]:
    """Where the order endpoint's p95 rose: first to last soak bucket, or step to step."""
    trend = summary.get("trend")
    if trend and trend.get("p95_first") is not None:
        change = delta(trend["p95_first"], trend["p95_last"])
        verb = "rose" if change["ms"] > 0 else "fell" if change["ms"] < 0 else "stayed"
        text = (
            f"Over {plural(trend['buckets'], 'bucket')} the order endpoint's p95 {verb} from "
            f"{_ms(change['a'])} to {_ms(change['b'])}"
        )
        if change["pct"] is not None and change["ms"]:
            text += f" ({change['pct']:+g} %)"
        if trend.get("p95_ms_per_bucket") is not None:
            text += f"; the fitted trend is {trend['p95_ms_per_bucket']:+g} ms per bucket"
        level = "warning" if change["significant"] and change["ms"] > 0 else "info"
        return [_finding(level, text + ".")]
    rows = [r for r in summary.get("steps", []) if r.get("p95") is not None]
    if len(rows) < 2:
        return []
    first, last = rows[0], rows[-1]
    overall = delta(first["p95"], last["p95"])
    jumps = [(delta(a["p95"], b["p95"]), a, b) for a, b in zip(rows, rows[1:], strict=False)]
    biggest, before, after = max(jumps, key=lambda j: j[0]["ms"])
    if not overall["significant"] and not biggest["significant"]:
        low, high = min(r["p95"] for r in rows), max(r["p95"] for r in rows)
        return [
            _finding(
                "info",
                f"The order endpoint's p95 stayed between {_ms(low)} and {_ms(high)} across "
                f"{plural(len(rows), 'step')}, within the noise floor ({NOISE_PCT:g} % or {NOISE_MS:g} ms).",
            )
        ]
    text = (
        f"The order endpoint's p95 went from {_ms(first['p95'])} at {label(first)} to "
        f"{_ms(last['p95'])} at {label(last)}"
        + (f" ({overall['pct']:+g} %)" if overall["pct"] is not None else "")
    )
    if biggest["significant"] and biggest["ms"] > 0:
        text += (
            f"; the largest rise was from {label(before)} to {label(after)}: "
            f"{_ms(biggest['a'])} to {_ms(biggest['b'])} ({biggest['ms']:+g} ms, {biggest['pct']:+g} %)"
        )
    return [_finding("warning" if overall["ms"] > 0 and overall["significant"] else "info", text + ".")]


def error_findings(summary: dict) -> list[dict]:
    endpoints = (summary.get("overall") or {}).get("endpoints") or {}
    if not endpoints:
        return []
    total = sum(e["requests"] for e in endpoints.values())
    # Refused on purpose by a service past its limit (503 overloaded, with Retry-After): said
    # apart from the failures, which are what a well-handled overload must not have.
    shed = Counter()
    for name, row in endpoints.items():
        for refusal, count in (row.get("refusals") or {}).items():
            if refusals.is_shed(refusal):
                shed[(name, refusal.split(" ", 1)[0])] += count
    by_status = [
        (name, status, count - shed[(name, str(status))])
        for name, row in endpoints.items()
        for status, count in row.get("statuses", {}).items()
        if not str(status).startswith("2") and count > shed[(name, str(status))]
    ]
    found = []
    if shed:
        listed = "; ".join(f"{name} ×{count}" for (name, _), count in shed.most_common())
        found.append(
            _finding(
                "warning",
                f"{plural(sum(shed.values()), 'request')} of {total} were shed: refused at once as "
                f"overloaded (503 with Retry-After), nothing written: {listed}.",
            )
        )
    if not by_status:
        return found or [_finding("info", f"No request failed ({plural(total, 'request')}).")]
    by_status.sort(key=lambda x: -x[2])
    failed = sum(count for *_, count in by_status)
    listed = "; ".join(
        f"{name} answered {'no response' if status == '0' else status} ×{count}"
        for name, status, count in by_status
    )
    what = "failed otherwise" if shed else "failed"
    return [_finding("problem", f"{plural(failed, 'request')} of {total} {what}: {listed}."), *found]


def audit_findings(summary: dict) -> list[dict]:
    audit = summary.get("audit") or {}
    if audit.get("error"):
        return [_finding("problem", f"The audit could not check the orders: {audit['error']}.")]
    if not audit:
        return [_finding("warning", "No audit was recorded, so lost orders were not checked.")]
    if audit.get("lost") or audit.get("duplicates"):
        return [
            _finding(
                "problem",
                f"The audit found {plural(audit.get('lost') or 0, 'lost order')} and "
                f"{plural(audit.get('duplicates') or 0, 'duplicate')}.",
            )
        ]
    paid = audit.get("payments") or {}
    wrong = [
        f"{plural(paid[key], thing)} {what}"
        for key, thing, what in (
            ("unsettled", "order", "without exactly one settled payment"),
            ("enrolled_unpaid", "paid seat", "enrolled without a payment"),
            ("without_order", "accepted payment", "without an order or a refund owed"),
        )
        if paid.get(key)
    ]
    if wrong:
        listed = " and ".join(wrong)
        return [_finding("problem", f"The audit found {listed} (the audit's payment table names them).")]
    found = [
        _finding(
            "info",
            f"Nothing lost: {plural(audit.get('successes') or 0, 'answered order')}, "
            f"{audit.get('orders')} committed, {plural(audit.get('enrollments') or 0, 'enrollment')}.",
        )
    ]
    if paid.get("paid_orders"):
        found.append(
            _finding(
                "info",
                f"{plural(paid['paid_orders'], 'paid order')}, each paid once; "
                f"{plural(paid.get('paid_enrollments') or 0, 'paid seat')} enrolled, each paid for.",
            )
        )
    if paid.get("refund_owed"):
        found.append(
            _finding(
                "warning",
                f"{plural(paid['refund_owed'], 'accepted payment')} placed no order and "
                f"{'is' if paid['refund_owed'] == 1 else 'are'} owed a refund: the learner already owned "
                "the seat (a late notification of an abandoned basket). They are recorded as refund_owed.",
            )
        )
    error = (audit.get("statuses") or {}).get("fulfillment_error", "Fulfillment Error")
    unfulfilled = (audit.get("orders_by_status") or {}).get(error, 0)
    if unfulfilled:
        found.append(
            _finding(
                "warning",
                f"{plural(unfulfilled, 'order')} of {audit.get('orders')} ended in {error}: "
                "the order was kept and answered, but the LMS enrollment call failed or timed out "
                "(the timing table shows the enrollment call). "
                "`manage.py retry_fulfillment --all` fulfils them again.",
            )
        )
    return found


def load_generator_findings(summary: dict) -> list[dict]:
    generator = summary.get("load_generator")
    if not generator or generator.get("peak_cpu_percent") is None:
        return [_finding("warning", "The load generator's CPU was not measured in this run.")]
    peak, process = generator["peak_cpu_percent"], generator.get("process") or "Locust"
    if generator.get("saturated") or peak >= NEAR_FULL_CORE:
        return [
            _finding(
                "problem",
                f"The load generator was saturated: its process {process!r} used {peak:g} % of one "
                "core at its peak, so the response times include the client's own delays and the "
                "request rate may be the client's limit. Add Locust workers (WORKERS=N).",
            )
        ]
    return [
        _finding(
            "info",
            f"The load generator kept headroom: its busiest process ({process}) peaked at {peak:g} % "
            "of one core.",
        )
    ]


def machine_cores(summary: dict, row: dict | None = None) -> int | None:
    """The cores the machine figures are out of: every kernel's the hosts' agents read
    (READINGS_HOSTS), else the Locust host's own (the stack ran beside it)."""
    rows = [row] if row is not None else summary.get("steps", [])
    read = max((r.get("machine_cores") or 0 for r in rows), default=0)
    return read or ((summary.get("provenance") or {}).get("host") or {}).get("cores")


def busiest_process_findings(summary: dict) -> list[dict]:
    """The busiest server process group and its share of a core; the host's cores if known."""
    peaks = [
        (cpu, group, row)
        for row in summary.get("steps", [])
        for group, cpu in (row.get("cpu_percent") or {}).items()
        if cpu is not None
    ]
    if not peaks:
        return [_finding("warning", "The servers' CPU was not measured in this run.")]
    cpu, group, row = max(peaks, key=lambda p: p[0])
    text = f"The busiest server process was {group}: {cpu:g} % of one core at {label(row)}"
    cores = machine_cores(summary, row)
    level = "info"
    if cores:
        stack = sum((row.get("cpu_percent") or {}).values()) + sum((row.get("locust_cpu") or {}).values())
        machine = row.get("machine_cpu_percent")
        if machine is None:  # a run from before the machine was read: the stack's share only
            share = stack / cores
            text += f"; the whole stack with Locust used {share:.0f} % of the host's {plural(cores, 'core')}"
        else:  # the machine's busy time: the kernel's share and any other process count too
            share = machine / cores
            text += (
                f"; the machine's {plural(cores, 'core')} were {share:.0f} % busy then (the stack "
                f"with Locust {stack / cores:.0f} %, everything else {max(machine - stack, 0) / cores:.0f} %)"
            )
        if share >= NEAR_FULL_CORE:
            level = "warning"
            text += ", so the host's CPU was nearly full"
        else:
            text += f", so {100 - share:.0f} % of the host's CPU was to spare"
    return [_finding(level, text + ".")]


def shared_machine_findings(summary: dict) -> list[dict]:
    """Whether something outside the stack and Locust took a real share of the machine's CPU
    (the kernel's own work for the traffic, a profiler, another job on the machine)."""
    cores = machine_cores(summary)
    others = [
        (row["other_cpu_percent"], row) for row in summary.get("steps", []) if row.get("other_cpu_percent")
    ]
    if not cores or not others:
        return []
    other, row = max(others, key=lambda o: o[0])
    share = other / cores
    if share < SHARED_MACHINE_PCT:
        return []
    return [
        _finding(
            "warning",
            f"Processes outside the stack and Locust used {share:.0f} % of the machine's CPU at "
            f"{label(row)} ({other:g} % of one core: the kernel's own work, a profiler or another job): "
            "the run shared the machine, and its response times may show it.",
        )
    ]


def cpu_findings(summary: dict) -> list[dict]:
    """The run's CPU per purchase: the services' total and split, Locust's and the machine's."""
    figures = summary.get("cpu_ms_per_purchase")
    if not figures:
        return []
    if figures.get("services") is None:
        return [_finding("warning", "No CPU per purchase: the run completed no purchase in its steps.")]
    split = ", ".join(
        f"{group} {figures[group]:g}"
        for group in ("ecommerce", "lms_stub", "mariadb", "rollup")
        if figures.get(group) is not None
    )
    text = f"The services spent {figures['services']:g} ms of CPU per purchase ({split})"
    extra = [
        f"{name} {figures[key]:g} ms"
        for name, key in (("Locust", "locust"), ("the whole machine", "machine"))
        if figures.get(key) is not None
    ]
    if extra:
        text += "; " + ", ".join(extra)
    mix = (summary.get("cpu_accounting") or {}).get("mix") or {}
    if mix:
        text += f", over {mix.get('free', 0)} free and {mix.get('paid', 0)} paid purchases"
    return [_finding("info", text + ".")]


def index_findings(summary: dict) -> list[dict]:
    sql = summary.get("sql")
    if not sql or "no_index" not in sql:
        return [
            _finding("warning", "The statement digests were not read, so missing indexes were not checked.")
        ]
    statements = sql["no_index"]
    if not statements:
        return [_finding("info", "Every statement the requests ran used an index.")]
    worst = max(statements, key=lambda s: s["count"])
    return [
        _finding(
            "warning",
            f"{plural(len(statements), 'statement')} ran without a (good) index; the most frequent, "
            f"{worst['count']} calls: {shorten(worst['statement'], 120)}",
        )
    ]


def thin_findings(summary: dict) -> list[dict]:
    """Percentiles of the order endpoint resting on fewer than 5 samples above them."""
    rows = [r for r in summary.get("steps", []) if r.get("thin")]
    if not rows:
        return []
    keys = sorted({k for r in rows for k in r["thin"]}, key=lambda k: int(k[1:]))
    named = ", ".join(f"{label(r)} ({plural(r['requests'], 'request')})" for r in rows[:4])
    more = f" and {len(rows) - 4} more" if len(rows) > 4 else ""
    return [
        _finding(
            "warning",
            f"{'/'.join(keys)} of the order endpoint rest on fewer than 5 samples above them in "
            f"{plural(len(rows), 'step')}: {named}{more}; they are marked † in the tables. Longer "
            "steps or more load give them weight.",
        )
    ]


def missed_findings(summary: dict) -> list[dict]:
    overall = summary.get("overall") or {}
    missed, arrivals = overall.get("missed") or 0, overall.get("arrivals") or 0
    if not missed or not arrivals:
        return []
    return [
        _finding(
            "warning",
            f"{plural(missed, 'arrival')} of {arrivals} could not start on time and were skipped "
            f"({100 * missed / arrivals:.1f} %): the users could not keep up with the target rate.",
        )
    ]
