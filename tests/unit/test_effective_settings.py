"""`scripts/stack.sh settings`: the settings the services would run with, resolved as they
resolve them, so that the load suite restarts them only for a real change."""

import os
import subprocess
from pathlib import Path

from locustfiles.suite.stack.services import changes, parse_settings

ROOT = Path(__file__).resolve().parents[2]
# The variables behind the printed settings: the developer's environment must not leak in.
PREFIXES = ("ECOMMERCE_", "LMS_", "DB_", "MYSQL_DRIVER", "DJANGO_SETTINGS_MODULE", "NEW_RELIC_")
NAMES = ("ORDER_COUNTER", "CATALOG_COURSES", "SERVER_TIMING")  # ECOMMERCE_/LMS_ ones: PREFIXES


def settings(**env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(PREFIXES) and k not in NAMES}
    return subprocess.run(
        [str(ROOT / "scripts/stack.sh"), "settings"],
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def effective(**env: str) -> dict[str, str]:
    done = settings(**env)
    assert done.returncode == 0, done.stderr
    return parse_settings(done.stdout)


def test_unset_variables_and_their_defaults_give_the_same_settings():
    # CATALOG_COURSES has a shell default too (scripts/lib.sh); DB_POOL_SIZE=10 comes with
    # every HOST_PROFILE. Neither may look like a change.
    defaults = effective()
    assert defaults == effective(
        CATALOG_COURSES="100",
        DB_POOL_SIZE="10",
        MYSQL_DRIVER="pymysql",
        DB_POOL="geventpool",
        ORDER_COUNTER="events",
        SERVER_TIMING="true",
        ECOMMERCE_LEARNER_RATE="20/min",
        ECOMMERCE_WORKERS=defaults["ECOMMERCE_WORKERS"],
    )
    assert defaults["CATALOG_COURSES"] == "100" and defaults["ECOMMERCE_WORKER_CLASS"] == "gevent"


def test_a_changed_variable_shows_in_the_settings_it_reaches():
    defaults = effective()
    changed = effective(ECOMMERCE_WORKERS="3", MYSQL_DRIVER="mysqlclient", LMS_MYSQL_DRIVER="pymysql")
    assert changes(defaults, changed) == [
        "ECOMMERCE_MYSQL_DRIVER pymysql -> mysqlclient",
        f"ECOMMERCE_WORKERS {defaults['ECOMMERCE_WORKERS']} -> 3",
    ]


def test_the_load_test_switches_and_the_order_prefix_are_settings_a_run_depends_on():
    defaults = effective()
    assert (
        defaults["LMS_AUTO_AUTH"],
        defaults["LMS_FAULT_CONTROL"],
        defaults["LMS_PAYMENT_PROCESSOR"],
        defaults["ECOMMERCE_STOREFRONT"],
    ) == ("on", "on", "on", "on")
    changed = effective(LMS_AUTO_AUTH="false", ECOMMERCE_ORDER_PREFIX="EDX")
    assert changes(defaults, changed) == ["ECOMMERCE_ORDER_PREFIX OSCR -> EDX", "LMS_AUTO_AUTH on -> off"]


def test_another_database_is_a_change_that_restarts_the_services():
    defaults = effective()
    other = effective(ECOMMERCE_DB_NAME="empty_ecommerce")
    assert changes(defaults, other) == ["ECOMMERCE_DB_NAME ecommerce -> empty_ecommerce"]


def test_a_bad_value_is_refused_with_its_name():
    done = settings(DB_POOL="bogus")
    assert done.returncode != 0
    assert "DB_POOL must be one of" in done.stderr


def test_changes_names_empty_and_missing_values():
    assert changes({"ECOMMERCE_CPUS": "", "GONE": "1"}, {"ECOMMERCE_CPUS": "0"}) == [
        "ECOMMERCE_CPUS (none) -> 0",
        "GONE 1 -> (none)",
    ]


def test_the_services_code_is_a_setting_so_other_code_restarts_them(tmp_path):
    """The checkout, its commit and a digest of its edits: a run from another checkout, another
    commit or another edit sees a change (gunicorn does not reload code by itself)."""
    from settings.effective import code

    assert code(tmp_path) == f"{tmp_path}@unknown"  # not a checkout
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    (tmp_path / "app.py").write_text("A = 1\n")
    subprocess.run([*git, "add", "app.py"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "one"], check=True)
    commit = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    clean = code(tmp_path)
    assert clean == f"{tmp_path}@{commit[:12]}"
    (tmp_path / "app.py").write_text("A = 2\n")
    edited = code(tmp_path)
    assert edited.startswith(clean + "+changes:") and len(edited) == len(clean) + len("+changes:") + 8
    (tmp_path / "app.py").write_text("A = 3\n")
    assert code(tmp_path) not in (clean, edited)  # another edit, another value
    (tmp_path / "app.py").write_text("A = 1\n")
    assert code(tmp_path) == clean
    # This checkout's services: the value the suite compares.
    assert effective()["SERVICES_CODE"].startswith(f"{ROOT}@")


def test_the_new_relic_agent_is_a_setting_and_its_key_is_not_printed():
    """A run under the agent measures the agent: it restarts services started without it."""
    assert effective()["NEW_RELIC_AGENT"] == "off"
    key = "7" * 40  # a license key's length and shape, not a real one
    done = settings(NEW_RELIC_LICENSE_KEY=key, NEW_RELIC_CONFIG_FILE="/etc/nr.ini")
    found = parse_settings(done.stdout)
    assert (found["NEW_RELIC_AGENT"], found["NEW_RELIC_CONFIG_FILE"]) == ("on", "/etc/nr.ini")
    assert key not in done.stdout + done.stderr
    # With a key alone, the product's settings: the file the deployment's lines come from.
    keyed = parse_settings(settings(NEW_RELIC_LICENSE_KEY="0" * 40).stdout)
    assert keyed["NEW_RELIC_CONFIG_FILE"] == str(ROOT / "settings" / "newrelic.ini")
