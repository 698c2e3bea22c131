"""The load profiles: one class each, owning its defaults, plan, thresholds, stop rule, step
labels, report sections and judging. Everything else (the Makefile's help, the runner, the
hooks, the report) asks the profile instead of testing its name.

Standard library only, so that ``python3 -m locustfiles.suite.profiles`` can print the
Makefile's help before the virtualenv exists.
"""

import math
import sys

from common import environment
from locustfiles.suite import edx2015
from locustfiles.suite.plan import LivePlan, Plan, Step, numbers, users_for, with_warm_up

# The make variables every profile may read; each profile says which it uses and its defaults.
SIZE_VARIABLES = (
    "USERS",
    "STEP_SECONDS",
    "RPM",
    "DURATION",
    "HOURS",
    "BUCKET_SECONDS",
    "RPM_START",
    "RPM_STEP",
    "RPM_MAX",
    "FAULTS",
    "PHASE_SECONDS",
    "FAULT_SECONDS",
    "WARMUP_SECONDS",
    "SAMPLE_HZ",
    "CAPACITY_RPM",
)


def plural(count, one: str, many: str | None = None) -> str:
    """'1 user', '3 users', '2.5 users'."""
    return f"{count:g} {one if count == 1 else (many or one + 's')}"


class Profile:
    """A kind of run. Subclasses set the class attributes and override what differs."""

    name = ""
    help = ""  # one line for `make help`; {VARIABLE} is replaced by "VARIABLE (default)"
    defaults: dict[str, str] = {}
    unset: dict[str, str] = {}  # what an empty default means, for the help
    thresholds = "errors<0.01"  # k6 style; THRESHOLDS overrides
    open_model = False
    sections: tuple[str, ...] = ()  # profile-specific report sections (report.py knows them)
    # The endpoints whose 2xx answers are purchases: the audit expects an order number for each.
    # None: the suite's learners' (a free purchase answered 2xx by the LMS, a paid order read
    # back 200 from ecommerce once its payment was taken; results.successes).
    purchase_endpoints: tuple[str, ...] | None = None

    def settings(self, env) -> dict[str, str]:
        """This profile's variables: the environment's value, else the profile's default."""
        return {key: (env.get(key) or default) for key, default in self.defaults.items()}

    def plan(self, env) -> Plan:
        raise NotImplementedError

    def locustfiles(self, env) -> list[str]:
        """What Locust loads (-f), relative to the checkout or absolute."""
        return [f"locustfiles/{self.name}.py"]

    def label(self, step: Step) -> str:
        if step.label:
            return step.label
        if step.users is not None:
            return plural(step.users, "user")
        return f"{step.target_rpm:g} RPM"

    def should_stop(self, run, now: float) -> bool:
        """Whether the run should end before its plan does (capacity: a step broke)."""
        return False

    def background(self, run) -> list:
        """Functions to run as greenlets beside the load in the process that keeps results."""
        return []

    def judge(self, summary: dict, rules: list) -> tuple[list[dict], list[str]]:
        """(threshold checks, reasons the run failed) beyond the audit; may add keys to the
        summary. By default the whole run is judged against the thresholds."""
        from locustfiles.suite import thresholds

        judged = thresholds.judge(rules, summary["overall"])
        failed = [c["threshold"] for c in judged["checks"] if not c["ok"]]
        return judged["checks"], ["thresholds failed: " + ", ".join(failed)] if failed else []

    def settle(self, run) -> dict:
        """Work done after the load stops and before the audit (its result joins the summary)."""
        return {}

    def finish(self, run, summary: dict) -> None:
        """Add what this profile measures after the audit."""

    def help_line(self) -> str:
        text = self.help
        for key, default in self.defaults.items():
            shown = default or self.unset.get(key, "unset")
            text = text.replace("{" + key + "}", f"{key} ({shown})")
        return text


def _warm_up_seconds(settings: dict) -> int:
    seconds = int(settings["WARMUP_SECONDS"])
    if seconds < 0:
        raise ValueError("WARMUP_SECONDS must be 0 (no warm-up) or more")
    return seconds


def _step_seconds(settings: dict) -> int:
    seconds = int(settings["STEP_SECONDS"])
    if seconds < 1:
        raise ValueError("STEP_SECONDS must be at least 1")
    return seconds


class Ramp(Profile):
    name = "ramp"
    help = "{USERS} learners for {STEP_SECONDS} s each, think time 3-5 s: edX's Round 0 table"
    defaults = {"USERS": "1 2 3 4 5 6 7 8 9 10", "STEP_SECONDS": "60"}

    def plan(self, env) -> Plan:
        settings = self.settings(env)
        counts = numbers(settings["USERS"], int)
        seconds = _step_seconds(settings)
        steps = [Step(i, i * seconds, seconds, users=u) for i, u in enumerate(counts)]
        return Plan(self.name, steps, open_model=False, users=max(counts))


class Smoke(Ramp):
    name = "smoke"
    help = "{USERS} learners for {STEP_SECONDS} s, for a quick check"
    defaults = {"USERS": "2", "STEP_SECONDS": "5"}


class Rpm(Profile):
    name = "rpm"
    help = "purchases at {RPM} per minute for {DURATION} s, open model, after {WARMUP_SECONDS} s of warm-up"
    defaults = {"RPM": "78", "DURATION": "600", "WARMUP_SECONDS": "0"}
    thresholds = "p95<460 errors<0.01 missed<0.01"
    open_model = True

    def plan(self, env) -> Plan:
        settings = self.settings(env)
        target = numbers(settings["RPM"])[0]
        duration = int(settings["DURATION"])
        if duration < 1:
            raise ValueError("DURATION must be at least 1 second")
        steps = with_warm_up([Step(0, 0, duration, target_rpm=target)], _warm_up_seconds(settings), target)
        return Plan(self.name, steps, True, users_for(target))


class Profiling(Rpm):
    """make profile: an rpm run whose measured step py-spy samples, process group by process
    group (profiler.py): flame graphs and the top frames per service in the run folder and the
    report. The load is moderate by default: on a machine short of cores the sampler's own CPU
    and the preempted processes it samples would distort what it measures."""

    name = "profile"
    help = (
        "purchases at {RPM} per minute for {DURATION} s after {WARMUP_SECONDS} s of warm-up, as rpm; "
        "py-spy samples ecommerce, lms_stub, the rollup and Locust at {SAMPLE_HZ} Hz after the "
        "warm-up: flame graphs and top frames per service"
    )
    defaults = {"RPM": "900", "DURATION": "60", "WARMUP_SECONDS": "15", "SAMPLE_HZ": "49"}
    sections = ("profiling",)

    def rate(self, env) -> int:
        text = self.settings(env)["SAMPLE_HZ"]
        if not text.isdigit() or not 1 <= int(text) <= 1000:
            raise ValueError(f"SAMPLE_HZ must be a whole number of samples a second, 1 to 1000, not {text!r}")
        return int(text)

    def plan(self, env) -> Plan:
        self.rate(env)
        return super().plan(env)

    def locustfiles(self, env) -> list[str]:
        # rpm's users and shape (PROFILE is already "profile"); a locustfiles/profile.py would
        # be imported as "profile", which is a module of the standard library.
        return ["locustfiles/rpm.py"]

    def background(self, run) -> list:
        from locustfiles.suite.profiler import Profiler

        run.profiler = Profiler(
            run.run_dir, environment.get("VAR_DIR", run.env), self.rate(run.env), run.distributed
        )
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


# A threshold's scope (its check's "scope"): judged on the purchases answered 2xx alone.
ACCEPTED = "accepted purchases"


class Overload(Profile):
    """Past capacity on purpose: is the overload handled well? Purchases arrive at RPM, or at
    1.5 x CAPACITY_RPM (what a capacity run held), after a warm-up at the capacity rate. A
    service past its limit refuses new work at once (503 overloaded, Retry-After: common/
    shedding.py), so PASS means: p95 bounded, for every answer and for the accepted purchases
    alone (fast refusals must not flatter it); every failure a JSON 503 or 429 (``unshed``);
    and no refused purchase left an order behind (the audit's unanswered orders are no more
    than the paid journeys that failed after their payment was taken)."""

    name = "overload"
    help = (
        "past capacity: purchases at {RPM} per minute for {DURATION} s after {WARMUP_SECONDS} s of "
        "warm-up at {CAPACITY_RPM}; PASS: p95 bounded, every failure a JSON 503/429 that left nothing"
    )
    defaults = {"RPM": "", "CAPACITY_RPM": "", "DURATION": "120", "WARMUP_SECONDS": "30"}
    unset = {"RPM": "1.5 × CAPACITY_RPM", "CAPACITY_RPM": "RPM / 1.5; give one of them"}
    thresholds = "p95<2000 unshed<0.01"
    open_model = True
    sections = ("overload",)
    FACTOR = 1.5

    def rates(self, env) -> tuple[float, float]:
        """(the overload rate, the warm-up's rate)."""
        settings = self.settings(env)
        if settings["RPM"]:
            target = numbers(settings["RPM"])[0]
            capacity = (
                numbers(settings["CAPACITY_RPM"])[0] if settings["CAPACITY_RPM"] else target / self.FACTOR
            )
        elif settings["CAPACITY_RPM"]:
            capacity = numbers(settings["CAPACITY_RPM"])[0]
            target = capacity * self.FACTOR
        else:
            raise ValueError("the overload profile needs RPM, or CAPACITY_RPM (it runs at 1.5 × that)")
        return round(target, 1), round(capacity, 1)

    def plan(self, env) -> Plan:
        settings = self.settings(env)
        target, capacity = self.rates(env)
        duration = int(settings["DURATION"])
        if duration < 1:
            raise ValueError("DURATION must be at least 1 second")
        steps = [Step(0, 0, duration, target_rpm=target, label=f"{target:g} RPM (overload)")]
        steps = with_warm_up(steps, _warm_up_seconds(settings), capacity)
        return Plan(self.name, steps, True, users_for(target))

    def judge(self, summary: dict, rules: list) -> tuple[list[dict], list[str]]:
        from locustfiles.suite import results

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


class Capacity(Profile):
    name = "capacity"
    help = (
        "RPM steps from {RPM_START} by {RPM_STEP} to {RPM_MAX} (or a list in {RPM}), {STEP_SECONDS} s "
        "each, until a threshold breaks; reports the highest RPM that held; first {WARMUP_SECONDS} s "
        "of warm-up at the first rate, reported apart"
    )
    defaults = {
        "RPM": "",
        "RPM_START": "300",
        "RPM_STEP": "300",
        "RPM_MAX": "6000",
        "STEP_SECONDS": "60",
        "WARMUP_SECONDS": "60",
    }
    unset = {"RPM": "unset"}
    thresholds = "p95<460 errors<0.01 missed<0.01"
    open_model = True
    sections = ("capacity",)

    def plan(self, env) -> Plan:
        settings = self.settings(env)
        seconds = _step_seconds(settings)
        listed = settings["RPM"].replace(",", " ").split()
        if len(listed) > 1:
            targets = numbers(settings["RPM"])
        else:
            start, step, top = (float(settings[k]) for k in ("RPM_START", "RPM_STEP", "RPM_MAX"))
            if step <= 0:
                raise ValueError("RPM_STEP must be positive")
            targets = [start + i * step for i in range(max(int((top - start) // step) + 1, 1))]
        steps = [Step(i, i * seconds, seconds, target_rpm=r) for i, r in enumerate(targets)]
        steps = with_warm_up(steps, _warm_up_seconds(settings), targets[0])
        # A step is judged once its slowest requests have had time to end and be reported.
        grace = min(6, max(2, seconds // 2))
        return Plan(self.name, steps, True, users_for(max(targets)), grace=grace)

    def should_stop(self, run, now: float) -> bool:
        return run.broken_step(now) is not None

    def judge(self, summary: dict, rules: list) -> tuple[list[dict], list[str]]:
        from locustfiles.suite import scalability, thresholds  # numpy: not for `make help`

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


class Soak(Profile):
    name = "soak"
    help = (
        "{RPM} purchases per minute for {HOURS} hours in buckets of {BUCKET_SECONDS} s, with the p95 "
        "trend; first {WARMUP_SECONDS} s of warm-up, reported apart"
    )
    defaults = {"RPM": "1038", "HOURS": "64", "BUCKET_SECONDS": "3600", "WARMUP_SECONDS": "60"}
    thresholds = "p95<460 errors<0.01 missed<0.01"
    open_model = True
    sections = ("soak",)

    def plan(self, env) -> Plan:
        settings = self.settings(env)
        target = numbers(settings["RPM"])[0]
        total = int(round(float(settings["HOURS"]) * 3600))
        bucket = int(settings["BUCKET_SECONDS"])
        if total < 1 or bucket < 1:
            raise ValueError("HOURS and BUCKET_SECONDS must give at least one second")
        steps = [
            Step(i, i * bucket, min(bucket, total - i * bucket), target_rpm=target, label=f"bucket {i + 1}")
            for i in range(math.ceil(total / bucket))
        ]
        return Plan(
            self.name, with_warm_up(steps, _warm_up_seconds(settings), target), True, users_for(target)
        )

    def label(self, step: Step) -> str:
        return step.label or f"bucket {step.index + 1}"

    def judge(self, summary: dict, rules: list) -> tuple[list[dict], list[str]]:
        from locustfiles.suite import results

        # Memory is read from the first bucket on when a warm-up ran before it; otherwise the
        # first bucket is the warm-up.
        summary["trend"] = results.soak_trend(summary["steps"], 0 if summary.get("warm_up") else 1)
        return super().judge(summary, rules)


class Chaos(Profile):
    name = "chaos"
    help = (
        "each fault of {FAULTS} under {RPM} purchases per minute, {PHASE_SECONDS} s each; "
        "fails if anything is lost"
    )
    defaults = {"RPM": "300", "FAULTS": "", "PHASE_SECONDS": "30", "FAULT_SECONDS": ""}
    unset = {"FAULTS": "all", "FAULT_SECONDS": "a quarter of a phase"}
    thresholds = ""  # judged by each fault's expected outcome and the audit
    open_model = True
    sections = ("reliability",)

    def plan(self, env) -> Plan:
        from locustfiles.suite.chaos import FAULTS, users_budget_seconds

        settings = self.settings(env)
        names = (settings["FAULTS"] or " ".join(FAULTS)).replace(",", " ").split()
        unknown = [n for n in names if n not in FAULTS]
        if unknown:
            raise ValueError(f"unknown fault {', '.join(unknown)}; known: {', '.join(FAULTS)}")
        seconds = int(settings["PHASE_SECONDS"])
        if seconds < 8:
            raise ValueError("PHASE_SECONDS must be at least 8 (before, during and after a fault)")
        target = numbers(settings["RPM"])[0]
        steps = [Step(i, i * seconds, seconds, target_rpm=target, fault=name) for i, name in enumerate(names)]
        return Plan(self.name, steps, True, users_for(target, users_budget_seconds()))

    def label(self, step: Step) -> str:
        return step.fault or super().label(step)

    def background(self, run) -> list:
        from locustfiles.suite import chaos

        return [lambda: chaos.drive(run.plan, run.t0, run.chaos_events)]

    def settle(self, run) -> dict:
        """Undo a fault the driver could not finish (a run stopped early), then retry every order
        the faults left unfulfilled, as an operator would."""
        from locustfiles.suite import chaos

        if any(event.ended is None for event in run.chaos_events.values()):
            chaos.clear_all()
        return {"retry_fulfillment": chaos.retry_all()}

    def finish(self, run, summary: dict) -> None:
        """Judge each fault's step, with the audit's counts per step."""
        from locustfiles.suite import audit, chaos

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


class Edx2015(Profile):
    """edX's 2015 ecommerce client, as it ran: a fixed number of users for a while, each waiting
    3-5 s after every task. Judged on what acceptance asks of it: no failed request, no task
    exception, purchases made, and every one of them in the audit."""

    name = "edx2015"
    help = (
        "edX's 2015 ecommerce client (locustfiles/edx2015/; LOCUST_TASK_SET picks a task set) as "
        "{USERS} users for {DURATION} s; fails on any failed request or task exception"
    )
    defaults = {"USERS": "10", "DURATION": "60"}
    thresholds = ""
    purchase_endpoints = edx2015.PURCHASES
    sections = ("client",)

    def plan(self, env) -> Plan:
        settings = self.settings(env)
        users, duration = int(settings["USERS"]), int(settings["DURATION"])
        if users < 1 or duration < 1:
            raise ValueError("USERS and DURATION must be at least 1")
        return Plan(self.name, [Step(0, 0, duration, users=users)], open_model=False, users=users)

    def locustfiles(self, env) -> list[str]:
        """The client (ours, or edX's own: EDX2015_LOCUSTFILE), and the suite beside it."""
        return [environment.get("EDX2015_LOCUSTFILE", env), "locustfiles/edx2015_hooks.py"]

    def finish(self, run, summary: dict) -> None:
        summary["client"] = edx2015.figures(run, summary)

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


class Manual(Profile):
    """A run whose users are set by hand: the web UI's form (make run) or Locust's -u/-t.
    Each change of the user count starts a step; the plan is written as the run goes."""

    name = "manual"
    help = "users set by hand in the web UI (make run): each change of the user count is a step"

    def plan(self, env) -> Plan:
        return LivePlan(self.name)


PROFILES: dict[str, Profile] = {
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
# The profiles a `make` target and `python -m locustfiles.suite.run` start (manual runs come
# from the web UI of `make run`).
RUNNABLE = ("smoke", "ramp", "rpm", "capacity", "overload", "soak", "chaos", "edx2015", "profile")


def get(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown profile {name!r}; one of {', '.join(PROFILES)}") from None


def main(argv: list[str]) -> int:
    """`make help`'s lines for the profiles, from the profiles themselves."""
    from locustfiles.suite.learner_settings import help_line

    for name in RUNNABLE:
        print(f"  make {name:<12} {get(name).help_line()}")
    print(f"  {'':<17} any of them with {help_line()}")
    print(f"  {'':<17} any of them with PRELOAD=N: on a database preloaded to N purchases first")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
