"""The top of the report: the header (title, when, the verdict and every reason it failed) and
the test setup (what ran, on what, from which commit).
"""

from locustfiles.suite.core.blocks import DASH, cell, fmt, section, table, text
from locustfiles.suite.core.summary import THRESHOLDS, THRESHOLDS_AT_BROKE_STEP, Load, Summary
from locustfiles.suite.core.text import plural
from locustfiles.suite.figures import results


def threshold_name(check: dict) -> str:
    """A threshold check as the report names it: "p95<2000", "p95<2000 (accepted purchases)"."""
    return check["threshold"] + (f" ({check['scope']})" if check.get("scope") else "")


def _broken(summary: Summary, broken: list[str]) -> list[str]:
    """The broken thresholds under the badge; a capacity run's are those of the step that ended
    it, which is what it measures, not a failure."""
    at_broke_step = summary["verdict"].get("thresholds_at") == THRESHOLDS_AT_BROKE_STEP
    if at_broke_step and broken and (row := results.broke_row(summary)):
        return [f"{row.get('label')} broke {', '.join(broken)}: capacity is below it"]
    return [f"threshold {b} broken" for b in broken]


def database_at_start(summary: Summary) -> str | None:
    start = (summary.get("config") or {}).get("database_at_start")
    if not start:
        return None
    return f"{start['preloaded_purchases']:,} preloaded purchases; {fmt(start['size_mb'])} MB on disk"


def header(summary: Summary) -> dict:
    """Title, when, how long, and the verdict with every reason it failed."""
    verdict = summary["verdict"]
    broken = [
        f"{threshold_name(c)} (measured {fmt(c['value'])})" for c in verdict["thresholds"] if not c["ok"]
    ]
    other = [f["text"] for f in verdict["failures"] if f["kind"] != THRESHOLDS]  # told by their checks
    labels = [row.get("label") or "" for row in summary["steps"]]
    steps = f": {', '.join(labels)}" if 0 < len(labels) <= 4 else f", {plural(len(labels), 'step')}"
    started_from = summary.get("started_from", "headless")
    preloaded = ((summary.get("config") or {}).get("database_at_start") or {}).get("preloaded_purchases")
    on = f", on {preloaded:,} preloaded purchases" if preloaded else ""
    warm = summary.get("warm_up")
    after = f", after a {fmt(warm['seconds'])} s warm-up" if warm else ""
    return {
        "title": f"Load test report: {summary['profile']} run ({started_from}){steps}{after}{on}",
        "when": f"{summary['started']} to {summary['finished']} ({fmt(summary['seconds'])} s)",
        "passed": verdict["passed"],
        "badge": "verdict: PASS" if verdict["passed"] else "verdict: FAIL",
        "reasons": _broken(summary, broken) + other,
    }


def provenance(summary: Summary) -> dict:
    """What ran, on what, from which commit: small key/value tables."""
    found = summary.get("provenance")
    if not found:
        config = summary.get("config") or {}
        return section(
            "provenance",
            "Test setup",
            text("The run recorded no provenance; its configuration:"),
            table(["setting", "value"], [[k, v] for k, v in sorted(config.items())]),
        )
    git, machine, versions = found["git"], found["host"], found["versions"]
    load = found["load"]
    dirty = {True: "yes (uncommitted changes)", False: "no"}.get(git["dirty"], git["dirty"])
    services = found["services"]
    per_service = {k: v for k, v in services.items() if isinstance(v, dict)}
    shared = {k: v for k, v in services.items() if not isinstance(v, dict)}
    service_keys = sorted({k for v in per_service.values() for k in v})
    return section(
        "provenance",
        "Test setup",
        table(
            ["source", ""],
            [["commit", cell(git["commit"], "code")], ["uncommitted changes", dirty]]
            + _changed_during_run(git.get("changed_during_run")),
        ),
        table(
            ["host", ""],
            [
                ["name", machine["hostname"]],
                ["cores", machine["cores"]],
                ["memory", f"{fmt(machine['memory_gb'])} GB"],
                ["CPU", machine["cpu_model"]],
                ["OS", machine["os"]],
            ],
        ),
        table(["versions", ""], [[k, "not reachable" if v is None else v] for k, v in versions.items()]),
        table(
            ["services", *per_service],
            [[k, *[per_service[s].get(k) for s in per_service]] for k in service_keys],
        ),
        table(["shared service settings", ""], [[k, v] for k, v in shared.items()]),
        table(["load", ""], _load_rows(summary, load)),
    )


def _load_rows(summary: Summary, learners: dict) -> list[list]:
    """What made the load, in the terms the run's model uses: an open model's arrivals come at
    the target rate whatever the users do (no think time; its users are only a pool that sends
    them), a closed model's users repeat their tasks; edX's client brings its own."""
    weights = learners.get("weights") or {}
    think = learners.get("think_time") or {}
    load = summary["load"]
    rows: list[list] = [
        ["profile", summary["profile"]],
        ["started from", summary["started_from"]],
        ["target host", load["host"]],
    ]
    if (summary.get("plan") or {}).get("open_model"):
        rows += [
            ["arrivals", "each step's target RPM, spread evenly over the step (open model)"],
            ["journeys", _arrival_mix(weights)],
            ["courses bought", learners["courses"]],
        ]
    elif summary.get("client"):
        rows += [
            ["users (at most)", load["users"]],
            _spawn(summary, load),
            ["learners", "edX's 2015 client: its own tasks, think time and course (its section)"],
        ]
    else:
        rows += [
            ["users (at most)", load["users"]],
            _spawn(summary, load),
            ["think time", f"{fmt(think.get('min_seconds'))}–{fmt(think.get('max_seconds'))} s"],
            ["task weights", _weights(weights)],
            ["courses bought", learners["courses"]],
        ]
    return [
        *rows,
        ["Locust workers", load["locust_workers"] or "none (one local process)"],
        ["database at start", database_at_start(summary) or "not recorded"],
    ]


def _spawn(summary: Summary, load: Load) -> list:
    """How the users started: at the spawn rate asked for when they were set by hand (the web
    UI's form, Locust's -u and -r: the manual profile), else as the profile's load shape starts
    each step's users (all within a second)."""
    if summary["profile"] == "manual":
        return ["spawn rate", f"{fmt(load['spawn_rate'])} users a second"]
    return ["users start", "all of a step's users within its first second (the profile's load shape)"]


def _changed_during_run(at_end: dict | None) -> list[list]:
    """A row saying how the checkout differed when the run ended from when it began."""
    if not at_end:
        return []
    dirty = "with uncommitted changes" if at_end.get("dirty") is True else "clean"
    return [["changed during the run", cell(f"at the end: {at_end.get('commit')} ({dirty})", "code")]]


def _arrival_mix(weights: dict) -> str:
    """An open model's mix (core/learner_settings.py): every arrival is a purchase, free or
    paid in the weights' proportion, and some are read back."""
    purchases = weights.get("buy", 0) + weights.get("pay", 0)
    if not purchases:
        return DASH
    return (
        f"every arrival a purchase: {fmt(weights.get('buy', 0))} free and {fmt(weights.get('pay', 0))} paid "
        f"in every {fmt(purchases)}; {plural(weights.get('read', 0), 'order read')} for every "
        f"{fmt(purchases)} purchases"
    )


def _weights(weights: dict) -> str:
    """free purchases : paid ones : reads (a run from before the paid journey has no "pay")."""
    parts = [("buy", "buy"), ("pay", "pay"), ("read", "read")]
    return " : ".join(f"{label} {fmt(weights[key])}" for key, label in parts if key in weights) or DASH
