"""What the simulated learners do, and how often: their think time, the mix of journeys, the
courses they buy among.

The mix follows edX's 2015 suite, which weighed its basket task set 50 to its payment task set's
1: BUY_WEIGHT free purchases through the LMS for every PAY_WEIGHT paid ones through the payment
processor, and READ_WEIGHT reads of the learner's last order. The read weight keeps the share
the suite had before it paid for anything (one read for every ten purchases): 50 : 1 : 5.

In the closed model (ramp, smoke, a web UI run) the weights are Locust's task weights. In the
open model (rpm, capacity, soak, chaos) every arrival is a purchase: PAY_WEIGHT of every
BUY_WEIGHT + PAY_WEIGHT arrivals take the paid journey, spread evenly over the plan's arrivals
(so a step's share is exact, not a draw), and a purchase is read back with a chance of
READ_WEIGHT / (BUY_WEIGHT + PAY_WEIGHT). Its arrivals come at the rate, whatever the users do:
no think time, so WAIT_MIN and WAIT_MAX are not read.

Standard library only: ``make help`` prints the defaults before the virtualenv exists.
"""

from collections.abc import Mapping

from common.environment import get, raw
from locustfiles.suite.core.settings import setting

WEIGHTS = {"buy": "BUY_WEIGHT", "pay": "PAY_WEIGHT", "read": "READ_WEIGHT"}
# The defaults (common/environment/load.py): think time 3-5 s as in 2015, edX's 50 : 1 mix, a
# read for every ten purchases.
LOAD_DEFAULTS = {
    name: get(name, {}) for name in ("WAIT_MIN", "WAIT_MAX", "BUY_WEIGHT", "PAY_WEIGHT", "READ_WEIGHT")
}


def load_settings(env: Mapping[str, str], *, open_model: bool) -> dict:
    """The learners' settings as they take effect: the mix and the courses, and in the closed
    model the think time. ValueError names a variable that cannot be used."""
    mix = mix_settings(env)
    return mix if open_model else {"think_time": think_time(env), **mix}


def mix_settings(env: Mapping[str, str]) -> dict:
    """What every learner reads: the journeys' weights and the courses it buys among."""
    weights = {key: _weight(env, name) for key, name in WEIGHTS.items()}
    if weights["buy"] + weights["pay"] == 0:
        raise ValueError("BUY_WEIGHT and PAY_WEIGHT are both 0: the learners would buy nothing")
    return {
        "weights": weights,
        "courses": get("COURSES", env),  # CATALOG_COURSES unless set
    }


def think_time(env: Mapping[str, str]) -> dict[str, float]:
    """The closed model's think time between a learner's tasks, in seconds."""
    return {"min_seconds": _seconds(env, "WAIT_MIN"), "max_seconds": _seconds(env, "WAIT_MAX")}


def _weight(env: Mapping[str, str], name: str) -> int:
    return setting(name).parse((raw(name, env) or "").strip())


def _seconds(env: Mapping[str, str], name: str) -> float:
    return setting(name).parse((raw(name, env) or "").strip())


def paid_arrival(index: int, weights: Mapping[str, int]) -> bool:
    """Whether arrival ``index`` (0, 1, 2 ... over the whole plan, whichever Locust process takes
    it) takes the paid journey: PAY_WEIGHT of every BUY_WEIGHT + PAY_WEIGHT, evenly spaced.
    With 50 : 1 that is arrivals 50, 101, 152 ...; with 1 : 1 every second one."""
    pay, total = weights["pay"], weights["buy"] + weights["pay"]
    return (index + 1) * pay // total > index * pay // total


def read_share(weights: Mapping[str, int]) -> float:
    """The chance that an open-model purchase is read back (READ_WEIGHT per purchase weight)."""
    return weights["read"] / (weights["buy"] + weights["pay"])


def help_line() -> str:
    """The mix's line of `make help`."""
    shown = " : ".join(f"{name} ({LOAD_DEFAULTS[name]})" for name in WEIGHTS.values())
    return (
        f"{shown}: free purchases through the LMS, paid ones through the payment processor "
        "(edX's 50 : 1), reads of the last order"
    )
