"""The start form of `make run`'s web UI: which profile, its sizes and the learners' settings,
drawn from the catalogue (each profile's defaults and what an unset one means) and the
environment's table (what a variable means), and the form's answer turned back into the
environment a `make <profile>` run would have had.

A field is named as the make variable it sets (RPM, DURATION, ...), so one field serves every
profile that takes that variable, as on the command line; left empty it takes the picked
profile's default, which its help text names for each profile. A profile with a client of its
own (edx2015) adds the client's settings it names (LOCUST_TASK_SET, ...), empty: the table's
default. Locust's form lists its custom parameters all at once; the page's script shows the
picked profile's only (read_by, run/static/suite-ui.js), and the help says which profiles
read a field for a page without it.

Standard library and ``common`` only (the catalogue's layer): every Locust process builds the
form's arguments.
"""

from collections.abc import Mapping
from dataclasses import dataclass

from common import environment
from common.environment import given, raw
from locustfiles.suite.core.catalogue import RUNNABLE, get
from locustfiles.suite.core.settings import SETTINGS, SettingError, refuse_unknown

MANUAL = "manual"
# The learners' settings and the run's extras, shared by every profile: their value in the
# environment of `make run` is the field's default (empty: the table's, or the profile's).
SHARED = (
    "COURSES",
    "PRELOAD",
    "THRESHOLDS",
    "WAIT_MIN",
    "WAIT_MAX",
    "BUY_WEIGHT",
    "PAY_WEIGHT",
    "READ_WEIGHT",
)
SHARED_HELP = {
    "COURSES": "buy among the first N courses; empty: all",
    "PRELOAD": "first fill both databases as N purchases would; empty: as they are",
    "WAIT_MIN": "think time of the closed model's learners, at least (s)",
    "WAIT_MAX": "think time of the closed model's learners, at most (s)",
    "BUY_WEIGHT": "the mix: free purchases through the LMS",
    "PAY_WEIGHT": "the mix: paid purchases through the payment processor",
    "READ_WEIGHT": "the mix: reads of the learner's last order",
}
# A field's text is a make variable's value: bounded, whoever posts the form.
MAX_VALUE_CHARS = 200


@dataclass(frozen=True)
class Field:
    name: str
    default: str
    help: str
    choices: tuple[str, ...] | None = None


def profile_names() -> tuple[str, ...]:
    return (MANUAL, *RUNNABLE)


def sizes() -> list[str]:
    """Every variable a runnable profile takes, in the catalogue's order."""
    return _named(lambda profile: profile.defaults)


def client_settings() -> list[str]:
    """Every setting of a runnable profile's own client, in the catalogue's order."""
    return _named(lambda profile: profile.client_settings)


def _named(names_of) -> list[str]:
    names: list[str] = []
    for name in RUNNABLE:
        names += [key for key in names_of(get(name)) if key not in names]
    return names


def defaults_by_profile(variable: str) -> str:
    """'rpm 78, soak 1038, ...': each profile's default for ``variable``, as `make help` says it."""
    shown = []
    for name in RUNNABLE:
        profile = get(name)
        if variable in profile.defaults:
            shown.append(f"{name} {profile.defaults[variable] or profile.unset.get(variable, 'unset')}")
    return ", ".join(shown)


def client_help(name: str) -> str:
    """'read by edx2015: <what the table says it is>; empty: <its default>'."""
    readers = ", ".join(profile for profile in RUNNABLE if name in get(profile).client_settings)
    entry = environment.variable(name)
    return f"read by {readers}: {entry.description.replace('`', '')}; empty: {entry.default}"


def thresholds_help() -> str:
    """The profiles' own thresholds, each set once with the profiles that have it."""
    groups: dict[str, list[str]] = {}
    for name in RUNNABLE:
        if get(name).thresholds:
            groups.setdefault(get(name).thresholds, []).append(name)
    own = "; ".join(f"{rules} ({', '.join(names)})" for rules, names in groups.items())
    return f"empty: the profile's, {own}"


def fields(env: Mapping[str, str]) -> list[Field]:
    """The form's fields, in order: the profile, its sizes, then what every profile shares."""
    profile = Field(
        "PROFILE",
        given("PROFILE", env) or MANUAL,
        "manual: users and ramp-up set above; any other runs as make <profile>, ignoring them",
        profile_names(),
    )
    out = [profile]
    for name in sizes():
        out.append(Field(name, given(name, env) or "", f"empty: {defaults_by_profile(name)}"))
    for name in client_settings():
        out.append(Field(name, given(name, env) or "", client_help(name)))
    for name in SHARED:
        help_text = thresholds_help() if name == "THRESHOLDS" else SHARED_HELP[name]
        out.append(Field(name, _shared_default(name, env), help_text))
    return out


def read_by() -> dict[str, list[str]]:
    """Each profile's fields: the profile, its sizes and its client's settings, then the shared
    ones it reads (an open model's, no think time; manual has no sizes: its users and ramp-up
    are Locust's own fields)."""
    shown: dict[str, list[str]] = {}
    for name in profile_names():
        profile = get(name)
        own = dict.fromkeys([*profile.defaults, *profile.client_settings])
        shown[name] = ["PROFILE", *own, *[key for key in SHARED if key in profile.reads()]]
    return shown


def _shared_default(name: str, env: Mapping[str, str]) -> str:
    if name in ("COURSES", "PRELOAD", "THRESHOLDS"):  # empty has a meaning of its own
        return given(name, env) or ""
    return raw(name, env) or ""


def run_environment(base: Mapping[str, str], form: Mapping[str, str]) -> tuple[str, dict[str, str]]:
    """(the profile, the environment of its run): ``base`` (make run's) with the form's values,
    an empty field unset so that the profile's default applies, as on the command line.
    ValueError when a value is longer than a make variable needs, and SettingError for a field
    named as a setting (in capitals, as the form's own are) that the form does not have."""
    env = dict(base)
    named = [key for key in form if key.isupper()]
    offered = {field.name for field in fields({})}
    refuse_unknown(named, {*SETTINGS, *offered})
    for key in named:
        if key not in offered:
            raise SettingError(key, "the start form does not take it; give it on make run's command line")
    for field in fields({}):
        value = str(form.get(field.name, "")).strip()
        if len(value) > MAX_VALUE_CHARS:
            if field.name in SETTINGS:  # its own words: what it expects, and the length it got
                SETTINGS[field.name].parse(value, several=True)
            raise SettingError(field.name, f"expects at most {MAX_VALUE_CHARS} characters; got {len(value)}")
        if value:
            env[field.name] = value
        else:
            env.pop(field.name, None)
    profile = given("PROFILE", env) or MANUAL
    env["PROFILE"] = profile
    return profile, env
