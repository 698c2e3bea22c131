"""The settings both services would run with under this process's environment, resolved by
their own configuration code (the gunicorn configurations and the Django settings modules),
so an unset variable and one set to the service's default give the same value.

``python -m settings.effective`` prints them as NAME=value lines; ``scripts/stack.sh settings``
runs it with the stack's shell defaults applied, records its output in var/run/stack.env when it
starts the services, and the load suite compares the two to decide whether to restart them.
Nothing here is ever served: the modules are imported only to read their values.
"""

import hashlib
import importlib
import os
import runpy
import subprocess
from pathlib import Path

from common.environment import get
from settings._env import POOL_ENGINES

ROOT = Path(__file__).resolve().parent.parent
POOL_NAMES = {engine: name for name, engine in POOL_ENGINES.items()}
# The New Relic agent's settings where no NEW_RELIC_CONFIG_FILE of one's own is given (as
# scripts/stack.sh starts the services; the deployment writes the same lines).
NEW_RELIC_INI = str(ROOT / "settings" / "newrelic.ini")
# Each service's gunicorn settings a run may vary: its configuration's key, its variable's name
# under the service's prefix (common/environment/services.py). A recycled worker's drain and boot
# refuse work on a busy machine (issue 29), so the recycling is among them.
SERVER = {
    "worker_class": "WORKER_CLASS",
    "workers": "WORKERS",
    "worker_connections": "WORKER_CONNECTIONS",
    "http_parser": "HTTP_PARSER",
    "max_requests": "MAX_REQUESTS",
    "max_requests_jitter": "MAX_REQUESTS_JITTER",
}
# Each service's admission settings (common/environment/services.py, under its prefix).
ADMISSION = ("MAX_IN_FLIGHT", "ADMISSION", "QUEUE_TARGET_MS", "QUEUE_INTERVAL_MS")


def code(root: Path = ROOT) -> str:
    """The code the services would run: the checkout's folder, its commit and, when tracked files
    differ from it, a digest of the difference ("/work/main@1a2b3c4d5e6f+changes:9f8e7d6c").
    Another checkout, another commit or another edit is another value, so a load run restarts
    services started from other code instead of measuring it under this checkout's name;
    gunicorn does not reload code by itself. "unknown" outside a git checkout."""

    def git(*args: str) -> bytes | None:
        try:
            done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, timeout=20)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout if done.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    if commit is None:
        return f"{root}@unknown"
    found = f"{root}@{commit.decode().strip()[:12]}"
    diff = git("diff", "HEAD", "--no-ext-diff", "--binary")
    if diff is None:
        return found + "+changes:unknown"
    return found + (f"+changes:{hashlib.sha1(diff).hexdigest()[:8]}" if diff else "")


def _rate(rate: tuple[int, int] | None) -> str:
    return f"{rate[0]}/{rate[1]}s" if rate else "off"


def effective() -> dict[str, str]:
    """NAME: value of every setting that reaches the services and that a run may vary."""
    # Read before the lms_stub configuration overwrites it: ecommerce's gunicorn keeps it.
    ecommerce_module = os.environ.get("DJANGO_SETTINGS_MODULE") or "settings.local"
    ecommerce_server = runpy.run_path(str(ROOT / "ecommerce" / "gunicorn.conf.py"))
    lms_server = runpy.run_path(str(ROOT / "lms_stub" / "gunicorn.conf.py"))
    ecommerce = importlib.import_module(ecommerce_module)
    lms = importlib.import_module("settings.lms_stub")
    ecommerce_db, lms_db = ecommerce.DATABASES["default"], lms.DATABASES["default"]
    agent = get("NEW_RELIC_LICENSE_KEY") or get("NEW_RELIC_CONFIG_FILE")
    values = {
        **{
            f"{prefix}_{name}": server[key]
            for prefix, server in (("ECOMMERCE", ecommerce_server), ("LMS", lms_server))
            for key, name in SERVER.items()
        },
        "ECOMMERCE_MYSQL_DRIVER": ecommerce.MYSQL_DRIVER,
        "LMS_MYSQL_DRIVER": lms.MYSQL_DRIVER,
        # Another database is another run: the suite's audit and sizes read the names it is given.
        "ECOMMERCE_DB_NAME": ecommerce_db["NAME"],
        "LMS_DB_NAME": lms_db["NAME"],
        "ECOMMERCE_DB_POOL": POOL_NAMES[ecommerce_db["ENGINE"]],
        "LMS_DB_POOL": POOL_NAMES[lms_db["ENGINE"]],
        "ECOMMERCE_DB_POOL_SIZE": ecommerce_db["POOL"]["MAX_CONNECTIONS"],
        "LMS_DB_POOL_SIZE": lms_db["POOL"]["MAX_CONNECTIONS"],
        "DB_POOL_TIMEOUT": ecommerce_db["POOL"]["CHECKOUT_TIMEOUT"],
        "ORDER_COUNTER": ecommerce.ORDER_COUNTER,
        "ECOMMERCE_CPUS": get("ECOMMERCE_CPUS") or "",  # scripts/stack.sh pins with taskset
        # Admission control (common.shedding reads them when a worker starts).
        **{
            f"{prefix}_{name}": get(f"{prefix}_{name}")
            for name in ADMISSION
            for prefix in ("ECOMMERCE", "LMS")
        },
        "LMS_ENROLLMENT_TIMEOUT": ecommerce.LMS_ENROLLMENT_TIMEOUT,
        "ECOMMERCE_LEARNER_RATE": _rate(ecommerce.ECOMMERCE_LEARNER_RATE),
        "LMS_FAULT_LATENCY_MS": lms.LMS_FAULT_LATENCY_MS,
        "LMS_FAULT_JITTER_MS": lms.LMS_FAULT_JITTER_MS,
        "LMS_FAULT_ERROR_RATE": lms.LMS_FAULT_ERROR_RATE,
        "CATALOG_COURSES": lms.CATALOG_COURSES,
        "SERVER_TIMING": "on" if ecommerce.SERVER_TIMING else "off",
        # The New Relic agent wraps both services where scripts/stack.sh finds its key or file (the
        # key itself is a secret and is not printed): a run with it measures the agent too.
        "NEW_RELIC_AGENT": "on" if agent else "off",
        "NEW_RELIC_CONFIG_FILE": (get("NEW_RELIC_CONFIG_FILE") or NEW_RELIC_INI) if agent else "",
        "ECOMMERCE_ORDER_PREFIX": ecommerce.ORDER_NUMBER_PREFIX,
        # Load-test machinery (docs/decisions/0036-load-test-machinery-is-off-in.md): a run needs
        # /auto_auth, a chaos run the fault API, a hosted-page payment the processor's stand-in.
        "LMS_AUTO_AUTH": "on" if lms.LMS_AUTO_AUTH else "off",
        "LMS_FAULT_CONTROL": "on" if lms.LMS_FAULT_CONTROL else "off",
        "LMS_PAYMENT_PROCESSOR": "on" if lms.LMS_PAYMENT_PROCESSOR else "off",
        "ECOMMERCE_STOREFRONT": "on" if ecommerce.ECOMMERCE_STOREFRONT else "off",
        "ECOMMERCE_PAYMENT_STAND_IN": "on" if ecommerce.ECOMMERCE_PAYMENT_STAND_IN else "off",
        # Which code: a run from another checkout or commit restarts the services (above).
        "SERVICES_CODE": code(),
    }
    return {name: str(value) for name, value in values.items()}


if __name__ == "__main__":
    for name, value in effective().items():
        print(f"{name}={value}")
