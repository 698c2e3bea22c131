"""The stack's commands, as `make up/down/status/run`, the tests and the load suite give them to
scripts/stack.sh:

    up        bootstrap, MariaDB, migrate, seed, start both services and the purchase-counter
              rollup loop (idempotent)
    restart   stop and start both services and the rollup (MariaDB stays up), e.g. to apply
              other ECOMMERCE_* / DB_POOL / MYSQL_DRIVER settings
    stop      stop both services and the rollup (MariaDB stays up)
    down      stop `make run` (its Locust) and the load runs, both services and MariaDB
    status    say what runs: services, MariaDB, Locust web UIs and load runs
    settings  print the settings the services would run with in this environment (NAME=value);
              VAR_DIR/run/stack.env holds the running ones
    urls      print the addresses, the dashboard's user and where its password is
    staff-password / staff-jwt-secret   print the staff login's password, or the key that signs
              staff tokens (generated once into VAR_DIR)
"""

import sys

from common.environment import ROOT, raw
from stack import locusts, mysql, services, staff
from stack.processes import StackError, pid_alive, pid_of, run_step, say, script

USAGE = "usage: scripts/stack.sh up|down|stop|restart|status|settings|urls|staff-password|staff-jwt-secret"


def url_lines() -> list[str]:
    """Three columns whatever the ports and addresses: what, where, and what to do there."""
    accounts = ", ".join(
        raw(name) or ""
        for name in ("MYSQL_OWNER_USER", "ECOMMERCE_DB_USER", "LMS_DB_USER", "MYSQL_MONITOR_USER")
    )
    ecommerce, socket = raw("ECOMMERCE_URL"), mysql.Server.from_environment().socket
    rows = (
        ("LMS (lms_stub)", raw("LMS_URL"), "learner: GET /auto_auth, POST /api/commerce/v0/baskets/"),
        ("ecommerce", ecommerce, "API: /api/v2/baskets/, /api/v2/orders/"),
        (
            "Oscar dashboard",
            f"{ecommerce}/dashboard/",
            f"user {raw('ECOMMERCE_STAFF_USER')}, password in {staff.STAFF_PASSWORD.source()}",
        ),
        ("MariaDB", f"127.0.0.1:{raw('MYSQL_PORT')}", f"accounts {accounts}; root on {socket}"),
    )
    return [f"  {what:<19} {where:<38} {how}" for what, where, how in rows]


def print_urls() -> None:
    say("\n".join(url_lines()), sys.stdout)


def status() -> None:
    for name in ("lms_stub", "ecommerce", "rollup"):
        path = services.pidfile(name)
        say(f"{name}: running (pid {pid_of(path)})" if pid_alive(path) else f"{name}: stopped")
    mysql.status(mysql.Server.from_environment())
    locusts.status(services.run_dir())


def up() -> None:
    if services.all_running():  # nothing to start, and no migration or seeding to redo
        say("stack: already up")
    else:
        services.start_all()
    print_urls()


def down() -> None:
    locusts.stop(services.run_dir())
    services.stop_services()
    mysql.down(mysql.Server.from_environment())


def restart() -> None:
    services.stop_services()
    services.start_all()  # prepare again: a changed CATALOG_COURSES needs its courses seeded


COMMANDS = {
    "up": up,
    "down": down,
    "stop": services.stop_services,
    "restart": restart,
    "status": status,
    "urls": print_urls,
    "settings": lambda: run_step(services.settings_argv(), cwd=ROOT),
    "staff-password": lambda: say(staff.STAFF_PASSWORD.value(), sys.stdout),
    "staff-jwt-secret": lambda: say(staff.STAFF_JWT_SECRET.value(), sys.stdout),
}


def run(argv: list[str]) -> int:
    command = COMMANDS.get(argv[0] if argv else "")
    if command is None:
        raise StackError(USAGE)
    command()
    return 0


def main() -> None:
    script(run)
