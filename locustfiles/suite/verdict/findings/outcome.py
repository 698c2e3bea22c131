"""Findings about what the run did: its verdict, the warm-up, capacity and the scalability
model, where p95 rose, what failed, and what the audit found."""

from collections import Counter
from collections.abc import Mapping

from locustfiles.suite.core import refusals, thresholds
from locustfiles.suite.core.summary import (
    THRESHOLDS,
    THRESHOLDS_AT_BROKE_STEP,
    Ceiling,
    Finding,
    StepRow,
    Summary,
)
from locustfiles.suite.core.text import label, plural
from locustfiles.suite.figures import ceiling
from locustfiles.suite.verdict.findings.words import SoFar, finding, metric_value, ms
from locustfiles.suite.verdict.noise import NOISE_MS, NOISE_PCT, delta


def verdict_findings(summary: Summary) -> list[Finding]:
    """Each broken threshold with the steps that broke it, and every other reason to fail."""
    verdict = summary.get("verdict") or {}
    # A capacity run is meant to end on the step that breaks: that is its measurement.
    level = "warning" if verdict.get("thresholds_at") == THRESHOLDS_AT_BROKE_STEP else "problem"
    out = []
    for check in verdict.get("thresholds", []):
        if check["ok"]:
            continue
        (threshold,) = thresholds.parse(check["threshold"])
        field = thresholds.FIELDS.get(threshold.metric, threshold.metric)
        scope = check.get("scope")  # judged on a part of each row (the accepted purchases)

        def judged(row: StepRow, scope=scope) -> Mapping[str, object]:
            return (row.get("accepted") or {}) if scope else row

        broke = [
            r for r in summary.get("steps", []) if r.get("requests") and not threshold.check(judged(r))[0]
        ]
        measured = (
            "was not measured"
            if check["value"] is None
            else f"was {metric_value(threshold.metric, check['value'])}"
        )
        of = f" for the {scope}" if scope else ""
        text = f"The threshold {check['threshold']} failed{of}: {threshold.metric} {measured}"
        if broke:
            first = broke[0]
            text += (
                f"; {plural(len(broke), 'step')} broke it, first {label(first)} "
                f"({threshold.metric} {metric_value(threshold.metric, judged(first).get(field))})"
            )
        out.append(finding(level, text + "."))
    for failure in verdict.get("failures", []):
        if failure["kind"] != THRESHOLDS:  # each broken threshold is told above, with its steps
            out.append(finding("problem", f"The run failed: {failure['text']}."))
    return out


def warm_up_findings(summary: Summary) -> list[Finding]:
    """What the warm-up measured, and that nothing was judged on it."""
    warm = summary.get("warm_up")
    if not warm:
        return []
    rpm = f" at {warm['target_rpm']:g} RPM" if warm.get("target_rpm") else ""
    text = (
        f"The run began with a {warm['seconds']:g} s warm-up{rpm}, reported apart from the steps and "
        f"not judged: p50 {metric_value('p50', warm.get('p50'))}, "
        f"p95 {metric_value('p95', warm.get('p95'))}, "
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
    return [finding("info", text)]


def capacity_findings(summary: Summary) -> list[Finding]:
    if "capacity_rpm" not in summary:
        return []
    capacity = summary["capacity_rpm"]
    steps = summary.get("steps", [])
    search = summary.get("capacity_search")
    if search:
        broken = next((r for r in steps if r["index"] == search["broke_step"]), None)
    else:  # a summary from before the search (schema 2): the climb's first step that broke
        broken = next((r for r in steps if r.get("held") is False), None)
    after = f"; {label(broken)} did not" if broken else "; no step broke them"
    if search and search.get("interval_pct") is not None:
        probes = plural(search["probes"], "probe")
        after += f": the knee is within {search['interval_pct']:g} % of it, after {probes}"
    found = []
    if capacity is None:
        found.append(finding("problem", "No step held the thresholds, so the capacity was not reached."))
    else:
        found.append(
            finding(
                "info", f"Capacity: {capacity:g} RPM was the highest target that held every threshold{after}."
            )
        )
    at_ceiling = summary.get("ceiling")
    if at_ceiling and capacity is not None:  # a ceiling is only ever set beside a capacity
        found.append(ceiling_finding(at_ceiling, capacity))
    model = summary.get("scalability")
    if model:
        found.append(finding("info", scalability_sentence(model)))
    return found


def ceiling_finding(found: Ceiling, capacity: float) -> Finding:
    """Capacity's share of the machine's ceiling at its step; under ceiling.NEAR, what the step
    that broke above it says: full (the CPU per arrival grew: capacity's share of that step's
    own ceiling, a warning only if that share is under NEAR too) or not (the machine had CPU to
    spare: what refused, a warning), or that no step broke before the climb ended."""
    text = (
        f"Capacity {capacity:g} RPM is {found['ratio']:.2f} of the machine's ceiling at {found['step']} "
        f"({found['ceiling_rpm']:g} RPM: every core busy at that step's CPU per arrival; the machine was "
        f"{found['machine_cpu_percent']:g} % busy of {found['cores'] * 100} %)"
    )
    if found["ratio"] >= ceiling.NEAR:
        return finding("info", text + ".")
    broken = found["next_step"]
    if broken is None:
        return finding(
            "warning",
            text + ": no step broke before the climb ended (RPM's list ends where it ends; a range "
            "climbs on past RPM_MAX only while the next rate is under the ceiling).",
        )
    refused = ", ".join(f"{kind} {n}" for kind, n in broken["refused"].items()) or "nothing refused"
    busy = broken["machine_cpu_percent"]
    why = f"{broken['step']} broke with {refused}, p95 {metric_value('p95', broken['p95'])}, the machine "
    dearer = ceiling.dearer_when_full(found)
    ratio = broken.get("ratio")  # known wherever dearer is: both need that step's own ceiling
    if dearer is not None and ratio is not None:
        return finding(
            "info" if ratio >= ceiling.NEAR else "warning",
            f"{text}, but the machine's CPU per arrival grew as it filled: {why}{busy:g} % busy, each "
            f"arrival costing it {dearer * 100:.0f} % more than at {found['step']}. Capacity is "
            f"{ratio:.2f} of that step's own ceiling ({broken['ceiling_rpm']:g} RPM).",
        )
    return finding(
        "warning",
        f"{text}: the machine had CPU to spare. {why}"
        + ("not read." if busy is None else f"{busy:g} % busy."),
    )


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


def p95_findings(summary: Summary | SoFar) -> list[Finding]:
    """Where the order endpoint's p95 rose: first to last soak bucket, or step to step."""
    trend = summary.get("trend")
    if trend and trend.get("p95_first") is not None:
        change = delta(trend["p95_first"], trend["p95_last"])
        verb = "rose" if change["ms"] > 0 else "fell" if change["ms"] < 0 else "stayed"
        text = (
            f"Over {plural(trend['buckets'], 'bucket')} the order endpoint's p95 {verb} from "
            f"{ms(change['a'])} to {ms(change['b'])}"
        )
        if change["pct"] is not None and change["ms"]:
            text += f" ({change['pct']:+g} %)"
        if trend.get("p95_ms_per_bucket") is not None:
            text += f"; the fitted trend is {trend['p95_ms_per_bucket']:+g} ms per bucket"
        level = "warning" if change["significant"] and change["ms"] > 0 else "info"
        return [finding(level, text + ".")]
    rows = [r for r in summary.get("steps", []) if r.get("p95") is not None]
    if len(rows) < 2:
        return []
    first, last = rows[0], rows[-1]
    overall = delta(first["p95"], last["p95"])
    jumps = [(delta(a["p95"], b["p95"]), a, b) for a, b in zip(rows, rows[1:], strict=False)]
    biggest, before, after = max(jumps, key=lambda j: j[0]["ms"])
    if not overall["significant"] and not biggest["significant"]:
        measured = [p95 for r in rows if (p95 := r["p95"]) is not None]  # all: rows are those with one
        low, high = min(measured), max(measured)
        return [
            finding(
                "info",
                f"The order endpoint's p95 stayed between {ms(low)} and {ms(high)} across "
                f"{plural(len(rows), 'step')}, within the noise floor ({NOISE_PCT:g} % or {NOISE_MS:g} ms).",
            )
        ]
    text = (
        f"The order endpoint's p95 went from {ms(first['p95'])} at {label(first)} to "
        f"{ms(last['p95'])} at {label(last)}"
        + (f" ({overall['pct']:+g} %)" if overall["pct"] is not None else "")
    )
    if biggest["significant"] and biggest["ms"] > 0:
        text += (
            f"; the largest rise was from {label(before)} to {label(after)}: "
            f"{ms(biggest['a'])} to {ms(biggest['b'])} ({biggest['ms']:+g} ms, {biggest['pct']:+g} %)"
        )
    return [finding("warning" if overall["ms"] > 0 and overall["significant"] else "info", text + ".")]


def error_findings(summary: Summary | SoFar) -> list[Finding]:
    endpoints = (summary.get("overall") or {}).get("endpoints") or {}
    if not endpoints:
        return []
    total = sum(e["requests"] for e in endpoints.values())
    # Refused on purpose by a service past its limit (503 overloaded, with Retry-After): said
    # apart from the failures, which are what a well-handled overload must not have.
    shed: Counter[tuple[str, str]] = Counter()  # (endpoint, status): requests shed
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
            finding(
                "warning",
                f"{plural(sum(shed.values()), 'request')} of {total} (every endpoint's) were shed: refused "
                f"at once as overloaded (503 with Retry-After), nothing written: {listed}.",
            )
        )
    if not by_status:
        return found or [
            finding("info", f"No request failed ({plural(total, 'request')}, every endpoint's).")
        ]
    by_status.sort(key=lambda x: -x[2])
    failed = sum(count for *_, count in by_status)
    listed = "; ".join(
        f"{name} answered {'no response' if status == '0' else status} ×{count}"
        for name, status, count in by_status
    )
    what = "failed otherwise" if shed else "failed"
    return [
        finding("problem", f"{plural(failed, 'request')} of {total} (every endpoint's) {what}: {listed}."),
        *found,
    ]


def audit_findings(summary: Summary) -> list[Finding]:
    audit = summary.get("audit") or {}
    if audit.get("error"):
        return [finding("problem", f"The audit could not check the orders: {audit['error']}.")]
    if not audit:
        return [finding("warning", "No audit was recorded, so lost orders were not checked.")]
    if audit.get("lost") or audit.get("duplicates"):
        return [
            finding(
                "problem",
                f"The audit found {plural(audit.get('lost') or 0, 'lost order')} and "
                f"{plural(audit.get('duplicates') or 0, 'duplicate')}.",
            )
        ]
    paid = audit.get("payments") or {}
    wrong = _payments_wrong(paid)
    if wrong:
        return [finding("problem", f"The audit found {wrong} (the audit's payment table names them).")]
    found = [
        finding(
            "info",
            # The audit counts every order of the run; a newcomer set 4 answered orders beside a
            # step table's 3 order requests (a warm-up or the seconds around the steps).
            "Nothing lost over the whole run (the step tables count its measured steps only): "
            f"{plural(audit.get('successes') or 0, 'answered order')}, "
            f"{audit.get('orders')} committed, {plural(audit.get('enrollments') or 0, 'enrollment')}.",
        ),
        *_payment_findings(paid),
    ]
    error = (audit.get("statuses") or {}).get("fulfillment_error", "Fulfillment Error")
    unfulfilled = (audit.get("orders_by_status") or {}).get(error, 0)
    if unfulfilled:
        found.append(
            finding(
                "warning",
                f"{plural(unfulfilled, 'order')} of {audit.get('orders')} ended in {error}: "
                "the order was kept and answered, but the LMS enrollment call failed or timed out "
                "(the timing table shows the enrollment call). "
                "`manage.py retry_fulfillment --all` fulfils them again.",
            )
        )
    return found


def _payments_wrong(paid: dict) -> str:
    """What the audit's payment checks found wrong, in words ('' when nothing)."""
    wrong = [
        f"{plural(paid[key], thing)} {what}"
        for key, thing, what in (
            ("unsettled", "order", "without exactly one settled payment"),
            ("enrolled_unpaid", "paid seat", "enrolled without a payment"),
            ("without_order", "accepted payment", "without an order or a refund owed"),
        )
        if paid.get(key)
    ]
    return " and ".join(wrong)


def _payment_findings(paid: dict) -> list[Finding]:
    """The paid orders, each paid once, and the accepted payments owed a refund."""
    found = []
    if paid.get("paid_orders"):
        found.append(
            finding(
                "info",
                f"{plural(paid['paid_orders'], 'paid order')}, each paid once; "
                f"{plural(paid.get('paid_enrollments') or 0, 'paid seat')} enrolled, each paid for.",
            )
        )
    if paid.get("refund_owed"):
        found.append(
            finding(
                "warning",
                f"{plural(paid['refund_owed'], 'accepted payment')} placed no order and "
                f"{'is' if paid['refund_owed'] == 1 else 'are'} owed a refund: the learner already owned "
                "the seat (a late notification of an abandoned basket). They are recorded as refund_owed.",
            )
        )
    return found
