"""make capacity: the steps climb until one breaks a threshold; capacity is the highest step
that held, beside the machine's ceiling at that step, with the scalability model fitted to the
steps."""

from locustfiles.suite.core import catalogue, thresholds
from locustfiles.suite.figures import ceiling, cpu, results, scalability
from locustfiles.suite.profiles.base import Behaviour


class Capacity(Behaviour, catalogue.Capacity):
    def should_stop(self, run, now: float) -> bool:
        return run.broken_step(now) is not None

    def figures(self, summary: dict, rules: list, read: dict | None = None) -> dict:
        """Capacity, each step marked held or not with its ceiling, capacity's share of the
        ceiling at its step, and the knee: the Universal Scalability Law fitted to the steps,
        its peak beside capacity."""
        search = results.capacity_search(summary["steps"], rules)  # the measured steps, no warm-up
        cores = cpu.machine_cores(summary)
        for row, held in zip(summary["steps"], search["held"], strict=True):
            row["held"] = held
            row["ceiling_rpm"] = ceiling.step_ceiling(row, cores)
        return {
            "capacity_rpm": search["capacity_rpm"],
            "capacity_steps_held": sum(search["held"]),
            "ceiling": ceiling.capacity_ceiling(summary["steps"], search["capacity_rpm"], cores),
            "scalability": scalability.analyse(summary["steps"], search["capacity_rpm"]),
        }

    def judge(self, summary: dict, rules: list) -> tuple[list[dict], list[str]]:
        judged = summary["steps"][-1] if summary["steps"] else {}
        reasons = [] if summary["capacity_rpm"] is not None else ["no step held the thresholds"]
        return thresholds.judge(rules, judged)["checks"], reasons
