"""The chaos profile: one fault per step, injected under a steady open-model load, each judged
against the outcome it must have.

A step of PHASE_SECONDS runs the load undisturbed for its first part (the lead), injects its
fault for FAULT_SECONDS, then clears it and watches the service recover. The faults:

    lms_down     the LMS enrollment API answers 503 (an outage window of lms_stub's faults)
    lms_slow     the enrollment API answers later than ecommerce's fulfilment timeout
    db_restart   MariaDB is stopped, then started again (scripts/mysql.sh)
    worker_kill  the ecommerce gunicorn worker with the most client connections gets SIGKILL
                 (the LMS answers in up to 3 s meanwhile, so orders are caught mid-fulfilment)
    duplicates   one learner sends 20 purchases with one Idempotency-Key at once, another
                 sends the same purchase twice without a key

After the run every order left in Fulfillment Error (or Open by a killed worker) is retried
(retry_fulfillment --all), then the audit counts what was lost, duplicated or left partial.
"""

import os
import signal
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import gevent
import jwt
import psutil
import requests

from ecommerce.courses.definition import catalogue
from locustfiles.suite.server import mysql_connect

ROOT = Path(__file__).resolve().parents[2]
SAME_KEY_REQUESTS = 20
# Seconds an order request may take beyond ecommerce's fulfilment timeout (its own two
# transactions, the LMS's share, queueing under load).
TIMEOUT_SLACK = 3.0


def fulfilment_timeout() -> float:
    """ecommerce's LMS_ENROLLMENT_TIMEOUT as the stack runs it."""
    return float(os.environ.get("LMS_ENROLLMENT_TIMEOUT") or 7.0)


def users_budget_seconds() -> float:
    """How long a journey may take under a fault: users enough for every arrival while the
    LMS is slower than the timeout."""
    return fulfilment_timeout() + TIMEOUT_SLACK + 2


def fault_window(phase_seconds: int) -> tuple[int, int]:
    """(lead, length) of the fault inside a step: FAULT_SECONDS (default a quarter of the
    step, at least 2 s), starting after a fifth of the step (at least 2 s)."""
    lead = max(2, phase_seconds // 5)
    length = int(os.environ.get("FAULT_SECONDS") or max(2, phase_seconds // 4))
    return lead, max(1, min(length, phase_seconds - lead - 2))


@dataclass
class Event:
    """What the driver did for one step: when the fault began and ended, and what it saw."""

    fault: str
    started: float | None = None
    ended: float | None = None
    detail: dict = field(default_factory=dict)
    error: str | None = None

    def as_dict(self) -> dict:
        return {
            "fault": self.fault,
            "started": self.started,
            "ended": self.ended,
            "detail": self.detail,
            "error": self.error,
        }


class Context:
    """Where the stack is and the secrets it runs with (the same environment as the stack)."""

    def __init__(self, env=None):
        env = env if env is not None else os.environ
        self.lms_url = env.get("LMS_URL") or f"http://127.0.0.1:{env.get('LMS_PORT', '18000')}"
        self.ecommerce_url = (
            env.get("ECOMMERCE_URL") or f"http://127.0.0.1:{env.get('ECOMMERCE_PORT', '18130')}"
        )
        self.api_key = env.get("EDX_API_KEY") or "local-only-edx-api-key"
        self.jwt_secret = env.get("JWT_SECRET_KEY") or "local-only-jwt-secret-do-not-deploy"
        self.jwt_issuer = env.get("JWT_ISSUER") or "lms-stub"
        self.var_dir = Path(env.get("VAR_DIR") or ROOT / "var")
        self.env = dict(env)
        self.session = requests.Session()

    def faults(self, method: str, body: dict | None = None) -> dict:
        response = self.session.request(
            method,
            f"{self.lms_url}/api/faults/",
            json=body,
            headers={"X-Edx-Api-Key": self.api_key},
            timeout=10,
        )
        response.raise_for_status()
        applies = float(response.json().get("applies_within_seconds", 0.5))
        gevent.sleep(applies + 0.1)  # every lms_stub worker has re-read its fault settings
        return response.json()

    def token(self, username: str) -> str:
        claims = {
            "username": username,
            "email": f"{username}@example.com",
            "iss": self.jwt_issuer,
            "exp": int(time.time()) + 300,
        }
        return jwt.encode(claims, self.jwt_secret, algorithm="HS256")

    def script(self, *args: str) -> None:
        done = subprocess.run(
            [str(ROOT / "scripts" / args[0]), *args[1:]],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        if done.returncode != 0:
            raise RuntimeError(f"scripts/{' '.join(args)} failed: {(done.stdout + done.stderr)[-300:]}")

    def alive(self, name: str) -> bool:
        try:
            return psutil.pid_exists(int((self.var_dir / "run" / f"{name}.pid").read_text().strip()))
        except (OSError, ValueError):
            return False

    def client_connections(self, pid: int) -> int:
        """Established client connections a worker holds on ecommerce's port (requests in
        flight and kept-alive connections of lms_stub)."""
        port = int(self.ecommerce_url.rsplit(":", 1)[1].split("/")[0])
        try:
            connections = psutil.Process(pid).net_connections(kind="tcp")
        except psutil.Error:
            return 0
        return sum(1 for c in connections if c.status == psutil.CONN_ESTABLISHED and c.laddr.port == port)

    def ecommerce_workers(self) -> tuple[int, list[int]]:
        master = psutil.Process(int((self.var_dir / "run" / "ecommerce.pid").read_text().strip()))
        return master.pid, sorted(child.pid for child in master.children())


# --- the faults -------------------------------------------------------------------------------


def _lms_down(ctx: Context, event: Event, seconds: float) -> None:
    ctx.faults("PUT", {"outage_seconds": seconds})
    event.started = time.time()
    gevent.sleep(max(0.0, event.started + seconds - time.time()))
    ctx.faults("DELETE")
    event.ended = time.time()


def _lms_slow(ctx: Context, event: Event, seconds: float) -> None:
    latency = int((fulfilment_timeout() + 2) * 1000)
    ctx.faults("PUT", {"latency_ms": latency})
    event.started = time.time()
    event.detail["latency_ms"] = latency
    gevent.sleep(seconds)
    ctx.faults("DELETE")
    event.ended = time.time()


def _db_restart(ctx: Context, event: Event, seconds: float) -> None:
    event.started = time.time()
    ctx.script("mysql.sh", "down")
    event.detail["down_after_s"] = round(time.time() - event.started, 1)
    gevent.sleep(max(0.0, event.started + seconds - time.time()))
    ctx.script("mysql.sh", "up")
    event.ended = time.time()
    event.detail["restarted_after_s"] = round(event.ended - event.started, 1)
    gevent.sleep(2)  # a round of the rollup loop against the restarted database
    event.detail["rollup_alive"] = ctx.alive("rollup")


def _worker_kill(ctx: Context, event: Event, seconds: float) -> None:
    """SIGKILL the ecommerce worker with the most client connections. The LMS answers slowly
    (half the fulfilment timeout, at most 3 s) for the length of the fault, so several orders
    per worker are caught between their two transactions: committed, enrollment under way."""
    latency = min(3.0, fulfilment_timeout() / 2)
    ctx.faults("PUT", {"latency_ms": int(latency * 1000)})
    gevent.sleep(latency + 0.5)
    master, before = ctx.ecommerce_workers()
    victim, in_flight = max(((pid, ctx.client_connections(pid)) for pid in before), key=lambda p: p[1])
    event.started = time.time()
    os.kill(victim, signal.SIGKILL)
    gevent.sleep(max(0.0, event.started + seconds - time.time()))
    ctx.faults("DELETE")
    event.ended = time.time()
    _, after = ctx.ecommerce_workers()
    event.detail.update(
        {
            "killed": victim,
            "its_client_connections": in_flight,
            "workers_before": len(before),
            "workers_after": len(after),
            "replaced": victim not in after and len(after) == len(before),
        }
    )


def _duplicates(ctx: Context, event: Event, seconds: float) -> None:
    sku = catalogue(1)[0].sku
    event.started = time.time()
    # One learner, one Idempotency-Key, 20 requests at once.
    same_key = _purchase_at_once(
        ctx, f"chaos_{uuid.uuid4().hex[:12]}", sku, SAME_KEY_REQUESTS, key=uuid.uuid4().hex
    )
    # Another learner buys the same seat twice, without a key.
    no_key = _purchase_at_once(ctx, f"chaos_{uuid.uuid4().hex[:12]}", sku, 2, key=None)
    event.ended = time.time()
    database = ctx.env.get("ECOMMERCE_DB_NAME", "ecommerce")
    with mysql_connect() as conn, conn.cursor() as cursor:
        for outcome in (same_key, no_key):
            cursor.execute(
                f"SELECT COUNT(*) FROM `{database}`.order_order o JOIN `{database}`.auth_user u "
                "ON u.id = o.user_id WHERE u.username = %s",
                [outcome["learner"]],
            )
            outcome["orders"] = int(cursor.fetchone()[0])
    event.detail.update({"sku": sku, "same_key": same_key, "no_key": no_key})


def _purchase_at_once(ctx: Context, learner: str, sku: str, count: int, key: str | None) -> dict:
    headers = {"Authorization": "JWT " + ctx.token(learner), "Content-Type": "application/json"}
    if key:
        headers["Idempotency-Key"] = key
    body = {"products": [{"sku": sku}], "checkout": True}

    def send():
        try:
            response = requests.post(
                f"{ctx.ecommerce_url}/api/v2/baskets/", json=body, headers=headers, timeout=30
            )
        except requests.RequestException as exc:
            return 0, {"error": type(exc).__name__}
        try:
            return response.status_code, response.json()
        except ValueError:
            return response.status_code, {"error": "not_json"}

    answers = [g.value for g in gevent.joinall([gevent.spawn(send) for _ in range(count)])]
    statuses: dict[str, int] = {}
    for status, _ in answers:
        statuses[str(status)] = statuses.get(str(status), 0) + 1
    numbers = sorted(
        {(body.get("order") or {}).get("number") for status, body in answers if 200 <= status < 300} - {None}
    )
    codes = sorted({body.get("error") for status, body in answers if status >= 400} - {None})
    return {
        "learner": learner,
        "requests": count,
        "statuses": statuses,
        "order_numbers": numbers,
        "codes": codes,
    }


FAULTS = {
    "lms_down": ("LMS enrollment API down", _lms_down),
    "lms_slow": ("LMS slower than the fulfilment timeout", _lms_slow),
    "db_restart": ("MariaDB restarted", _db_restart),
    "worker_kill": ("an ecommerce worker killed (SIGKILL)", _worker_kill),
    "duplicates": ("duplicate submissions", _duplicates),
}


def drive(plan, t0: float, events: dict[int, Event], ctx: Context | None = None) -> None:
    """Inject each step's fault at its time (run as a greenlet by the process that keeps the
    results). A fault that cannot be injected is recorded as the step's error."""
    ctx = ctx or Context()
    for step in plan.steps:
        if not step.fault:
            continue
        lead, length = fault_window(step.seconds)
        gevent.sleep(max(0.0, t0 + step.start + lead - time.time()))
        event = events.setdefault(step.index, Event(step.fault))
        try:
            FAULTS[step.fault][1](ctx, event, length)
        except Exception as exc:  # the check of this step fails and says why
            event.error = f"{type(exc).__name__}: {exc}"[:300]
            if step.fault in ("lms_down", "lms_slow"):
                _quietly(ctx.faults, "DELETE")
            if step.fault == "db_restart":
                _quietly(ctx.script, "mysql.sh", "up")


def _quietly(function, *args) -> None:
    try:
        function(*args)
    except Exception:
        pass


def clear_all(ctx: Context | None = None) -> None:
    """Make sure nothing stays broken after a run that stopped early."""
    ctx = ctx or Context()
    _quietly(ctx.faults, "DELETE")
    _quietly(ctx.script, "mysql.sh", "up")


def retry_all(env=None) -> dict:
    """retry_fulfillment --all against the stack's database, with every Open order treated as
    stale (the run is over: no fulfilment is still running)."""
    run_env = {**(env if env is not None else os.environ), "STALE_OPEN_ORDER_SECONDS": "0"}
    run_env.setdefault("DJANGO_SETTINGS_MODULE", "settings.local")
    python = str(ROOT / ".venv" / "bin" / "python")
    done = subprocess.run(
        [python, str(ROOT / "manage.py"), "retry_fulfillment", "--all"],
        env=run_env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    lines = done.stdout.strip().splitlines()
    return {"exit_code": done.returncode, "summary": lines[-1] if lines else done.stderr.strip()[-300:]}


# --- judging ----------------------------------------------------------------------------------


def recovery_seconds(row: dict, event: Event | None, t0: float) -> float | None:
    """Seconds from the end of the fault to the end of the last second in which a request
    failed or an order was answered without its enrollment (202); 0 if none did after it.
    None when the step ended still degraded (within 2 s of its end) or the fault never ran."""
    if event is None or event.ended is None:
        return None
    last = row.get("degraded_until")
    if last is None or last <= event.ended:
        return 0.0
    step_end = t0 + row["start"] + row["seconds"]
    if last >= step_end - 2:
        return None
    return round(last - event.ended, 1)


def _statuses(row: dict) -> dict[str, dict[str, int]]:
    return {name: endpoint.get("statuses", {}) for name, endpoint in row.get("endpoints", {}).items()}


def _failures_are(row: dict, allowed: set[str]) -> tuple[bool, str]:
    seen = {
        f"{name} {status}": count
        for name, statuses in _statuses(row).items()
        for status, count in statuses.items()
        if not status.startswith("2") and status not in allowed
    }
    return not seen, ", ".join(f"{k}×{v}" for k, v in seen.items()) or "none"


def _read_failures(row: dict) -> int:
    return sum(
        e.get("failures", 0)
        for n, e in row.get("endpoints", {}).items()
        if n.startswith("/api/commerce/v1/orders")
    )


def checks(row: dict, event: Event | None, audit_step: dict, recovery: float | None) -> list[dict]:
    """The expected outcome of a step's fault, as named checks."""
    out = []

    def check(name: str, ok: bool, detail) -> None:
        out.append({"check": name, "ok": bool(ok), "detail": str(detail)})

    if event is None or event.started is None or event.error:
        check("the fault was injected", False, (event.error if event else None) or "the fault did not run")
        return out
    check("nothing lost", audit_step.get("lost", 0) == 0, audit_step.get("lost", 0))
    check("no duplicate order", audit_step.get("duplicates", 0) == 0, audit_step.get("duplicates", 0))
    check("no partial order", audit_step.get("partial", 0) == 0, audit_step.get("partial", 0))
    order = row.get("statuses", {})
    fault = event.fault
    if fault == "lms_down":
        check("orders placed in the outage answered 202 (Fulfillment Error)", order.get("202", 0) > 0, order)
        check("other endpoints kept answering (order reads)", _read_failures(row) == 0, _read_failures(row))
        ok, seen = _failures_are(row, set())
        check("no request failed", ok, seen)
    elif fault == "lms_slow":
        limit = (fulfilment_timeout() + TIMEOUT_SLACK) * 1000
        check(
            f"order requests ended within the timeout (+{TIMEOUT_SLACK:g} s)",
            (row.get("p100") or 0) <= limit,
            f"max {row.get('p100')} ms",
        )
        check("orders past the timeout answered 202 (Fulfillment Error)", order.get("202", 0) > 0, order)
        check(
            "unrelated requests kept answering (order reads)", _read_failures(row) == 0, _read_failures(row)
        )
        ok, seen = _failures_are(row, set())
        check("no worker or pool exhaustion (no failed request)", ok, seen)
    elif fault == "db_restart":
        ok, seen = _failures_are(row, {"503"})
        check("requests that failed got a 503", ok, seen)
        check("recovered by itself within the step", recovery is not None, recovery)
        check("the counter rollup loop kept running", event.detail.get("rollup_alive"), event.detail)
    elif fault == "worker_kill":
        check("the worker was replaced", event.detail.get("replaced"), event.detail)
        ok, seen = _failures_are(row, {"502", "503"})
        check("requests that failed got a JSON 502/503", ok, seen)
        check("recovered within the step", recovery is not None, recovery)
    elif fault == "duplicates":
        same, twice = event.detail.get("same_key", {}), event.detail.get("no_key", {})
        check(
            f"{SAME_KEY_REQUESTS} requests with one Idempotency-Key placed one order",
            same.get("orders") == 1 and len(same.get("order_numbers", [])) == 1,
            same,
        )
        check(
            "every answer to them was that order or 'retry shortly'",
            set(same.get("statuses", {})) <= {"201", "409"}
            and set(same.get("codes", [])) <= {"request_in_progress"},
            same.get("statuses"),
        )
        check(
            "the same seat twice without a key: one order, one 409",
            twice.get("orders") == 1 and twice.get("statuses") == {"201": 1, "409": 1},
            twice,
        )
    return out


def reliability_rows(
    rows: list[dict], events: dict[int, Event], audit_steps: dict[int, dict], t0: float
) -> list[dict]:
    """One row per fault: requests, answers by status, lost, duplicates, partial, recovery."""
    out = []
    for row in rows:
        event = events.get(row["index"])
        recovery = recovery_seconds(row, event, t0)
        audit_step = audit_steps.get(row["index"], {})
        step_checks = checks(row, event, audit_step, recovery)
        merged: dict[str, int] = {}  # the same status on several endpoints adds up
        for statuses in _statuses(row).values():
            for status, count in statuses.items():
                if not status.startswith("2"):
                    merged[status] = merged.get(status, 0) + count
        out.append(
            {
                "index": row["index"],
                "fault": event.fault if event else None,
                "requests": row.get("requests", 0),
                "orders_answered": {k: v for k, v in row.get("statuses", {}).items() if k.startswith("2")},
                "errors_by_status": merged,
                "lost": audit_step.get("lost", 0),
                "duplicates": audit_step.get("duplicates", 0),
                "partial": audit_step.get("partial", 0),
                "recovery_seconds": recovery,
                "fault_started": round(event.started - t0, 1) if event and event.started else None,
                "fault_ended": round(event.ended - t0, 1) if event and event.ended else None,
                "detail": event.detail if event else {},
                "checks": step_checks,
                "passed": all(c["ok"] for c in step_checks),
            }
        )
    return out
