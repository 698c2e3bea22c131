"""The catalogue of load profiles: one class each, owning what a profile is before it runs
(its name, help line, defaults, plan, thresholds, step labels and report sections). Every Locust
process reads it (a worker needs the plan for its arrivals); what a profile does in the process
that keeps the results (background work, settling, its figures, judging) is in profiles/.

Standard library and ``common`` only, so that `make help` (core/help.py) can print the
profiles before the virtualenv exists.
"""

import math

from common import environment
from locustfiles.suite.core import names
from locustfiles.suite.core.knee import hold_seconds
from locustfiles.suite.core.plan import LivePlan, Plan, Step, numbers, users_for, with_warm_up
from locustfiles.suite.core.settings import RunSettings, parse
from locustfiles.suite.core.text import plural

# What every profile's run reads besides its own sizes: the learners' mix, the run's extras.
COMMON_SETTINGS = (
    "COURSES",
    "PRELOAD",
    "THRESHOLDS",
    "WORKERS",
    "HOST_PROFILE",
    "UI",
    "REQUEST_LOG",
    "WAIT_MIN",
    "WAIT_MAX",
    "BUY_WEIGHT",
    "PAY_WEIGHT",
    "READ_WEIGHT",
    "NOISE_PCT",
    "NOISE_MS",
)
# The closed model's learners think between two tasks; an open model's arrivals come at the
# target rate whatever the users do (users/arrivals.py: no wait), so its run does not read these.
THINK_TIME = ("WAIT_MIN", "WAIT_MAX")


class Profile:
    """A kind of run. Subclasses set the class attributes and override what differs."""

    name = ""
    help = ""  # one line for `make help`; {VARIABLE} is replaced by "VARIABLE (default)"
    defaults: dict[str, str] = {}
    unset: dict[str, str] = {}  # what an empty default means, for the help
    thresholds = "errors<0.01"  # k6 style; THRESHOLDS overrides
    open_model = False
    sections: tuple[str, ...] = ()  # profile-specific report sections (report/sections/ knows them)
    # The endpoints whose 2xx answers are purchases: the audit expects an order number for each.
    # None: the suite's learners' (a free purchase answered 2xx by the LMS, a paid order read
    # back 200 from ecommerce once its payment was taken; results.successes).
    purchase_endpoints: tuple[str, ...] | None = None
    # What a client of the profile's own reads besides the sizes (variables of the environment's
    # table): make run's start form offers them beside the sizes.
    client_settings: tuple[str, ...] = ()
    lists: tuple[str, ...] = ()  # the settings of which this profile takes several values (USERS)
    runnable = True  # a make target starts it (manual runs come from make run's web UI)

    def reads(self) -> tuple[str, ...]:
        """Every setting a run of this profile reads (core/settings.py checks each; make run's
        start form shows these: core/start_form.read_by)."""
        common = [name for name in COMMON_SETTINGS if not (self.open_model and name in THINK_TIME)]
        return (*self.defaults, *self.client_settings, *common)

    def run_settings(self, env) -> RunSettings:
        """This profile's settings as ``env`` gives them, checked; SettingError names a bad one."""
        defaults = {"THRESHOLDS": self.thresholds, **self.defaults}
        return parse(self.name, self.reads(), env, defaults, self.lists)

    def settings(self, env) -> dict[str, str]:
        """This profile's sizes, checked: the environment's value, else the profile's default."""
        checked = self.run_settings(env)
        return {key: checked.text(key, default) for key, default in self.defaults.items()}

    def plan(self, env) -> Plan:
        raise NotImplementedError

    def locustfiles(self, env) -> list[str]:
        """What Locust loads (-f), relative to the checkout or absolute."""
        return [f"locustfiles/{self.name}.py"]

    def client_locustfile(self, env) -> str | None:
        """The locustfile of a client of the profile's own (relative to the checkout or
        absolute), whose users make run's start form loads at Start; None: the suite's learners."""
        return None

    def label(self, step: Step) -> str:
        if step.label:
            return step.label
        if step.users is not None:
            return plural(step.users, "user")
        return f"{step.target_rpm:g} RPM"

    def help_line(self) -> str:
        text = self.help
        for key, default in self.defaults.items():
            shown = default or self.unset.get(key, "unset")
            text = text.replace("{" + key + "}", f"{key} ({shown})")
        return text


def _warm_up_seconds(settings: dict) -> int:
    return int(settings["WARMUP_SECONDS"])


def _step_seconds(settings: dict) -> int:
    return int(settings["STEP_SECONDS"])


class Ramp(Profile):
    name = "ramp"
    help = "{USERS} learners for {STEP_SECONDS} s each, think time 3-5 s: edX's Round 0 table"
    defaults = {"USERS": "1 2 3 4 5 6 7 8 9 10", "STEP_SECONDS": "60"}
    lists = ("USERS",)

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
        steps = with_warm_up([Step(0, 0, duration, target_rpm=target)], _warm_up_seconds(settings), target)
        return Plan(self.name, steps, True, users_for(target))


class Profiling(Rpm):
    """make profile: an rpm run whose measured step py-spy samples, process group by
    process group (profiling/pyspy.py): flame graphs and the top frames per service in the run
    folder and the report. The load is moderate by default: on a machine short of cores the
    sampler's own CPU and the preempted processes it samples would distort what it measures."""

    name = "profile"
    help = (
        "purchases at {RPM} per minute for {DURATION} s after {WARMUP_SECONDS} s of warm-up, as rpm; "
        "py-spy samples ecommerce, lms_stub, the rollup and Locust at {SAMPLE_HZ} Hz after the "
        "warm-up: flame graphs and top frames per service"
    )
    defaults = {"RPM": "900", "DURATION": "60", "WARMUP_SECONDS": "15", "SAMPLE_HZ": "49"}
    sections = ("profiling",)

    def rate(self, env) -> int:
        return int(self.settings(env)["SAMPLE_HZ"])

    def plan(self, env) -> Plan:
        self.rate(env)
        return super().plan(env)

    def locustfiles(self, env) -> list[str]:
        # rpm's users and shape (PROFILE is already "profile"); a locustfiles/profile.py would
        # be imported as "profile", which is a module of the standard library.
        return ["locustfiles/rpm.py"]


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
        steps = [Step(0, 0, duration, target_rpm=target, label=f"{target:g} RPM (overload)")]
        steps = with_warm_up(steps, _warm_up_seconds(settings), capacity)
        return Plan(self.name, steps, True, users_for(target))


class Capacity(Profile):
    name = "capacity"
    help = (
        "RPM steps from {RPM_START} by {RPM_STEP} to {RPM_MAX} (or a list in {RPM}), {STEP_SECONDS} s "
        "each, until a threshold breaks, then probes between the last that held and it until they are "
        "{KNEE_PCT} % apart; reports the highest RPM that held; first {WARMUP_SECONDS} s of warm-up at "
        "the first rate, reported apart"
    )
    defaults = {
        "RPM": "",
        "RPM_START": "300",
        "RPM_STEP": "300",
        "RPM_MAX": "6000",
        "KNEE_PCT": "3",
        "STEP_SECONDS": "60",
        "WARMUP_SECONDS": "60",
    }
    unset = {"RPM": "unset"}
    lists = ("RPM",)
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
            targets = [start + i * step for i in range(max(int((top - start) // step) + 1, 1))]
        self.knee(env)  # refused before the run, not when a step breaks
        steps = [Step(i, i * seconds, seconds, target_rpm=r) for i, r in enumerate(targets)]
        # A step is judged once its slowest requests have had time to end and be reported (a
        # Locust worker reports every 3 s: 4 s at least). The last rate is held meanwhile, so
        # that the search can still probe below it if it broke (core/knee.py cuts this short).
        grace = min(6, max(4, seconds // 2))
        tail = Step(len(steps), steps[-1].end, hold_seconds(grace), target_rpm=targets[-1], judged=False)
        steps = with_warm_up([*steps, tail], _warm_up_seconds(settings), targets[0])
        return Plan(self.name, steps, True, users_for(max(targets)), grace=grace)

    def knee(self, env) -> float:
        """How close (a fraction) the rates that held and broke must come for the search to end."""
        return numbers(self.settings(env)["KNEE_PCT"])[0] / 100

    def increment(self, env) -> float | None:
        """What the climb adds at each step when it climbs on past RPM_MAX (RPM_STEP); None for
        a listed plan, whose rates are the user's."""
        settings = self.settings(env)
        return None if len(settings["RPM"].replace(",", " ").split()) > 1 else float(settings["RPM_STEP"])

    def label(self, step: Step) -> str:
        """A rate held while a step is judged, or a climbing step the search cut short, says it
        judged nothing."""
        text = super().label(step)
        return text if step.judged else f"{text} (not judged)"


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
        steps = [
            Step(i, i * bucket, min(bucket, total - i * bucket), target_rpm=target, label=f"bucket {i + 1}")
            for i in range(math.ceil(total / bucket))
        ]
        return Plan(
            self.name, with_warm_up(steps, _warm_up_seconds(settings), target), True, users_for(target)
        )

    def label(self, step: Step) -> str:
        return step.label or f"bucket {step.index + 1}"


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
    # Its plan is the faults' (their registry and timeouts): profiles/chaos.py.

    def label(self, step: Step) -> str:
        return step.fault or super().label(step)


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
    purchase_endpoints = names.PURCHASES
    sections = ("client",)
    client_settings = ("LOCUST_TASK_SET", "EDX2015_WAIT_SCALE")

    def plan(self, env) -> Plan:
        settings = self.settings(env)
        users, duration = int(settings["USERS"]), int(settings["DURATION"])
        return Plan(self.name, [Step(0, 0, duration, users=users)], open_model=False, users=users)

    def locustfiles(self, env) -> list[str]:
        """The client (ours, or edX's own: EDX2015_LOCUSTFILE), and the suite beside it."""
        return [self.client_locustfile(env), "locustfiles/edx2015_hooks.py"]

    def client_locustfile(self, env) -> str:
        return environment.get("EDX2015_LOCUSTFILE", env)


class Manual(Profile):
    """A run whose users are set by hand: the web UI's form (make run) or Locust's -u/-t.
    Each change of the user count starts a step; the plan is written as the run goes."""

    name = "manual"
    runnable = False
    help = "users set by hand in the web UI (make run): each change of the user count is a step"

    def plan(self, env) -> Plan:
        return LivePlan(self.name)


# In `make help`'s order. Adding a profile: its class here, its behaviour (profiles/) and its
# users' locustfile; the Makefile's target, the help, the form and the docs follow from this.
CATALOGUE: dict[str, Profile] = {
    p.name: p
    for p in (
        Smoke(),
        Ramp(),
        Rpm(),
        Capacity(),
        Overload(),
        Soak(),
        Chaos(),
        Edx2015(),
        Profiling(),
        Manual(),
    )
}
# The profiles a `make` target and `python -m locustfiles.suite.run` start (manual runs come
# from the web UI of `make run`).
RUNNABLE = tuple(name for name, profile in CATALOGUE.items() if profile.runnable)


def get(name: str) -> Profile:
    try:
        return CATALOGUE[name]
    except KeyError:
        raise ValueError(f"unknown profile {name!r}; one of {', '.join(CATALOGUE)}") from None
