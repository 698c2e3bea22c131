"""make edx2015: edX's 2015 client; any failed request or task exception fails the run."""

from locustfiles.suite.core import catalogue
from locustfiles.suite.figures.edx2015_client import client_figures
from locustfiles.suite.profiles.base import Behaviour


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
