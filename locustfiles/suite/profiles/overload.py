"""make overload: judged on the purchases answered 2xx too, and on what refusals left behind."""

from locustfiles.suite.core import catalogue
from locustfiles.suite.core.summary import OVERLOAD, Failure, Summary
from locustfiles.suite.core.text import plural
from locustfiles.suite.figures import results
from locustfiles.suite.profiles.base import ACCEPTED, Behaviour, Figures, broken_thresholds


class Overload(Behaviour, catalogue.Overload):
    def figures(self, summary: Summary, rules: list, read: dict | None = None) -> Figures:
        return {"overload": results.overload_figures(summary)}

    def judge(self, summary: Summary, rules: list) -> tuple[list[dict], list[Failure]]:
        checks, failures = super().judge(summary, rules)
        accepted = summary["overall"].get("accepted") or {}
        broken = []
        for rule in rules:
            if rule.metric in accepted:
                ok, value = rule.check(accepted)
                checks.append({"threshold": str(rule), "scope": ACCEPTED, "value": value, "ok": ok})
                broken += [] if ok else [f"{rule} ({ACCEPTED})"]
        failures += broken_thresholds(broken, ACCEPTED)
        left = summary["overload"]["orders_left_by_refusals"]
        if left:
            text = f"{plural(left, 'order')} committed for purchases that were not answered 2xx"
            failures.append(Failure(kind=OVERLOAD, about=None, text=text))
        return checks, failures
