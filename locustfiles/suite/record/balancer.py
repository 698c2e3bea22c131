"""What the load balancer did during each step: how many requests HAProxy sent to each ecommerce
server, and each server's state (UP, DOWN, DRAIN, MAINT) and last health check.

Read from HAProxy's stats page as CSV (roles/haproxy/README.md, "Stats page"), with its
read-only user: BALANCER_STATS_URL (``http://<lb>:8404/stats;csv``), BALANCER_STATS_USER,
BALANCER_STATS_PASSWORD. Unset, nothing is read and the run has no balancer figures.

HAProxy's counters start again from 0 when it reloads its configuration (a new worker): a
step in which a server's count went down counts from 0, and says so (``reset``); the requests
between the step's start and the reload are then not counted.
"""

import base64
import csv
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence

from common.environment import get
from locustfiles.suite.core.summary import StepRow

BACKEND = "ecommerce"
# HAProxy's own rows of a proxy, not servers.
AGGREGATES = ("FRONTEND", "BACKEND")
TIMEOUT_SECONDS = 2.0


class Unreadable(Exception):
    """The stats page did not answer, refused the user, or its CSV has no such backend."""


def _int(value: str | None) -> int | None:
    return int(value) if value not in ("", None) else None


def parse(text: str, backend: str = BACKEND) -> dict[str, dict]:
    """The servers of ``backend`` in HAProxy's stats CSV, by name: ``requests`` (stot: sessions
    sent to it, one per request with the role's one-request server connections), ``sessions``
    (scur: under way now), ``status`` (UP, DOWN, DRAIN, MAINT or NOLB; ``state`` has HAProxy's
    words, "UP 1/2" while a server goes down, "MAINT (via …)"), ``check_status`` (L7OK, L4CON,
    L7STS, …; empty when its checks are off), ``check_code`` (the check's HTTP status) and
    ``downtime`` (seconds DOWN since HAProxy started)."""
    lines = text.lstrip("# ").splitlines()
    servers = {}
    for row in csv.DictReader(lines):
        if row.get("pxname") != backend or row.get("svname") in AGGREGATES:
            continue
        state = row.get("status") or ""
        # "no check": a server whose health checks are off, which HAProxy treats as up.
        status = "UP" if state == "no check" else state.split(" ")[0]
        servers[row["svname"]] = {
            "requests": _int(row.get("stot")) or 0,
            "sessions": _int(row.get("scur")) or 0,
            "status": status,
            "state": state,
            "check_status": (row.get("check_status") or "").lstrip("* "),
            "check_code": _int(row.get("check_code")),
            "downtime": _int(row.get("downtime")),
        }
    if not servers:
        raise Unreadable(f"no server of backend {backend!r} in the stats CSV")
    return servers


class BalancerStats:
    """HAProxy's stats page as the load suite reads it."""

    def __init__(self, url: str, user: str, password: str, backend: str = BACKEND):
        self.url, self.backend = url, backend
        token = base64.b64encode(f"{user}:{password}".encode()).decode()
        self._authorization = f"Basic {token}"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "BalancerStats | None":
        """The page BALANCER_STATS_URL names, or None when it is not set."""
        url = get("BALANCER_STATS_URL", env)
        if not url:
            return None
        return cls(url, get("BALANCER_STATS_USER", env), get("BALANCER_STATS_PASSWORD", env) or "")

    def read(self) -> dict[str, dict]:
        """The backend's servers now (``parse``); Unreadable when the page does not give them."""
        request = urllib.request.Request(self.url, headers={"Authorization": self._authorization})
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as answer:  # noqa: S310
                text = answer.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as exc:
            raise Unreadable(f"{self.url} answered {exc.code}") from None
        except (OSError, ValueError) as exc:
            raise Unreadable(f"{self.url}: {exc}") from None
        return parse(text, self.backend)

    def snapshot(self) -> dict:
        """The servers now with the time, or the reason they could not be read: a run goes on
        without the balancer's figures (a step whose reading failed has an ``error``)."""
        try:
            return {"time": time.monotonic(), "servers": self.read()}
        except Unreadable as exc:
            return {"time": time.monotonic(), "error": str(exc)}


def reading(before: dict, after: dict) -> dict:
    """One step: the requests each server was sent between two snapshots, and its state at the
    end (status, check, sessions, downtime). A server that appeared during the step counts from
    0; one whose counter went down was counted anew by a reloaded HAProxy (``reset`` names it)."""
    if "servers" not in after:
        return {"error": after.get("error", "not read")}
    then = before.get("servers") or {}
    out: dict = {"requests": {}, "servers": {}}
    reset = []
    for name, now in sorted(after["servers"].items()):
        earlier = then.get(name, {}).get("requests", 0)
        if now["requests"] < earlier:
            reset.append(name)
            earlier = 0
        out["requests"][name] = now["requests"] - earlier
        out["servers"][name] = {key: now[key] for key in ("status", "check_status", "sessions", "downtime")}
    if reset:
        out["reset"] = reset
    if "servers" not in before:
        out["from"] = "the first reading"  # the step's start was not read: counts since HAProxy began
    return out


def summary(rows: Sequence[StepRow]) -> dict | None:
    """The run's balancer figures from its step rows (each with the ``balancer`` reading of its
    step): requests per server per step and in all, each server's share, and its state at the
    end. None when no step has a reading."""
    read = [row for row in rows if row.get("balancer")]
    if not read:
        return None
    names = sorted({name for row in read for name in (row["balancer"].get("requests") or {})})
    steps = []
    for row in read:
        taken = row["balancer"]
        steps.append(
            {
                "index": row["index"],
                "label": row.get("label"),
                "requests": taken.get("requests") or {},
                **({"reset": taken["reset"]} if taken.get("reset") else {}),
                **({"error": taken["error"]} if taken.get("error") else {}),
            }
        )
    total = {name: sum(step["requests"].get(name, 0) for step in steps) for name in names}
    sent = sum(total.values())
    share = {name: round(100 * count / sent, 1) if sent else None for name, count in total.items()}
    last: dict[str, dict] = next(
        (row["balancer"]["servers"] for row in reversed(read) if row["balancer"].get("servers")), {}
    )
    return {
        "servers": names,
        "steps": steps,
        "requests": total,
        "share_percent": share,
        "at_end": last,
        "unread_steps": [step["index"] for step in steps if "error" in step],
    }
