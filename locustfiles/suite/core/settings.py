"""A run's settings: each one's kind, unit and bounds, and the one parser that checks them.

Every value a run takes (a make variable, the start form's field, the environment of
``python -m locustfiles.suite.run``) is read here before a plan, a list or a process is made
from it: a value that is not of its kind, not finite or out of its bounds is refused naming
the setting, what it expects and what it got, in one format wherever it was given
("RPM: expects a number of purchases a minute from 1 to 60000; got 'abc'"). A name that is no
setting is refused with the nearest one ("RMP: no such setting; did you mean RPM?").

The bounds are what one machine's run can mean, not what this machine holds: a rate of
60,000 purchases a minute, a month of soak, a plan of at most MAX_STEPS steps. Steps are
counted from the numbers before any list is built, so a plan of a million buckets costs a
division, not the memory of a million steps.

Standard library and ``common`` only (the catalogue's layer).
"""

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from common.environment import default, given
from common.environment.names import hint

MAX_STEPS = 10_000  # steps (or buckets) of one plan
MAX_TEXT = 200  # characters of a value: a make variable's, not a document's


class SettingError(ValueError):
    """A refused value or name; the message starts with the setting's name."""

    def __init__(self, name: str, message: str):
        super().__init__(f"{name}: {message}")
        self.name = name


@dataclass(frozen=True)
class Setting:
    """One setting: ``kind`` is int, float, ints or floats (a list, "1 2 3" or "1,2,3"), or
    text; numbers lie in [low, high]; a list has at most ``most`` values."""

    name: str
    kind: str
    unit: str
    low: float | None = None
    high: float | None = None
    most: int = 1

    def expects(self, several: bool = False) -> str:
        """What a value must be, in words: 'a number of purchases a minute from 1 to 60000';
        ``several``: a list of them (where the profile takes one, as ramp's USERS)."""
        if self.kind == "text":
            return f"{self.unit}, at most {MAX_TEXT} characters"
        whole = self.kind in ("int", "ints")
        bounds = f"from {_shown(self.low)} to {_shown(self.high)}"
        if several:
            return (
                f"up to {self.most} {'whole numbers' if whole else 'numbers'} of {self.unit}, each {bounds}"
            )
        return f"{'a whole number' if whole else 'a number'} of {self.unit} {bounds}"

    def parse(self, text: str, several: bool = False):
        """``text`` as this setting's kind (a list of them with ``several``, for a list kind);
        SettingError when it is not one."""
        several = several and self.kind in ("ints", "floats")
        if len(text) > MAX_TEXT:
            raise SettingError(self.name, f"expects {self.expects(several)}; got {len(text)} characters")
        if self.kind == "text":
            return text
        words = text.replace(",", " ").split()
        if not words or len(words) > (self.most if several else 1):
            raise SettingError(self.name, f"expects {self.expects(several)}; got {text!r}")
        values = [self._number(word, text, several) for word in words]
        return values if several else values[0]

    def _number(self, word: str, text: str, several: bool):
        whole = self.kind in ("int", "ints")
        try:
            value = int(word) if whole else float(word)
        except ValueError:
            raise SettingError(self.name, f"expects {self.expects(several)}; got {text!r}") from None
        low = -math.inf if self.low is None else self.low  # None: no bound that way
        high = math.inf if self.high is None else self.high
        if not math.isfinite(value) or not low <= value <= high:
            raise SettingError(self.name, f"expects {self.expects(several)}; got {text!r}")
        return value


def _shown(number: float | None) -> str:
    return f"{number:g}" if number is not None and number != int(number) else f"{int(number or 0)}"


DAY = 86_400
RATE = 60_000  # purchases a minute: a thousand a second
SETTINGS = {
    s.name: s
    for s in (
        Setting("USERS", "ints", "users", 1, 10_000, most=100),
        Setting("STEP_SECONDS", "int", "seconds", 1, DAY),
        Setting("RPM", "floats", "purchases a minute", 1, RATE, most=100),
        Setting("DURATION", "int", "seconds", 1, 7 * DAY),
        Setting("HOURS", "float", "hours", 0.0003, 24 * 31),
        Setting("BUCKET_SECONDS", "int", "seconds", 1, DAY),
        Setting("RPM_START", "float", "purchases a minute", 1, RATE),
        Setting("RPM_STEP", "float", "purchases a minute", 0.1, RATE),
        Setting("RPM_MAX", "float", "purchases a minute", 1, RATE),
        Setting("KNEE_PCT", "float", "percent", 0.1, 99),
        Setting("CAPACITY_RPM", "float", "purchases a minute", 1, RATE),
        Setting("WARMUP_SECONDS", "int", "seconds", 0, DAY),
        Setting("SAMPLE_HZ", "int", "samples a second", 1, 1000),
        Setting("PRELOAD", "int", "purchases", 1, 50_000_000),
        Setting("WORKERS", "int", "Locust worker processes", 0, 64),
        Setting("COURSES", "int", "courses", 1, 10_000),
        Setting("THRESHOLDS", "text", "k6-style rules such as 'p95<460 errors<0.01'"),
        Setting("HOST_PROFILE", "text", "m3.medium or m3.xlarge"),
        Setting("UI", "text", "set (not 0 or false) for the web UI"),
        Setting("REQUEST_LOG", "text", "set to log every request"),
        Setting("WAIT_MIN", "float", "seconds", 0, 3600),
        Setting("WAIT_MAX", "float", "seconds", 0, 3600),
        Setting("BUY_WEIGHT", "int", "free purchases in the mix", 0, 1000),
        Setting("PAY_WEIGHT", "int", "paid purchases in the mix", 0, 1000),
        Setting("READ_WEIGHT", "int", "reads in the mix", 0, 1000),
        Setting("NOISE_PCT", "float", "percent", 0, 1000),
        Setting("NOISE_MS", "float", "milliseconds", 0, 60_000),
        Setting("FAULTS", "text", "fault names, comma- or space-separated"),
        Setting("PHASE_SECONDS", "int", "seconds", 1, DAY),
        Setting("FAULT_SECONDS", "int", "seconds", 1, DAY),
        Setting("LOCUST_TASK_SET", "text", "the 2015 client's task set"),
        Setting("EDX2015_WAIT_SCALE", "float", "times the 2015 wait", 0, 100),
    )
}


def setting(name: str) -> Setting:
    try:
        return SETTINGS[name]
    except KeyError:
        raise SettingError(name, f"no such setting; {hint(name, SETTINGS)}") from None


def refuse_unknown(names: Iterable[str], known: Iterable[str]) -> None:
    """SettingError for the first of ``names`` that is not ``known``, with the nearest."""
    known = set(known)
    for name in names:
        if name not in known:
            raise SettingError(name, f"no such setting; {hint(name, known)}")


@dataclass(frozen=True)
class RunSettings:
    """A run's settings: the texts as given (only those given), and each setting the profile
    reads that has a value, given or the profile's default, checked and typed (a name absent
    from ``values`` has neither: the table's default applies, or the profile's rule for it)."""

    profile: str
    given: Mapping[str, str]
    values: Mapping[str, object]

    def text(self, name: str, fallback: str = "") -> str:
        return self.given.get(name, fallback)

    def whole(self, name: str) -> int | None:
        """An "int" setting's value; None when it has none."""
        value = self.values.get(name)
        if value is not None and not isinstance(value, int):
            raise TypeError(f"{name} is not a whole-number setting")
        return value

    def record(self) -> dict:
        """summary.json's ``settings``: as given, and as the run resolved them."""
        return {"given": dict(self.given), "resolved": dict(self.values)}


def parse(
    profile: str,
    names: Iterable[str],
    env: Mapping[str, str],
    defaults: Mapping[str, str] | None = None,
    lists: Iterable[str] = (),
) -> RunSettings:
    """The settings ``names`` (what ``profile`` reads) as ``env`` gives them, else as
    ``defaults`` (the profile's), each checked, then the plan's size counted from them:
    SettingError for the first that is refused. A list setting ("1 2 3") takes several values
    only where ``profile`` lists it in ``lists`` (ramp's USERS, capacity's RPM). A setting
    neither given nor the profile's takes the table's default (common/environment), if any."""
    defaults = defaults or {}
    texts = {name: text for name in names if (text := (given(name, env) or "").strip())}
    resolved = {name: texts.get(name) or defaults.get(name) or default(name, env) or "" for name in names}
    values = {name: setting(name).parse(text, name in lists) for name, text in resolved.items() if text}
    _check_size(values)
    return RunSettings(profile, texts, values)


def _check_size(values: Mapping[str, Any]) -> None:
    """The plans that a few numbers make large (soak's buckets, capacity's climb), counted."""
    hours, bucket = values.get("HOURS"), values.get("BUCKET_SECONDS")
    if hours is not None and bucket is not None and hours * 3600 / bucket > MAX_STEPS:
        buckets = math.ceil(hours * 3600 / bucket)
        raise SettingError(
            "BUCKET_SECONDS",
            f"HOURS {hours:g} in buckets of {bucket} s make {buckets} buckets, more than {MAX_STEPS}: "
            "give longer buckets",
        )
    start, step, top = (values.get(name) for name in ("RPM_START", "RPM_STEP", "RPM_MAX"))
    listed = isinstance(values.get("RPM"), list) and len(values["RPM"]) > 1
    if (
        not listed
        and start is not None
        and step is not None
        and top is not None
        and (top - start) / step > MAX_STEPS
    ):
        raise SettingError(
            "RPM_STEP",
            f"from {start:g} to {top:g} by {step:g} makes more than {MAX_STEPS} steps: give a larger step",
        )
