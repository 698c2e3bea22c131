"""common/environment: one table of the environment's names and defaults, read alike by the
Python readers, by bash through the table's shell form (scripts/lib.sh) and by docs/configuration.md."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from common import environment
from common.environment import BadSetting, UnknownVariable, Variable, load
from locustfiles.suite.core import catalogue

ROOT = Path(__file__).resolve().parents[2]
NAMES = [variable.name for variable in environment.TABLE]
WITH_DEFAULTS = [variable.name for variable in environment.TABLE if variable.default is not None]


def clean_environment(**overrides: str) -> dict[str, str]:
    """os.environ without any of the table's names (make test sets some), plus ``overrides``."""
    env = {name: value for name, value in os.environ.items() if name not in environment.VARIABLES}
    env.update(overrides)
    return env


def bash_values(script: str, names: list[str], env: dict[str, str]) -> dict[str, str]:
    """Run ``script`` in bash, then read ``names`` back (unset ones are left out)."""
    read = 'for name in "$@"; do [ -n "${!name+set}" ] && printf "%s=%s\\0" "$name" "${!name}"; done'
    done = subprocess.run(
        ["bash", "-c", f"set -eu\n{script}\n{read}", "bash", *names],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    return dict(item.split("=", 1) for item in done.stdout.split("\0") if item)


# --- The readers --------------------------------------------------------------------------------


def test_a_default_is_read_as_its_kind():
    env = clean_environment()
    assert environment.get("MYSQL_PORT", env) == 13306
    assert environment.get("DB_POOL_TIMEOUT", env) == 5.0
    assert environment.get("SERVER_TIMING", env) is True
    assert environment.get("ECOMMERCE_ALLOWED_HOSTS", env) == ["127.0.0.1", "localhost"]
    assert environment.get("CSRF_TRUSTED_ORIGINS", env) == []
    assert environment.get("VAR_DIR", env) == str(environment.ROOT / "var")
    assert environment.get("ECOMMERCE_WORKERS", env) is None  # computed by gunicorn_common


def test_the_environment_wins_and_an_empty_value_is_unset():
    env = clean_environment(MYSQL_PORT="23306", DB_POOL_SIZE="", SERVER_TIMING=" off ")
    assert environment.get("MYSQL_PORT", env) == 23306
    assert environment.get("DB_POOL_SIZE", env) == 10
    assert environment.get("SERVER_TIMING", env) is False


def test_production_takes_a_deployments_default_where_the_table_has_one():
    env = clean_environment()
    assert environment.get("SERVER_TIMING", env, production=True) is False
    assert environment.get("SERVER_TIMING", clean_environment(SERVER_TIMING="on"), production=True) is True
    assert environment.get("MYSQL_PORT", env, production=True) == 13306  # no second default: the one


def test_derived_defaults_follow_the_variables_they_name():
    env = clean_environment(
        LMS_PORT="28000", VAR_DIR="/srv/run", MYSQL_DRIVER="mysqlclient", CATALOG_COURSES="7"
    )
    assert environment.get("LMS_URL", env) == "http://127.0.0.1:28000"
    assert environment.get("LMS_BIND", env) == "127.0.0.1:28000"
    assert environment.get("MYSQL_DIR", env) == "/srv/run/mysql"
    assert environment.get("ECOMMERCE_ERROR_LOG", env) == "/srv/run/log/ecommerce.log"
    assert environment.get("ECOMMERCE_MYSQL_DRIVER", env) == "mysqlclient"
    assert environment.get("COURSES", env) == 7
    # ... and a value set for the derived one wins over the derivation.
    assert environment.get("LMS_URL", {**env, "LMS_URL": "http://lms.internal"}) == "http://lms.internal"


def test_an_unknown_name_raises():
    with pytest.raises(UnknownVariable, match="NO_SUCH_VARIABLE is not in the table"):
        environment.get("NO_SUCH_VARIABLE")
    with pytest.raises(KeyError):
        environment.env_int("NO_SUCH_VARIABLE")


@pytest.mark.parametrize(
    "name, value, message",
    [
        ("MYSQL_PORT", "13306x", "MYSQL_PORT must be a whole number, not '13306x'."),
        ("DB_POOL_TIMEOUT", "soon", "DB_POOL_TIMEOUT must be a number, not 'soon'."),
        ("SERVER_TIMING", "maybe", "SERVER_TIMING must be true or false, not 'maybe'."),
    ],
)
def test_a_bad_value_says_which_variable(name, value, message):
    with pytest.raises(BadSetting) as raised:
        environment.get(name, {name: value})
    assert str(raised.value) == message and raised.value.name == name
    assert isinstance(raised.value, ValueError)


def test_settings_turn_a_bad_value_into_improperly_configured(monkeypatch):
    from settings import _env

    monkeypatch.setenv("DB_POOL_SIZE", "ten")
    with pytest.raises(ImproperlyConfigured, match=r"^DB_POOL_SIZE must be a whole number, not 'ten'\.$"):
        _env.env_int("DB_POOL_SIZE")


def test_a_typed_reader_refuses_a_variable_of_another_kind():
    with pytest.raises(TypeError, match="MYSQL_HOST is a str"):
        environment.env_int("MYSQL_HOST")


def test_the_table_is_stdlib_only_and_runs_without_the_virtualenv():
    package = ROOT / "common/environment"
    text = "".join(path.read_text() for path in package.glob("*.py"))
    imports = {name for name in re.findall(r"^(?:from|import) (\S+)", text, re.M)}
    imports -= {name for name in imports if name.startswith("common.environment")}
    assert {name.split(".")[0] for name in imports} <= set(sys.stdlib_module_names), imports
    # The system python3, without the virtualenv's packages or the user's (-s, -E), as lib.sh runs it.
    done = subprocess.run(
        ["python3", "-s", "-E", "-m", "common.environment", "--shell"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0 and "export MYSQL_PORT=" in done.stdout, done.stderr


# --- Every name read is in the table --------------------------------------------------------------

# Calls of the readers (get, env_int, ...) with a literal name, and the per-service names of
# gunicorn_common and settings/_env.py: an f-string, "{prefix}_" or "{service}_" and the rest,
# which stands for both the ECOMMERCE_ and the LMS_ name.
READER = re.compile(
    r"(?<![\w.])(?:get|given|raw|env_(?:str|int|float|bool|list|rate))\((f?)\"(\{\w+\})?([A-Z_][A-Z0-9_]*)\""
)


def names_read() -> dict[str, set[str]]:
    files = subprocess.run(
        ["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    found: dict[str, set[str]] = {}
    for name in files:
        path = ROOT / name
        if not path.is_file():
            continue
        text = path.read_text()
        if "common.environment" not in text and "settings._env" not in text and name != "settings/_env.py":
            continue
        for is_f, prefix, rest in READER.findall(text):
            names = [f"ECOMMERCE{rest}", f"LMS{rest}"] if is_f and prefix else [rest]
            for variable in names:
                found.setdefault(variable, set()).add(name)
    return found


def test_every_name_read_through_the_readers_is_in_the_table():
    found = names_read()
    assert {"MYSQL_PORT", "LMS_URL", "ECOMMERCE_WORKER_CLASS", "LMS_DB_POOL", "VAR_DIR"} <= set(found)
    missing = {name: sorted(files) for name, files in found.items() if name not in environment.VARIABLES}
    assert not missing, missing


# --- The shell form ----------------------------------------------------------------------------


OVERRIDES = {
    "LMS_PORT": "28000",
    "VAR_DIR": "/tmp/a dir with spaces",
    "MYSQL_OWNER_PASSWORD": 'it\'s $HOME `id` "quoted" \\ }',
    "CATALOG_COURSES": "7",
    "DB_POOL": "off",
}


@pytest.mark.parametrize("overrides", [{}, OVERRIDES], ids=["defaults", "overrides"])
def test_the_shell_form_gives_bash_the_values_python_reads(overrides):
    env = clean_environment(ROOT=str(environment.ROOT), **overrides)
    script = environment.shell(NAMES)
    values = bash_values(script, NAMES, env)
    expected = {name: environment.raw(name, env) for name in WITH_DEFAULTS}
    assert values == expected
    if overrides:
        assert values["LMS_URL"] == "http://127.0.0.1:28000"
        assert values["MYSQL_DIR"] == "/tmp/a dir with spaces/mysql"
        assert values["LMS_DB_POOL"] == "off"


def test_lib_sh_exports_the_table_with_an_override():
    env = clean_environment(LMS_PORT="28000", MYSQL_OWNER_USER="someone")
    names = [v.name for v in environment.TABLE if v.shell]
    values = bash_values("source scripts/lib.sh", ["ROOT", *names], env)
    assert values.pop("ROOT") == str(environment.ROOT)
    assert values == {name: environment.raw(name, env) for name in names}
    assert values["LMS_URL"] == "http://127.0.0.1:28000" and values["MYSQL_OWNER_USER"] == "someone"
    assert values["MYSQL_PORT"] == "13306"


def test_a_default_with_every_awkward_character_survives_the_shell_form():
    awkward = Variable("AWKWARD", 'a\'b "c" $HOME `id` \\n }{ ~x {LMS_PORT}*', "str", "test only")
    values = bash_values(
        "export LMS_PORT=1\n" + environment.shell_line(awkward), ["AWKWARD"], clean_environment(HOME="/h")
    )
    assert values["AWKWARD"] == 'a\'b "c" $HOME `id` \\n }{ ~x 1*'


def test_the_shell_form_of_a_name_brings_the_names_its_default_uses():
    assert environment.shell(["LMS_URL"]).splitlines()[1:] == [
        "export LMS_PORT=${LMS_PORT:-18000}",
        'export LMS_URL=${LMS_URL:-http://127.0.0.1:"${LMS_PORT}"}',
    ]


def test_the_command_line_refuses_an_unknown_name():
    done = subprocess.run(
        [sys.executable, "-m", "common.environment", "--shell", "NO_SUCH_VARIABLE"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "NO_SUCH_VARIABLE is not in the table" in done.stderr


# --- README and no second copy ----------------------------------------------------------------------

BEGIN = "<!-- environment table: python3 -m common.environment --markdown -->\n"
END = "<!-- end of the environment table -->"


def test_the_configuration_guide_shows_the_table_as_the_table_prints_it():
    guide = (ROOT / "docs/configuration.md").read_text()
    assert BEGIN in guide and END in guide
    shown = guide.split(BEGIN, 1)[1].split(END, 1)[0]
    assert shown == environment.markdown(), (
        "python3 -m common.environment --markdown, into docs/configuration.md"
    )


# Key defaults that must not be written again in code: the table holds them. Markdown and the
# Ansible deployment (its own configuration, for other machines) are not code; tests may state
# the values they assert.
KEY_DEFAULTS = (
    "13306",
    "18130",
    "18000",
    "8089",
    "orders-local-password",
    "app-local-password",
    "monitor-local-password",
    "local-only-jwt",
    "local-only-edx",
    "local-only-fault",
    "local-only-cybersource",
)
KEY_DEFAULTS += ("local-only-ecommerce", "local-only-lms")
ALLOWED = {
    **{f"common/environment/{path.name}": "the table" for path in (ROOT / "common/environment").glob("*.py")},
    "ecommerce/courses/management/commands/seed_catalog.py": "an example in --site-domain's help",
}


def test_no_code_outside_the_table_writes_a_key_default_again():
    files = subprocess.run(
        ["git", "ls-files", "*.py", "*.sh", "Makefile", "*.toml", "*.cfg"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    copies = []
    for name in files:
        if name in ALLOWED or name.startswith(("tests/", "ansible/")) or not (ROOT / name).is_file():
            continue
        text = (ROOT / name).read_text()
        copies += [
            f"{name}: {value}" for value in KEY_DEFAULTS if re.search(rf"(?<!\d){re.escape(value)}", text)
        ]
    assert not copies, copies


# --- The load runs' variables --------------------------------------------------------------------


def make_says(expression: str, *assignments: str) -> str:
    """What a recipe of the project's Makefile prints for ``expression`` (after ``assignments``
    in the Makefile's own syntax): its variables as make reads them, its exports as the shell
    of a recipe gets them."""
    evals = [f"--eval={line}" for line in (*assignments, f"say: ; @echo {expression}")]
    done = subprocess.run(
        ["make", "-s", "--no-print-directory", *evals, "say"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env=clean_environment(),
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_make_exports_the_load_variables_the_table_lists():
    assert make_says("$(LOAD_SETTINGS)").split() == list(load.SIZES)
    assert set(load.SIZES) <= set(environment.VARIABLES)
    # Set in a Makefile (as on make's command line), each reaches the runs' environment.
    assert make_says('"$$RPM $$KNEE_PCT"', "RPM := 7", "KNEE_PCT := 3") == "7 3"


def test_make_has_a_target_for_every_runnable_profile():
    assert make_says("$(PROFILES)").split() == list(catalogue.RUNNABLE)


def test_every_size_a_profile_takes_is_in_the_table():
    sizes = {key for profile in catalogue.CATALOGUE.values() for key in profile.defaults}
    assert {"USERS", "RPM", "PHASE_SECONDS", "SAMPLE_HZ", "CAPACITY_RPM"} <= sizes
    assert sizes - set(environment.VARIABLES) == set()


def test_make_help_lists_the_load_variables_from_the_table():
    done = subprocess.run(["make", "-s", "help"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    for name in load.SIZES:
        assert re.search(rf"^  {name} +\S", done.stdout, re.M), name


# Reads of a table's name straight from a mapping, bypassing the readers, and where they are allowed.
AD_HOC = re.compile(
    r"\b(?:os\.environ|env|environ)(?:\.get\(\s*\"([A-Z][A-Z0-9_]*)\"|\[\"([A-Z][A-Z0-9_]*)\"\](?!\s*=[^=]))"
)
AD_HOC_ALLOWED = {
    "locustfiles/edx2015/config.py": "edX's 2015 client takes its settings as set, even empty, as edX's did",
    "locustfiles/suite/stack/hosts.py": "reads the dict of variables it has just made, not the environment",
    "scripts/cluster_load.py": "runs with a simulated host's python3, without the checkout's packages",
}


def test_no_code_reads_a_variable_of_the_table_around_the_readers():
    files = subprocess.run(
        ["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    reads = []
    for name in files:
        if name in AD_HOC_ALLOWED or name.startswith("tests/") or not (ROOT / name).is_file():
            continue
        found = ["".join(groups) for groups in AD_HOC.findall((ROOT / name).read_text())]
        reads += [f"{name}: {variable}" for variable in found if variable in environment.VARIABLES]
    assert not reads, reads
