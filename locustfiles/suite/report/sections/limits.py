"""Capacity and past it: the capacity search's steps with the Universal Scalability Law fitted
to them, and an overload run's refusals.
"""

from locustfiles.suite.core import refusals
from locustfiles.suite.core.blocks import cell, fmt, image, section, table, text
from locustfiles.suite.core.summary import Ceiling, Summary
from locustfiles.suite.core.text import label, plural
from locustfiles.suite.figures import scalability


def capacity(summary: Summary) -> dict:
    capacity_rpm = summary.get("capacity_rpm")
    verdict = (
        f"Capacity: {fmt(capacity_rpm)} RPM, the highest target that held every threshold."
        if capacity_rpm is not None
        else "No step held the thresholds."
    )
    search = summary.get("capacity_search")
    if search and (interval := search.get("interval_rpm")):
        verdict += (
            f" {fmt(interval[1])} RPM broke, so the knee is within {fmt(search['interval_pct'])} % above it"
            f" ({plural(search['probes'], 'probe')} after the climb broke; a step marked not judged"
            " held a rate while the step before it was judged, or was cut short by the search)."
        )
    return section(
        "capacity",
        "Capacity",
        text(verdict),
        text(ceiling_words(at_ceiling)) if (at_ceiling := summary.get("ceiling")) else None,
        table(
            ["step", "target RPM", "achieved RPM", "p95", "held", "machine CPU %", "ceiling RPM"],
            [
                [
                    label(r),
                    r.get("target_rpm"),
                    r.get("rpm"),
                    r.get("p95"),
                    r.get("held"),
                    r.get("machine_cpu_percent"),
                    r.get("ceiling_rpm"),
                ]
                for r in summary["steps"]
            ],
            notes=["ceiling RPM: the rate at which every core would be busy at that step's CPU per arrival."],
        ),
        image("capacity.png", "Achieved RPM against p95"),
        *scalability_blocks(summary.get("scalability")),
    )


def ceiling_words(found: Ceiling) -> str:
    said = (
        f"The machine's ceiling at {found['step']}: {fmt(found['ceiling_rpm'])} RPM "
        f"({fmt(found['machine_cpu_percent'])} % busy of {found['cores'] * 100} %); "
        f"capacity ÷ ceiling = {found['ratio']:.2f}."
    )
    broken = found.get("next_step")
    if broken and broken.get("ratio"):
        said += (
            f" At {broken['step']}, which broke ({fmt(broken['machine_cpu_percent'])} % busy): "
            f"{fmt(broken['ceiling_rpm'])} RPM; capacity ÷ that = {broken['ratio']:.2f}."
        )
    return said


def scalability_blocks(found: dict | None) -> list:
    """The Universal Scalability Law fitted to the steps: what N and X are, the parameters, the
    predicted peak beside the measured capacity, the caveats, the points and the plot."""
    if not found:
        return []
    fitted = found.get("fitted")
    intro = text(
        "The knee, modelled: the Universal Scalability Law, X(N) = λN / (1 + σ(N − 1) + κN(N − 1)), "
        "fitted by least squares to the steps. N is each step's mean concurrency by Little's law: "
        "order requests per second × their mean response time, the purchases in flight. X is the "
        "order requests answered 2xx per minute. λ is the throughput of one purchase in flight "
        "alone, σ the share that serialises (contention), κ the cost of every request in flight "
        "slowing the others (coherency); with κ > 0 throughput peaks at N* = √((1 − σ)/κ)."
    )
    rows = []
    if fitted:
        rows = [
            ["λ (RPM at N = 1)", found["lambda_rpm"]],
            ["σ (contention)", found["sigma"]],
            ["κ (coherency)", found["kappa"]],
            ["N* (purchases in flight at the peak)", found["n_star"]],
            ["predicted peak RPM, X(N*)", found["peak_rpm"] if found["peak_rpm"] is not None else "no peak"],
            ["measured capacity RPM", found.get("measured_capacity_rpm")],
            ["R² of the fit (X)", found.get("r_squared")],
            ["RMS error of the fit (RPM)", found.get("rmse_rpm")],
        ]
        if found.get("ceiling_rpm") is not None:
            rows.insert(5, ["ceiling λ/σ (RPM, κ = 0)", found["ceiling_rpm"]])
    fitted_rpm = found.get("fitted_rpm") or [None] * len(found["points"])
    return [
        intro,
        text(scalability.words(found) + "."),
        table(["Universal Scalability Law", ""], rows) if rows else None,
        # (not fitted: the line above says why, and that is the only caveat)
        *[text("⚠ " + caveat) for caveat in (found.get("caveats") or []) if fitted],
        table(
            ["step", "target RPM", "N (in flight)", "X measured (RPM)", "X fitted (RPM)"],
            [
                [p["label"], p["target_rpm"], p["n"], p["x_rpm"], model]
                for p, model in zip(found["points"], fitted_rpm, strict=True)
            ],
            caption="The steps as points of the model:",
        )
        if found["points"]
        else None,
        image("scalability.png", "Measured throughput against concurrency, with the fitted USL curve")
        if fitted
        else None,
    ]


def overload(summary: Summary) -> dict | None:
    found = summary.get("overload")
    if not found:
        return None
    refusal_rows = [
        [cell(name, "code"), refusals.label(refusal), n]
        for name, kinds in found["refusals"].items()
        for refusal, n in sorted(kinds.items())
    ]
    return section(
        "overload",
        "Past capacity",
        text(
            f"Purchases arrived at {fmt(found['target_rpm'])} RPM and were answered at "
            f"{fmt(found['achieved_rpm'])} RPM: {fmt(found['accepted'])} of {fmt(found['purchases'])} "
            f"accepted. A service whose accepted work is queueing (or, under the in-flight policy, whose "
            "count is full) refuses new work at once with 503 overloaded "
            "and Retry-After, before it writes anything (shed)."
        ),
        table(
            ["figure", "value"],
            [
                ["p95, every answer of the order endpoint (ms)", found["p95"]],
                ["p95, its accepted purchases only (ms)", found["p95_accepted"]],
                ["failures that were not a JSON 503 or 429", found["unshed_failures"]],
                ["orders committed", found["orders_committed"]],
                ["orders without a 2xx answer", found["unanswered_orders"]],
                ["paid journeys that failed after the payment was taken", found["failed_after_payment"]],
                ["orders left by refused purchases (must be 0)", found["orders_left_by_refusals"]],
            ],
        ),
        table(["endpoint", "refusal", "count"], refusal_rows, caption="Refusals by endpoint:")
        if refusal_rows
        else text("Nothing was refused."),
    )
