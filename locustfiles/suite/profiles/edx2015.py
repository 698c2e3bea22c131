"""make edx2015: edX's 2015 client; any failed request or task exception fails the run."""

from locustfiles.suite.core import catalogue
from locustfiles.suite.core.summary import CLIENT, Failure, Summary
from locustfiles.suite.figures.edx2015_client import client_figures, client_reading
from locustfiles.suite.profiles.base import Behaviour, Figures, RunContext


class Edx2015(Behaviour, catalogue.Edx2015):
    def read(self, run: RunContext) -> dict:
        return {"client": client_reading(run)}

    def figures(self, summary: Summary, rules: list, read: dict | None = None) -> Figures:
        return {"client": client_figures(read["client"], summary)} if read else {}

    def judge(self, summary: Summary, rules: list) -> tuple[list[dict], list[Failure]]:
        checks, failures = super().judge(summary, rules)
        client = summary.get("client", {})
        texts = []
        if client.get("failures"):
            texts.append(f"{client['failures']} requests failed")
        if client.get("task_exceptions"):
            texts.append(f"{client['task_exceptions']} task exceptions")
        if not client.get("free_purchases") and not client.get("paid_purchases"):
            texts.append("no purchase was answered 2xx")
        return checks, failures + [Failure(kind=CLIENT, about=None, text=text) for text in texts]
