"""make chaos: one fault per step, driven beside the load, each judged on its own step; after the
load, every order the faults left unfulfilled is retried, as an operator would."""

from locustfiles.suite import chaos
from locustfiles.suite.core import catalogue
from locustfiles.suite.core.plan import Plan, Step, numbers, users_for
from locustfiles.suite.core.summary import FAULT, RETRY, Failure, Summary
from locustfiles.suite.profiles.base import Behaviour, Figures, RunContext
from locustfiles.suite.verdict import audit


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
        chaos.fault_window(seconds, env)  # a FAULT_SECONDS that is no number: refused before the run
        target = numbers(settings["RPM"])[0]
        steps = [Step(i, i * seconds, seconds, target_rpm=target, fault=name) for i, name in enumerate(names)]
        return Plan(self.name, steps, True, users_for(target, chaos.users_budget_seconds()))

    def new_state(self, run: RunContext) -> dict:
        """The faults' events by name, as the driver records them."""
        return {}

    def background(self, run: RunContext) -> list:
        return [lambda: chaos.drive(run.plan, run.t0, run.profile_state)]

    def settle(self, run: RunContext) -> Figures:
        """Undo a fault the driver could not finish (a run stopped early), then retry every order
        the faults left unfulfilled, as an operator would."""
        if any(event.ended is None for event in run.profile_state.values()):
            chaos.clear_all()
        return {"retry_fulfillment": chaos.retry_all()}

    def read(self, run: RunContext) -> dict:
        """The audit's counts per step (None: they could not be read), the faults' events."""
        try:
            per_step = audit.by_step(run.run_dir, run.marks, run.step_of_second) if run.marks else {}
        except Exception as exc:  # the per-step counts say they are unknown
            run.log(f"could not audit the steps: {exc}")
            per_step = None
        return {"per_step": per_step, "events": run.profile_state, "t0": run.t0}

    def figures(self, summary: Summary, rules: list, read: dict | None = None) -> Figures:
        """Each fault's step judged, with the audit's counts per step."""
        if not read:
            return {}
        per_step = read["per_step"]
        if per_step is None:
            unknown = {"lost": None, "duplicates": None, "partial": None}
            per_step = {row["index"]: unknown for row in summary["steps"]}
        return {"reliability": chaos.reliability_rows(summary["steps"], read["events"], per_step, read["t0"])}

    def judge(self, summary: Summary, rules: list) -> tuple[list[dict], list[Failure]]:
        checks, failures = super().judge(summary, rules)
        failures += [
            Failure(
                kind=FAULT,
                about=row["fault"],
                text=f"{row['fault']}: " + ", ".join(c["check"] for c in row["checks"] if not c["ok"]),
            )
            for row in summary.get("reliability", [])
            if not row["passed"]
        ]
        # After retry_fulfillment --all every order of the run must be complete (as the service
        # names it; an audit that could not run has already failed the run).
        audit_result = summary["audit"]
        complete = audit_result.get("statuses", {}).get("complete")
        unfinished = {k: n for k, n in audit_result.get("orders_by_status", {}).items() if k != complete}
        if complete and unfinished:
            text = f"orders not {complete} after retry_fulfillment --all: {unfinished}"
            failures.append(Failure(kind=RETRY, about=None, text=text))
        return checks, failures
