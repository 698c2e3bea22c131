"""What each profile does in the process that keeps the results: work beside the load
(background), the stop rule, what runs after the load and before the audit (settle), what it
measures after the audit (finish) and its judging. What a profile is (name, defaults, plan,
labels) is the catalogue's (core/catalogue.py): each class here is its catalogue entry with
the ``Behaviour`` of its kind of run.
"""

from common.environment import get as setting
from locustfiles.suite import chaos
from locustfiles.suite.core import catalogue, thresholds
from locustfiles.suite.core.plan import Plan, Step, numbers, users_for
from locustfiles.suite.core.text import plural
from locustfiles.suite.figures import results, scalability
from locustfiles.suite.figures.client import client_figures
from locustfiles.suite.profiling.pyspy import Profiler
from locustfiles.suite.verdict import audit

# A threshold's scope (its check's "scope"): judged on the purchases answered 2xx alone.
ACCEPTED = "accepted purchases"


class Behaviour:
    """By default a profile does nothing beside the load and is judged on the whole run."""

    def should_stop(self, run, now: float) -> bool:
        """Whether the run should end before its plan does (capacity: a step broke)."""
        return False

    def background(self, run) -> list:
        """Functions to run as greenlets beside the load in the process that keeps results."""
        return []

    def judge(self, summary: dict, rules: list) -> tuple[list[dict], list[str]]:
        """(threshold checks, reasons the run failed) beyond the audit; may add keys to the
        summary. By default the whole run is judged against the thresholds."""
        judged = thresholds.judge(rules, summary["overall"])
        failed = [c["threshold"] for c in judged["checks"] if not c["ok"]]
        return judged["checks"], ["thresholds failed: " + ", ".join(failed)] if failed else []

    def settle(self, run) -> dict:
        """Work done after the load stops and before the audit (its result joins the summary)."""
        return {}

    def finish(self, run, summary: dict) -> None:
        """Add what this profile measures after the audit."""


class Ramp(Behaviour, catalogue.Ramp):
    pass


class Smoke(Behaviour, catalogue.Smoke):
    pass


class Rpm(Behaviour, catalogue.Rpm):
    pass


class Manual(Behaviour, catalogue.Manual):
    pass


class Profiling(Behaviour, catalogue.Profiling):
    def background(self, run) -> list:
        run.profiler = Profiler(run.run_dir, setting("VAR_DIR", run.env), self.rate(run.env), run.distributed)
        measured = run.plan.measured
        start, end = run.t0 + measured[0].start, run.t0 + measured[-1].end
        return [lambda: run.profiler.record(start, end)]

    def finish(self, run, summary: dict) -> None:
        if run.profiler is None:
            summary["profiling"] = {"taken": False, "reason": "the profiler did not start", "groups": {}}
        else:
            summary["profiling"] = run.profiler.results()

    def judge(self, summary: dict, rules: list) -> tuple[list[dict], list[str]]:
        checks, reasons = super().judge(summary, rules)
        profiling = summary.get("profiling") or {}
        if not profiling.get("taken"):
            reasons.append(f"no profile was taken: {profiling.get('reason') or 'unknown'}")
        return checks, reasons


class Overload(Behaviour, catalogue.Overload):
    def judge(self, summary: dict, rules: list) -> tuple[list[dict], list[str]]:
        checks, reasons = super().judge(summary, rules)
        accepted = summary["overall"].get("accepted") or {}
        broken = []
        for rule in rules:
            if rule.metric in accepted:
                ok, value = rule.check(accepted)
                checks.append({"threshold": str(rule), "scope": ACCEPTED, "value": value, "ok": ok})
                broken += [] if ok else [f"{rule} ({ACCEPTED})"]
        if broken:
            reasons.append("thresholds failed: " + ", ".join(broken))
        summary["overload"] = results.overload_figures(summary)
        left = summary["overload"]["orders_left_by_refusals"]
        if left:
            reasons.append(f"{plural(left, 'order')} committed for purchases that were not answered 2xx")
        return checks, reasons


class Capacity(Behaviour, catalogue.Capacity):
    def should_stop(self, run, now: float) -> bool:
        return run.broken_step(now) is not None

    def judge(self, summary: dict, rules: list) -> tuple[list[dict], list[str]]:
        capacity, held = None, 0  # summary["steps"] holds the measured steps (no warm-up)
        for row in summary["steps"]:
            row["held"] = bool(row["requests"]) and thresholds.judge(rules, row)["passed"]
            held += row["held"]
        for row in summary["steps"]:  # the highest step that held, below the first that broke
            if not row["held"]:
                break
            capacity = row["target_rpm"]
        summary["capacity_rpm"] = capacity
        summary["capacity_steps_held"] = held
        # The knee: the Universal Scalability Law fitted to the steps, its peak beside capacity.
        summary["scalability"] = scalability.analyse(summary["steps"], capacity)
        judged = summary["steps"][-1] if summary["steps"] else {}
        reasons = [] if capacity is not None else ["no step held the thresholds"]
        return thresholds.judge(rules, judged)["checks"], reasons


class Soak(Behaviour, catalogue.Soak):
    def judge(self, summary: dict, rules: list) -> tuple[list[dict], list[str]]:
        # Memory is read from the first bucket on when a warm-up ran before it; otherwise the
        # first bucket is the warm-up.
        summary["trend"] = results.soak_trend(summary["steps"], 0 if summary.get("warm_up") else 1)
        return super().judge(summary, rules)


class Chaos(Behaviour, catalogue.Chaos):
    def plan(self, env) -> Plan:
        settings = self.settings(env)
        names = (settings["FAULTS"] or " ".join(chaos.FAULTS)).replace(",", " ").split()
        unknown = [n for n in names if n not in chaos.FAULTS]
        if unknown:
            raise ValueError(f"unknown fault {', '.join(unknown)}; known: {', '.join(chaos.FAULTS)}")
        seconds = int(settings["PHASE_SECONDS"])
        if seconds < 8:
            raise ValueError("PHASE_SECONDS must be at least 8 (before, during and after a fault)")
        target = numbers(settings["RPM"])[0]
        steps = [Step(i, i * seconds, seconds, target_rpm=target, fault=name) for i, name in enumerate(names)]
        return Plan(self.name, steps, True, users_for(target, chaos.users_budget_seconds()))

    def background(self, run) -> list:
        return [lambda: chaos.drive(run.plan, run.t0, run.chaos_events)]

    def settle(self, run) -> dict:
        """Undo a fault the driver could not finish (a run stopped early), then retry every order
        the faults left unfulfilled, as an operator would."""
        if any(event.ended is None for event in run.chaos_events.values()):
            chaos.clear_all()
        return {"retry_fulfillment": chaos.retry_all()}

    def finish(self, run, summary: dict) -> None:
        """Judge each fault's step, with the audit's counts per step."""
        try:
            per_step = audit.by_step(run.run_dir, run.marks, run.step_of_second) if run.marks else {}
        except Exception as exc:  # the per-step counts say they are unknown
            run.log(f"could not audit the steps: {exc}")
            unknown = {"lost": None, "duplicates": None, "partial": None}
            per_step = {row["index"]: unknown for row in summary["steps"]}
        summary["reliability"] = chaos.reliability_rows(summary["steps"], run.chaos_events, per_step, run.t0)

    def judge(self, summary: dict, rules: list) -> tuple[list[dict], list[str]]:
        checks, reasons = super().judge(summary, rules)
        reasons += [
            f"{row['fault']}: " + ", ".join(c["check"] for c in row["checks"] if not c["ok"])
            for row in summary.get("reliability", [])
            if not row["passed"]
        ]
        # After retry_fulfillment --all every order of the run must be complete (as the service
        # names it; an audit that could not run has already failed the run).
        audit_result = summary["audit"]
        complete = audit_result.get("statuses", {}).get("complete")
        unfinished = {k: n for k, n in audit_result.get("orders_by_status", {}).items() if k != complete}
        if complete and unfinished:
            reasons.append(f"orders not {complete} after retry_fulfillment --all: {unfinished}")
        return checks, reasons


class Edx2015(Behaviour, catalogue.Edx2015):
    def finish(self, run, summary: dict) -> None:
        summary["client"] = client_figures(run, summary)

    def judge(self, summary: dict, rules: list) -> tuple[list[dict], list[str]]:
        checks, reasons = super().judge(summary, rules)
        client = summary.get("client", {})
        if client.get("failures"):
            reasons.append(f"{client['failures']} requests failed")
        if client.get("task_exceptions"):
            reasons.append(f"{client['task_exceptions']} task exceptions")
        if not client.get("free_purchases") and not client.get("paid_purchases"):
            reasons.append("no purchase was answered 2xx")
        return checks, reasons


PROFILES: dict[str, Behaviour] = {
    p.name: p
    for p in (
        Ramp(),
        Rpm(),
        Capacity(),
        Overload(),
        Soak(),
        Smoke(),
        Chaos(),
        Edx2015(),
        Profiling(),
        Manual(),
    )
}


def get(name: str) -> Behaviour:
    catalogue.get(name)  # an unknown name is refused with the catalogue's list
    return PROFILES[name]
